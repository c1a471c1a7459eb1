"""The served hot path runs compiled (mypyc, setup.py) unless the build was asked not to be."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.support.compiled import compiled_sources, module_name, stale_builds

COMPILED = compiled_sources()


def test_setup_lists_existing_modules_once() -> None:
    assert len(set(COMPILED)) == len(COMPILED)
    assert all(Path(__file__).resolve().parents[2].joinpath(path).is_file() for path in COMPILED)


@pytest.mark.skipif(
    os.environ.get("SCHOOLDATA_COMPILE") == "0", reason="built without compiling (asked for)"
)
@pytest.mark.parametrize("source", COMPILED)
def test_each_listed_module_is_imported_compiled(source: str) -> None:
    module = importlib.import_module(module_name(source))
    assert str(module.__file__).endswith(".so"), f"{source} runs interpreted: run make install"


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


@pytest.mark.skipif(
    os.environ.get("SCHOOLDATA_COMPILE") == "0", reason="built without compiling (asked for)"
)
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="setup.py binds locally on Linux")
def test_the_compiled_library_calls_its_own_functions_without_the_plt() -> None:
    """setup.py links the compiled modules with -Bsymbolic-functions: no PLT slot (a
    `JUMP_SLOT` relocation) names one of the library's own functions (mypyc's `CPy...`)."""
    readelf = shutil.which("readelf")
    assert readelf is not None, (
        "binutils' readelf is needed (gcc, which builds the project, has it)"
    )
    source = Path(__file__).resolve().parents[2] / "src"
    (library,) = source.glob("*__mypyc*.so")
    relocations = subprocess.run(
        [readelf, "--relocs", "--wide", str(library)], capture_output=True, text=True, check=True
    ).stdout
    slots = [line.split()[-3] for line in relocations.splitlines() if "JUMP_SLOT" in line]
    assert slots, "no PLT slots at all: readelf's output is not what this test reads"
    own = [name for name in slots if name.startswith("CPy")]
    assert own == [], f"{len(own)} of the library's own functions called through the PLT: {own[:3]}"
