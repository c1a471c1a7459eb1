"""Whether this build compiles the served hot path with mypyc, and what that needs.

Shared by the build backend (which asks for the compiled build's requirements only when it
will compile) and setup.py (which compiles, or says in one line why it does not). Compiling is
a speed option, never a requirement: without a C compiler, Python's headers or CPython, or with
SCHOOLDATA_COMPILE=0, the package builds as pure Python and answers the same.
"""

from __future__ import annotations

import os
import platform
import shlex
import shutil
import sys
import sysconfig
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The type checker mypyc runs; the same release `make lint` checks with (requirements/dev.txt).
MYPY = "mypy==2.4.1"


def reason_not_to_compile() -> str | None:
    """Why this build cannot or must not compile, or None when it will try."""
    if os.environ.get("SCHOOLDATA_COMPILE", "1").strip() == "0":
        return "SCHOOLDATA_COMPILE=0 asks for pure Python"
    if platform.python_implementation() != "CPython":
        return f"{platform.python_implementation()} is not CPython"
    headers = sysconfig.get_paths().get("include")
    if not headers or not Path(headers, "Python.h").is_file():
        return "Python's headers (Python.h) are not installed"
    if c_compiler() is None:
        return "no C compiler was found"
    return None


def c_compiler() -> str | None:
    """The C compiler setuptools would run (CC, else the interpreter's own), if it is here."""
    command = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    words = shlex.split(command)
    return shutil.which(words[0]) if words else None


def compile_requirements() -> list[str]:
    """What the compiled build installs before it type-checks: mypy, and every distribution
    the package imports (the check sees their real types; a missing one would be `Any`)."""
    if reason_not_to_compile() is not None:
        return []
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    return [MYPY, *project["dependencies"]]


def say(message: str) -> None:
    """One line about the build, where pip shows a build's output (`pip install -v`)."""
    print(f"schooldata build: {message}", file=sys.stderr, flush=True)
