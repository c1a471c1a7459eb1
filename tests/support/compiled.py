"""Where a module's source is, compiled or not, and whether a build in place is stale."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


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
