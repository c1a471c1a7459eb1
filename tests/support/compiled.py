"""Which modules setup.py compiles with mypyc, and whether a build in place is stale."""

from __future__ import annotations

import runpy
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def compiled_sources() -> tuple[str, ...]:
    """setup.py's COMPILED list: source paths relative to the checkout."""
    return tuple(runpy.run_path(str(ROOT / "setup.py"), run_name="compiled_list")["COMPILED"])


def module_name(source: str) -> str:
    return source.removeprefix("src/").removesuffix(".py").replace("/", ".")


def source_of(module: ModuleType) -> Path:
    """A module's source file, whether it was imported compiled (`name.cpython-*.so`) or not."""
    path = Path(str(module.__file__))
    return path.with_name(path.name.split(".", 1)[0] + ".py")


def stale_builds(src: Path = ROOT / "src") -> list[str]:
    """Compiled modules older than their source: the interpreter would run the old code."""
    stale = []
    for built in src.rglob("*.so"):
        source = built.with_name(built.name.split(".", 1)[0] + ".py")
        if source.exists() and source.stat().st_mtime > built.stat().st_mtime:
            stale.append(str(source.relative_to(src.parent)))
    return sorted(stale)
