"""setup.py's list of compiled modules, and the check that stops a test session on a compiled
build older than its source. (That a build really compiles them: tests/packaging.)"""

from __future__ import annotations

import os
import time
from pathlib import Path

from tests.support.compiled import compiled_sources, module_name, stale_builds

from schooldata import build_info

COMPILED = compiled_sources()


def test_setup_lists_existing_modules_once() -> None:
    assert len(set(COMPILED)) == len(COMPILED)
    assert all(Path(__file__).resolve().parents[2].joinpath(path).is_file() for path in COMPILED)


def test_a_build_older_than_its_source_is_found_stale(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    built = package / "mod.cpython-311-x86_64-linux-gnu.so"
    built.write_bytes(b"")
    source = package / "mod.py"
    source.write_text("")
    now = time.time()
    os.utime(source, (now - 5, now - 5))
    os.utime(built, (now, now))
    assert stale_builds(tmp_path) == []
    os.utime(source, (now + 5, now + 5))
    assert stale_builds(tmp_path) == [str(Path(tmp_path.name) / "pkg" / "mod.py")]


def test_the_module_that_tells_which_build_runs_is_one_setup_compiles() -> None:
    assert build_info.PROBE in {module_name(source) for source in COMPILED}
