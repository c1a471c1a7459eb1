"""Locks for the RefreshLock port that need no database: a file, or this process.

- `FileLock`: an exclusive `flock` on a file, taken without waiting. The kernel releases it
  when the holder closes the file or dies, so a killed refresh never leaves it held. (A lock
  file on one machine: the SQLite database it sits beside is on that machine too.)
- `ThreadLock`: within one process (an in-memory database, the tests' fakes).
"""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class FileLock:
    def __init__(self, path: Path) -> None:
        self.path = path

    @contextmanager
    def hold(self) -> Iterator[bool]:
        with self.path.open("a") as handle:  # "a": never truncates what another holds open
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


class ThreadLock:
    def __init__(self) -> None:
        self._lock = threading.Lock()

    @contextmanager
    def hold(self) -> Iterator[bool]:
        if not self._lock.acquire(blocking=False):
            yield False
            return
        try:
            yield True
        finally:
            self._lock.release()
