"""Processes the bench starts: servers on loopback ports, stopped by their own ids."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT_PYTHON = ROOT / ".venv" / "bin" / "python"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """One server process (in its own session, so it and its workers stop together)."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        *,
        port: int,
        env: Mapping[str, str] | None = None,
        ready_path: str = "/",
        log_dir: Path,
    ) -> None:
        self.name = name
        self.port = port
        self.ready_path = ready_path
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"{name}.log"
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            list(argv),
            env={**os.environ, **(env or {})},
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            cwd=ROOT,
        )

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_ready(self, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited early; see {self.log_path}:\n{self.tail()}")
            try:
                with urllib.request.urlopen(self.base + self.ready_path, timeout=5) as response:
                    response.read()
                    return
            except urllib.error.HTTPError:
                return  # it answers
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"{self.name} not ready after {timeout:.0f}s; see {self.log_path}")

    def tail(self, lines: int = 20) -> str:
        text = self.log_path.read_text(errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def pids(self) -> list[int]:
        """The server and its descendants (server workers)."""
        children: dict[int, list[int]] = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text()
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry.name))
        found, todo = [], [self.proc.pid]
        while todo:
            pid = todo.pop()
            found.append(pid)
            todo.extend(children.get(pid, []))
        return found

    def memory_mb(self) -> dict[str, float]:
        """Resident set now and at its peak (VmHWM), per process, in MB."""
        result: dict[str, float] = {}
        for pid in self.pids():
            with contextlib.suppress(OSError):
                fields = dict(
                    line.split(":", 1)
                    for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                    if ":" in line
                )
                rss = int(fields["VmRSS"].split()[0]) / 1024
                hwm = int(fields["VmHWM"].split()[0]) / 1024
                result[f"{pid}"] = round(max(rss, hwm), 1)
        return result

    def stop(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
        self._log.close()


def run(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    timeout: float = 1800,
    stdin: str | None = None,
) -> str:
    """Run a command to completion; its stdout, or an error with its output."""
    done = subprocess.run(
        list(argv),
        env={**os.environ, **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"{' '.join(map(str, argv))} failed ({done.returncode}):\n{done.stderr[-3000:]}"
        )
    return done.stdout
