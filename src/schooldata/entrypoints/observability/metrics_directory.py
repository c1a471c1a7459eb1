"""The directory the worker processes of one `schooldata serve` write their metrics to.

prometheus_client counts in files when `PROMETHEUS_MULTIPROC_DIR` names a directory as it is
first imported; a scrape of any worker then adds up every worker's files (`metrics`). `serve`
makes one such directory per server and puts it in the environment its workers start with:

- `home/metrics/serve-<pid>` (the pid of the `serve` process), emptied if it exists, removed
  when the server stops; directories left by servers that died without stopping are removed
  when another server starts in the same home. Two servers sharing a home never share one;
- or the operator's own `PROMETHEUS_MULTIPROC_DIR` when it is set: its `*.db` files are
  removed at start (prometheus_client's rule: a new server starts from zero), the directory
  itself is kept.

No prometheus_client import here: the variable must be set before anything imports it.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from attrs import frozen

DIRECTORY_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
_SERVER_DIRECTORY = re.compile(r"^serve-(\d+)$")


@frozen
class MetricsDirectory:
    path: Path
    owned: bool  # made by this server for itself: removed when it stops

    def remove(self) -> None:
        if self.owned:
            shutil.rmtree(self.path, ignore_errors=True)


def prepare_metrics_directory(home: Path, *, configured: str | None) -> MetricsDirectory:
    """The empty directory this server's workers will count in (see the module docstring)."""
    if configured:
        path = Path(configured)
        path.mkdir(parents=True, exist_ok=True)
        for stale in path.glob("*.db"):
            stale.unlink(missing_ok=True)
        return MetricsDirectory(path, owned=False)
    root = home / "metrics"
    root.mkdir(parents=True, exist_ok=True)
    for entry in root.iterdir():
        found = _SERVER_DIRECTORY.match(entry.name)
        if found is not None and entry.is_dir() and not alive(int(found[1])):
            shutil.rmtree(entry, ignore_errors=True)
    path = root / f"serve-{os.getpid()}"
    shutil.rmtree(path, ignore_errors=True)  # (a pid reused from a server that died)
    path.mkdir()
    return MetricsDirectory(path, owned=True)


def alive(pid: int) -> bool:
    """Whether a process with this pid exists (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process has that pid
        return True
    return True
