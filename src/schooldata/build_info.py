"""Which build of schooldata is running: its version, whether the served hot path runs
compiled, and the Python under it (`schooldata --version`, the line `serve` starts with).

A compiled build is a speed option (setup.py): the same answers, faster. Operators ask which
one they run, so it is read off the modules actually imported, not off how they were built.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import platform
import sys

from schooldata import __version__

# A module every served request runs, compiled in every compiled build (setup.py's COMPILED).
PROBE = "schooldata.application.pipeline"


def compiled() -> bool:
    """True when the hot path's modules are extension modules (mypyc's C), not Python."""
    spec = importlib.util.find_spec(PROBE)
    origin = spec.origin if spec is not None else None
    return origin is not None and origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def build_name() -> str:
    return "compiled (mypyc)" if compiled() else "pure Python"


def python_name() -> str:
    return f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})"


def describe() -> list[str]:
    """The lines `schooldata --version` prints."""
    return [f"schooldata {__version__}", f"build: {build_name()}", f"python: {python_name()}"]
