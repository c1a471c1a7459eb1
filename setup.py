"""Compiles the served hot path with mypyc when the project is built (a wheel, or `make install`'s
editable install): the same typed Python, run as C. SCHOOLDATA_COMPILE=0 builds pure Python;
every module works either way (docs/performance.md, "Compiled hot path")."""

import os
import sys

from setuptools import setup

# The modules a served request runs most, each free of what mypyc does not compile here
# (attrs and msgspec class bodies, handlers Litestar inspects, weak references).
COMPILED = (
    "src/schooldata/adapters/memory/access.py",
    "src/schooldata/adapters/memory/bits.py",
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
    "src/schooldata/entrypoints/mcp_server/auth.py",
    "src/schooldata/entrypoints/mcp_server/calls.py",
    "src/schooldata/entrypoints/mcp_server/direct.py",
    "src/schooldata/entrypoints/mcp_server/endpoint.py",
    "src/schooldata/entrypoints/mcp_server/envelopes.py",
    "src/schooldata/entrypoints/mcp_server/guard.py",
    "src/schooldata/entrypoints/mcp_server/invoke.py",
    "src/schooldata/entrypoints/mcp_server/routing.py",
    "src/schooldata/entrypoints/mcp_server/summaries.py",
    "src/schooldata/entrypoints/observability/access.py",
    "src/schooldata/entrypoints/observability/logs.py",
    "src/schooldata/entrypoints/observability/metrics.py",
    "src/schooldata/entrypoints/rest/dispatch.py",
    "src/schooldata/entrypoints/rest/edge.py",
    "src/schooldata/entrypoints/rest/links.py",
    "src/schooldata/entrypoints/rest/paths.py",
    "src/schooldata/entrypoints/rest/query.py",
    "src/schooldata/entrypoints/rest/representation.py",
    "src/schooldata/entrypoints/rest/responses.py",
    "src/schooldata/entrypoints/rest/routes.py",
    "src/schooldata/entrypoints/rest/transport.py",
    "src/schooldata/entrypoints/scope.py",
    "src/schooldata/entrypoints/wire/fragments.py",
    "src/schooldata/entrypoints/wire/list_items.py",
    "src/schooldata/entrypoints/wire/memo.py",
    "src/schooldata/entrypoints/wire/meta.py",
    "src/schooldata/entrypoints/wire/public.py",
)


def _extensions() -> list:
    if os.environ.get("SCHOOLDATA_COMPILE", "1") == "0":
        return []
    from mypyc.build import mypycify

    # The type check mypyc runs follows imports into the optional extras (psycopg, redis,
    # OpenTelemetry): `make serve`'s runtime install has none of them, so a missing one is Any
    # there (and a `type: ignore` it makes unused is no error); `make lint` checks them strictly.
    options = ["--ignore-missing-imports", "--no-warn-unused-ignores"]
    extensions = mypycify([*options, *COMPILED], opt_level="3")
    if sys.platform.startswith("linux"):  # (flags of GNU ld and lld; elsewhere the defaults)
        for extension in extensions:
            # The compiled modules call each other and mypyc's runtime inside one shared
            # library: bound there when it is linked, not through the PLT, and open to
            # inlining (nothing outside it replaces one of its functions).
            extension.extra_compile_args.append("-fno-semantic-interposition")
            extension.extra_link_args.append("-Wl,-Bsymbolic-functions")
    return extensions


if __name__ == "__main__":  # as setuptools runs it; tests import COMPILED alone
    setup(ext_modules=_extensions())
