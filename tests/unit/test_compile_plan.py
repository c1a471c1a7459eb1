"""The build compiles only where it can, asks for the compiled build's requirements only then,
and says why not otherwise (build_support/compile_plan.py)."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "build_support"))
import compile_plan  # noqa: E402


def test_a_machine_with_a_compiler_and_headers_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SCHOOLDATA_COMPILE", raising=False)
    monkeypatch.delenv("CC", raising=False)
    if compile_plan.c_compiler() is None:
        pytest.fail("this machine builds the project: it has a C compiler")
    assert compile_plan.reason_not_to_compile() is None


def test_the_compiled_build_asks_for_mypy_and_every_dependency(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SCHOOLDATA_COMPILE", raising=False)
    monkeypatch.delenv("CC", raising=False)
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"][
        "dependencies"
    ]
    assert compile_plan.compile_requirements() == [compile_plan.MYPY, *dependencies]


def test_asking_for_pure_python_needs_nothing_more(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCHOOLDATA_COMPILE", "0")
    assert compile_plan.reason_not_to_compile() == "SCHOOLDATA_COMPILE=0 asks for pure Python"
    assert compile_plan.compile_requirements() == []


def test_no_c_compiler_is_a_reason_to_build_pure_python(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("SCHOOLDATA_COMPILE", raising=False)
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    assert compile_plan.reason_not_to_compile() == "no C compiler was found"
    assert compile_plan.compile_requirements() == []


def test_the_mypy_the_build_uses_is_the_one_lint_uses() -> None:
    locked = (ROOT / "requirements" / "dev.txt").read_text("utf-8")
    assert f"\n{compile_plan.MYPY} \\" in locked
