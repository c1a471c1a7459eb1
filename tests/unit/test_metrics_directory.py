"""The directory the workers of one server count their metrics in: one per server, empty at
start, gone when it stops; what a server that died left behind is cleared by the next."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from schooldata.entrypoints.observability.metrics_directory import (
    alive,
    prepare_metrics_directory,
)


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_each_server_counts_in_a_directory_of_its_own_removed_when_it_stops(
    tmp_path: Path,
) -> None:
    directory = prepare_metrics_directory(tmp_path, configured=None)
    assert directory.path == tmp_path / "metrics" / f"serve-{os.getpid()}"
    assert directory.path.is_dir() and not any(directory.path.iterdir())
    (directory.path / "counter_123.db").write_bytes(b"x")
    directory.remove()
    assert not directory.path.exists()


def test_a_server_starts_from_zero_and_clears_what_dead_servers_left(tmp_path: Path) -> None:
    gone = tmp_path / "metrics" / f"serve-{dead_pid()}"
    running = tmp_path / "metrics" / f"serve-{os.getppid()}"  # a live process: kept
    own = tmp_path / "metrics" / f"serve-{os.getpid()}"  # a reused pid: emptied
    for leftover in (gone, running, own):
        leftover.mkdir(parents=True)
        (leftover / "counter_1.db").write_bytes(b"x")
    directory = prepare_metrics_directory(tmp_path, configured=None)
    assert not gone.exists()
    assert (running / "counter_1.db").exists()
    assert directory.path == own and not any(own.iterdir())


def test_the_operator_s_own_directory_is_emptied_of_metrics_and_kept(tmp_path: Path) -> None:
    configured = tmp_path / "prometheus"
    configured.mkdir()
    (configured / "counter_9.db").write_bytes(b"x")
    (configured / "README").write_text("not ours")
    directory = prepare_metrics_directory(tmp_path / "home", configured=str(configured))
    assert directory.path == configured
    assert sorted(p.name for p in configured.iterdir()) == ["README"]
    directory.remove()
    assert (configured / "README").exists(), "never removed: the operator's"


def test_a_pid_is_alive_while_its_process_runs() -> None:
    assert alive(os.getpid())
    assert not alive(dead_pid())
