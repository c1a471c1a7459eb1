"""Compiles the served hot path with mypyc when it can (`build_support/compile_plan.py`): the
same typed Python, run as C. Never a failed install because of it: without a C compiler,
Python's headers or CPython, with SCHOOLDATA_COMPILE=0, or when the compiled build fails, the
package is built as pure Python and one line says why (docs/deploy.md, "Compiled or not").
"""

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

sys.path.insert(0, str(Path(__file__).resolve().parent / "build_support"))
from compile_plan import reason_not_to_compile, say

# The modules a served request runs most, each free of what mypyc does not compile here
# (attrs and msgspec class bodies, handlers Litestar inspects, weak references).
COMPILED = (
    "src/schooldata/adapters/memory/access.py",
    "src/schooldata/adapters/memory/bits.py",
    "src/schooldata/adapters/memory/hits.py",
    "src/schooldata/adapters/memory/index.py",
    "src/schooldata/adapters/memory/postcode_index.py",
    "src/schooldata/adapters/memory/postings.py",
    "src/schooldata/adapters/memory/proximity.py",
    "src/schooldata/adapters/memory/relevance.py",
    "src/schooldata/adapters/memory/smallest.py",
    "src/schooldata/adapters/memory/snapshot.py",
    "src/schooldata/adapters/sql/key_store.py",
    "src/schooldata/adapters/sql/quota_counter.py",
    "src/schooldata/adapters/sql/quota_leases.py",
    "src/schooldata/adapters/sql/sqlite_changes.py",
    "src/schooldata/adapters/system.py",
    "src/schooldata/application/about.py",
    "src/schooldata/application/access.py",
    "src/schooldata/application/commercial.py",
    "src/schooldata/application/locate.py",
    "src/schooldata/application/operations/arguments.py",
    "src/schooldata/application/operations/lists.py",
    "src/schooldata/application/operations/params.py",
    "src/schooldata/application/operations/public.py",
    "src/schooldata/application/operations/reading.py",
    "src/schooldata/application/paging.py",
    "src/schooldata/application/parameters.py",
    "src/schooldata/application/pipeline.py",
    "src/schooldata/application/search_schools.py",
    "src/schooldata/domain/credentials.py",
    "src/schooldata/domain/geo.py",
    "src/schooldata/domain/phase.py",
    "src/schooldata/domain/postcode.py",
    "src/schooldata/domain/search.py",
    "src/schooldata/domain/text.py",
    "src/schooldata/entrypoints/answers.py",
    "src/schooldata/entrypoints/hosts.py",
    "src/schooldata/entrypoints/http/answer.py",
    "src/schooldata/entrypoints/http/request.py",
    "src/schooldata/entrypoints/http/route_table.py",
    "src/schooldata/entrypoints/json_body.py",
    "src/schooldata/entrypoints/mcp_server/auth.py",
    "src/schooldata/entrypoints/mcp_server/call_checks.py",
    "src/schooldata/entrypoints/mcp_server/call_road.py",
    "src/schooldata/entrypoints/mcp_server/endpoint.py",
    "src/schooldata/entrypoints/mcp_server/envelopes.py",
    "src/schooldata/entrypoints/mcp_server/guard.py",
    "src/schooldata/entrypoints/mcp_server/invoke.py",
    "src/schooldata/entrypoints/mcp_server/replies.py",
    "src/schooldata/entrypoints/mcp_server/routing.py",
    "src/schooldata/entrypoints/mcp_server/summaries.py",
    "src/schooldata/entrypoints/observability/access.py",
    "src/schooldata/entrypoints/observability/logs.py",
    "src/schooldata/entrypoints/observability/metrics.py",
    "src/schooldata/entrypoints/rest/body_deadline.py",
    "src/schooldata/entrypoints/rest/edge.py",
    "src/schooldata/entrypoints/rest/exchange.py",
    "src/schooldata/entrypoints/rest/links.py",
    "src/schooldata/entrypoints/rest/outgoing.py",
    "src/schooldata/entrypoints/rest/query.py",
    "src/schooldata/entrypoints/rest/representation.py",
    "src/schooldata/entrypoints/rest/responses.py",
    "src/schooldata/entrypoints/rest/routes.py",
    "src/schooldata/entrypoints/rest/transport.py",
    "src/schooldata/entrypoints/wire/fragments.py",
    "src/schooldata/entrypoints/wire/list_items.py",
    "src/schooldata/entrypoints/wire/memo.py",
    "src/schooldata/entrypoints/wire/meta.py",
    "src/schooldata/entrypoints/wire/public.py",
)


# The setup.py commands that build code; the others (egg_info, dist_info, sdist: what a build
# asks first, for metadata and requirements) need no extensions and say nothing.
BUILDS = frozenset({"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"})


def _extensions() -> list:
    if BUILDS.isdisjoint(sys.argv[1:]):
        return []
    reason = reason_not_to_compile()
    if reason is None:
        try:
            from mypyc.build import mypycify
        except ImportError:
            reason = "mypy is not installed where the build runs"
    if reason is not None:
        say(f"pure Python ({reason}); the compiled build is faster (docs/deploy.md)")
        return []
    say(f"compiling {len(COMPILED)} modules with mypyc (a few minutes on 2 cores)")
    # The type check follows imports into the optional extras (psycopg, redis, OpenTelemetry),
    # which a build does not install: a missing one is Any there (`make lint` checks them).
    options = ["--ignore-missing-imports", "--no-warn-unused-ignores"]
    try:
        # One C file per module, so the compiler runs on every core (`_BuildExt`).
        extensions = mypycify([*options, *COMPILED], opt_level="3", multi_file=True)
    except SystemExit as failed:  # mypyc exits when its type check fails
        say(f"pure Python (the compiled build's type check failed: {failed})")
        return []
    if sys.platform.startswith("linux"):  # (flags of GNU ld and lld; elsewhere the defaults)
        for extension in extensions:
            # The compiled modules call each other and mypyc's runtime inside one shared
            # library: bound there when it is linked, not through the PLT.
            extension.extra_compile_args.append("-fno-semantic-interposition")
            extension.extra_link_args.append("-Wl,-Bsymbolic-functions")
    return extensions


class _BuildExt(build_ext):
    """Compiles every C file of the build on every core, and falls back to pure Python when
    the compiled build fails: the modules' sources are in the package either way, and an
    extension that was not built is simply not there to shadow them."""

    def build_extensions(self) -> None:
        compile_one = self.compiler.compile
        workers = os.cpu_count() or 1

        def compile_all(sources: list[str], *args: object, **kwargs: object) -> list[str]:
            # (distutils' compile runs its files one after another; each is its own process)
            with ThreadPoolExecutor(workers) as pool:
                done = pool.map(lambda source: compile_one([source], *args, **kwargs), sources)
                return [name for names in done for name in names]

        self.compiler.compile = compile_all
        try:
            super().build_extensions()
        except Exception as failed:  # the compiler's or linker's error, whatever its class
            for extension in self.extensions:
                Path(self.get_ext_fullpath(extension.name)).unlink(missing_ok=True)
            say(f"pure Python (the compiled build failed: {failed})")


if __name__ == "__main__":  # as setuptools runs it; tests import COMPILED alone
    setup(ext_modules=_extensions(), cmdclass={"build_ext": _BuildExt})
