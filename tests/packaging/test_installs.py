"""The standard installs work from a clean checkout, with no lock file and no make: the sdist
and wheel `python -m build` makes go into fresh virtual environments with plain pip, and the
installed command, server and library answer on the embedded demo.

The wheel is the compiled build, type-checked against the real dependencies in its own build
environment; the sdist is installed where no C compiler is on PATH and falls back to pure
Python, answering the same. If the build came to depend on what a lock installs beside it,
the isolated builds here would fail.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.packaging.installs import (
    build,
    build_log,
    clean_copy,
    environment,
    fresh_venv,
    path_without_a_compiler,
    pip_install,
    run,
    sdist_members,
)
from tests.support.servers import free_port

# One worker builds once and installs both (module fixtures; `make test` runs --dist loadgroup).
pytestmark = [pytest.mark.packaging, pytest.mark.xdist_group("packaging")]


class Installed:
    def __init__(self, bin_dir: Path, home: Path, log: str) -> None:
        self.bin = bin_dir
        self.home = home
        self.log = log

    def env(self) -> dict[str, str]:
        return environment(SCHOOLDATA_HOME=str(self.home))

    def schooldata(self, *args: str) -> str:
        return run([str(self.bin / "schooldata"), *args], env=self.env(), timeout=300).stdout


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("build")
    checkout = clean_copy(root / "checkout")
    return build(checkout, root / "dist", env=environment(SCHOOLDATA_COMPILE="1"))


@pytest.fixture(scope="module")
def from_wheel(dists: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("wheel")
    bin_dir = fresh_venv(root / "venv")
    log = pip_install(bin_dir, str(dists[1]), env=environment())
    return Installed(bin_dir, root / "home", log)


@pytest.fixture(scope="module")
def from_sdist_without_compiler(
    dists: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> Installed:
    root = tmp_path_factory.mktemp("sdist")
    bin_dir = fresh_venv(root / "venv")
    env = environment(PATH=path_without_a_compiler(bin_dir), CC=None)
    log = pip_install(bin_dir, str(dists[0]), env=env)
    return Installed(bin_dir, root / "home", log)


def test_the_sdist_carries_what_the_build_and_the_demo_need(dists: tuple[Path, Path]) -> None:
    members = sdist_members(dists[0])
    for needed in (
        "setup.py",
        "pyproject.toml",
        "build_support/schooldata_build.py",
        "build_support/compile_plan.py",
        "src/schooldata/py.typed",
        "src/schooldata/adapters/sample/data/manifest.json",
        "src/schooldata/adapters/sql/migrations/env.py",
    ):
        assert needed in members, needed
    assert any(m.startswith("src/schooldata/adapters/sql/migrations/versions/") for m in members)


def test_the_wheel_is_the_compiled_build(from_wheel: Installed, dists: tuple[Path, Path]) -> None:
    version = from_wheel.schooldata("--version")
    assert re.match(r"schooldata \d+\.\d+\.\d+\n", version)
    assert "build: compiled (mypyc)" in version, build_log(dists[1])
    assert "python: CPython 3." in version


def test_without_a_compiler_the_sdist_installs_pure_python_and_says_why(
    from_sdist_without_compiler: Installed,
) -> None:
    assert "schooldata build: pure Python (no C compiler was found)" in (
        from_sdist_without_compiler.log
    )
    assert "build: pure Python" in from_sdist_without_compiler.schooldata("--version")


def test_both_builds_answer_a_search_on_the_demo_alike(
    from_wheel: Installed, from_sdist_without_compiler: Installed
) -> None:
    answers = [
        json.loads(installed.schooldata("search", "st mary", "--format", "json"))
        for installed in (from_wheel, from_sdist_without_compiler)
    ]
    assert answers[0]["total"] > 0 and answers[0]["results"]
    assert answers[0] == answers[1]


def test_the_installed_library_searches_the_demo(from_wheel: Installed) -> None:
    script = "import schooldata; print(len(schooldata.search('st mary', limit=5)))"
    done = run([str(from_wheel.bin / "python"), "-c", script], env=from_wheel.env())
    assert done.stdout.strip() == "5"


@pytest.fixture
def served(from_wheel: Installed) -> Iterator[tuple[str, str]]:
    port = free_port()
    server = subprocess.Popen(
        [str(from_wheel.bin / "schooldata"), "serve", "--port", str(port)],
        env=from_wheel.env(),
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    said = []
    try:
        assert server.stderr is not None
        deadline = time.monotonic() + 120
        for line in server.stderr:
            said.append(line)
            if line.startswith("Serving on ") or time.monotonic() > deadline:
                break
        yield f"http://127.0.0.1:{port}", "".join(said)
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


def test_the_installed_server_answers_once_it_says_it_is_serving(
    served: tuple[str, str],
) -> None:
    url, said = served
    assert f"Serving on {url}" in said, said
    with urllib.request.urlopen(f"{url}/api/v1/search?query=st%20mary&limit=2", timeout=10) as r:
        assert r.status == 200
        assert len(json.load(r)["results"]) == 2
