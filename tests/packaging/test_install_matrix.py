"""Every standard install of a clean checkout, in its own fresh virtual environment: pip from
the directory, editable, with each extra, and uv. Slow (each compiled build takes minutes):
`make install-matrix` runs it; `make test` runs the sdist and wheel (test_installs.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.packaging.installs import clean_copy, environment, fresh_venv, pip_install, run

pytestmark = [pytest.mark.packaging, pytest.mark.slow]


def answers_a_search(bin_dir: Path, home: Path) -> None:
    done = run(
        [str(bin_dir / "schooldata"), "search", "st mary", "--format", "json"],
        env=environment(SCHOOLDATA_HOME=str(home)),
    )
    assert json.loads(done.stdout)["total"] > 0


def build_of(bin_dir: Path) -> str:
    done = run([str(bin_dir / "schooldata"), "--version"], env=environment())
    return next(line for line in done.stdout.splitlines() if line.startswith("build: "))


@pytest.mark.parametrize(
    ("how", "compiled"),
    [("{checkout}", True), ("-e {checkout}", True), ("{checkout}[postgres,redis,otel]", False)],
)
def test_pip_installs_a_clean_checkout(how: str, compiled: bool, tmp_path: Path) -> None:
    checkout = clean_copy(tmp_path / "checkout")
    bin_dir = fresh_venv(tmp_path / "venv")
    env = environment(SCHOOLDATA_COMPILE=None if compiled else "0")
    pip_install(bin_dir, *how.format(checkout=checkout).split(), env=env)
    assert build_of(bin_dir) == ("build: compiled (mypyc)" if compiled else "build: pure Python")
    answers_a_search(bin_dir, tmp_path / "home")
    if "[" in how:
        script = "import psycopg, redis, opentelemetry.sdk; print('extras')"
        assert run([str(bin_dir / "python"), "-c", script], env=env).stdout.strip() == "extras"


def test_uv_installs_a_clean_checkout(tmp_path: Path) -> None:
    uv = str(Path(sys.executable).parent / "uv")  # (the dev extra installs it beside pytest)
    checkout = clean_copy(tmp_path / "checkout")
    bin_dir = fresh_venv(tmp_path / "venv")
    python = str(bin_dir / "python")
    run([uv, "pip", "install", "--python", python, str(checkout)], env=environment(), timeout=1500)
    assert build_of(bin_dir) == "build: compiled (mypyc)"
    answers_a_search(bin_dir, tmp_path / "home")
