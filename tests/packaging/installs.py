"""Installing the package as Python users do, for the packaging tests: a clean copy of the
checkout (what git tracks, as a clone has it), fresh virtual environments, plain pip."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Generous: a compiled build type-checks and compiles ~60 modules (minutes on 2 cores).
BUILD_SECONDS = 1500
INSTALL_SECONDS = 900


def clean_copy(into: Path) -> Path:
    """The files a fresh clone has (tracked, plus new ones not ignored): never a build, a
    venv or a compiled module left in this checkout."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in listed)):
        source = ROOT / name
        if source.is_file():
            target = into / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return into


def environment(**changes: str | None) -> dict[str, str]:
    """This process's environment without what would steer a build (a compile switch or a
    data home set for the test run), with `changes` applied (None removes)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("SCHOOLDATA_COMPILE", "VIRTUAL_ENV", "PYTHONPATH")
    }
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def run(
    command: list[str], *, env: dict[str, str], cwd: Path | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        command, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, (
        f"{' '.join(command)} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done


def build(checkout: Path, out: Path, *, env: dict[str, str]) -> tuple[Path, Path]:
    """`python -m build`: the sdist, then the wheel built from it (each in isolation). What
    the build said is kept beside them (`build_log`)."""
    done = run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(checkout)],
        env=env,
        timeout=BUILD_SECONDS,
    )
    (out / "build.log").write_text(done.stdout + done.stderr, "utf-8")
    (sdist,) = out.glob("schooldata-*.tar.gz")
    (wheel,) = out.glob("schooldata-*.whl")
    return sdist, wheel


def build_log(dist: Path) -> str:
    """The build's own lines ("schooldata build: ...") and the errors that led to them."""
    lines = (dist.parent / "build.log").read_text("utf-8").splitlines()
    return "\n".join(line for line in lines if "schooldata build" in line or "error:" in line)


def fresh_venv(path: Path) -> Path:
    """A new virtual environment with pip; returns its bin directory."""
    venv.EnvBuilder(with_pip=True, clear=True).create(path)
    return path / "bin"


def pip_install(bin_dir: Path, *what: str, env: dict[str, str]) -> str:
    """Plain `pip install` (no lock, no hashes); its output, where the build's lines are."""
    done = run(
        [str(bin_dir / "python"), "-m", "pip", "install", "-v", *what],
        env=env,
        timeout=INSTALL_SECONDS,
    )
    return done.stdout + done.stderr


def sdist_members(sdist: Path) -> set[str]:
    with tarfile.open(sdist) as archive:
        return {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}


def path_without_a_compiler(bin_dir: Path) -> str:
    """A PATH holding only the venv's own commands: no cc, gcc or clang to find."""
    return str(bin_dir)
