"""`schooldata serve` in a subprocess, as an operator runs it: granian, its worker processes,
the settings from the environment. For the tests of what the whole server does (workers
killed and respawned, connections held open), which an app in a thread cannot show."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.reliability.support import KEY_SECRET, PYTHON, ROOT, load_fixture, sql_store
from tests.support.servers import free_port


def children_of(pid: int) -> set[int]:
    """The live processes whose parent is `pid` (from /proc; zombies left out)."""
    found: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if int(ppid) == pid and state != "Z":
            found.add(int(entry.name))
    return found


def listening_sockets(port: int) -> set[str]:
    """The inodes of the loopback TCP sockets listening on `port` (from /proc/net/tcp)."""
    found: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                local, state, inode = fields[1], fields[3], fields[9]
                if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:
                    found.add(inode)
    return found


def socket_inodes(pid: int) -> set[str]:
    found: set[str] = set()
    with contextlib.suppress(OSError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    found.add(target[8:-1])
    return found


class ServeProcess:
    """`python -m schooldata serve --port P [--workers N]` with its own environment (nothing
    of this process's `SCHOOLDATA_*` leaks in); output to `log_path`."""

    def __init__(
        self,
        env: Mapping[str, str],
        *,
        log_path: Path,
        workers: int = 2,
        extra: tuple[str, ...] = (),
    ) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("SCHOOLDATA_")}
        full_env.update(env)
        full_env["PYTHONUNBUFFERED"] = "1"
        self._log = log_path.open("wb")
        command = [PYTHON, "-m", "schooldata", "serve", "--port", str(self.port)]
        command += ["--workers", str(workers), *extra]
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=full_env, stdout=self._log, stderr=subprocess.STDOUT
        )
        self.worker_count = workers

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def workers(self) -> set[int]:
        return children_of(self.pid)

    def wait_ready(self, timeout: float = 90) -> None:
        """Until `/health` answers and every worker process is up."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.alive():
                raise RuntimeError(f"serve exited: {self.output()[-3000:]}")
            with contextlib.suppress(httpx.HTTPError):
                healthy = httpx.get(f"{self.base}/health", timeout=1).status_code == 200
                if healthy and len(self.workers()) == self.worker_count:
                    return
            time.sleep(0.1)
        raise RuntimeError(f"serve did not start: {self.output()[-3000:]}")

    def is_listening(self, worker: int) -> bool:
        """Whether `worker` holds a socket listening on the server's port (each granian worker
        listens on a socket of its own, SO_REUSEPORT)."""
        return bool(socket_inodes(worker) & listening_sockets(self.port))

    def wait_for_new_worker(self, known: set[int], timeout: float = 60) -> int:
        """The pid of a worker not in `known` (which holds any worker just killed: a killed
        process lingers a moment before it is gone), once there is one, it listens, and the
        server has its full count again."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.alive():
                raise RuntimeError(f"serve exited: {self.output()[-3000:]}")
            current = self.workers()
            fresh = current - known
            if len(fresh) == 1 and len(current) == self.worker_count:
                worker = fresh.pop()
                if self.is_listening(worker):
                    return worker
            time.sleep(0.05)
        raise RuntimeError(f"no worker was respawned: {self.output()[-3000:]}")

    def stop(self) -> None:
        if self.alive():
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                for worker in self.workers():
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(worker, signal.SIGKILL)
                self.process.kill()
                self.process.wait(timeout=5)
        self._log.close()

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextmanager
def serving(
    env: Mapping[str, str], directory: Path, *, workers: int = 2, extra: tuple[str, ...] = ()
) -> Iterator[ServeProcess]:
    server = ServeProcess(env, log_path=directory / "serve.log", workers=workers, extra=extra)
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


def fixture_environment(directory: Path, **settings: str) -> dict[str, str]:
    """The environment of a server over the shared fixture, loaded into a new SQLite database
    in `directory`, with `settings` (`SCHOOLDATA_` names) on top."""
    database = f"sqlite:///{directory / 'data.sqlite3'}"
    load_fixture(sql_store(database))
    return {
        "SCHOOLDATA_DATABASE_URL": database,
        "SCHOOLDATA_KEY_SECRET": KEY_SECRET,
        "SCHOOLDATA_HOME": str(directory / "home"),
        **settings,
    }
