"""Per-second rate windows shared by every worker process of one machine, without Redis.

`schooldata serve --workers N` runs N processes; windows kept in each process's memory would
let every key make N times its plan's rate. Here the windows live in a small file that every
worker maps into memory: a fixed table of slots (64 bits of the key's identity, its window,
its count), found by open addressing from the identity. A hit holds the file's lock (`flock`:
exclusive between processes; a thread lock as well, since threads of one process share one
open file and `flock` does not exclude them) for a few table reads and one write, so the
count is exact across the machine's processes at the cost of two system calls.

Several machines still need Redis (docs/deploy.md): the file is this machine's alone.
"""

from __future__ import annotations

import fcntl
import hashlib
import mmap
import os
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

SLOT: Final = struct.Struct("<QqQ")  # identity (never 0), window (epoch second), count
SLOTS: Final = 8192  # 192 KiB: room for far more keys than are active in any two seconds
PROBES: Final = 16
MAX_REMEMBERED: Final = 4096


class MachineRateLimiter:
    """A `RateLimiter` (with `undo`) over a file mapped by every process of this machine."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()  # this process's threads; `flock` does the processes
        self._identities: dict[str, int] = {}
        self._pid = -1
        self._fd = -1
        self._map: mmap.mmap | None = None

    @property
    def is_local(self) -> bool:
        """A file on this machine: no network round trip (see Meter.can_admit_without_waiting)."""
        return True

    def health(self) -> dict[str, str]:
        """For /ready: the table is mapped and readable."""
        with self._lock:
            self._mapped()
        return {"rate_limiter": "machine"}

    def hit(self, *, key: str, window: int) -> int:
        identity = self._identity(key)
        with self._table(fcntl.LOCK_EX) as table:
            at, (found, slot_window, count) = self._slot(table, identity, window)
            count = count + 1 if found == identity and slot_window == window else 1
            SLOT.pack_into(table, at, identity, window, count)
            return count

    def peek(self, *, key: str, window: int) -> int:
        identity = self._identity(key)
        with self._table(fcntl.LOCK_SH) as table:
            _, (found, slot_window, count) = self._slot(table, identity, window)
        return count if found == identity and slot_window == window else 0

    def undo(self, *, key: str, window: int) -> None:
        identity = self._identity(key)
        with self._table(fcntl.LOCK_EX) as table:
            at, (found, slot_window, count) = self._slot(table, identity, window)
            if found == identity and slot_window == window and count > 0:
                SLOT.pack_into(table, at, identity, window, count - 1)

    @contextmanager
    def _table(self, lock: int) -> Iterator[mmap.mmap]:
        """The mapped table, held under this process's thread lock and the file's `lock`
        (shared for reading, exclusive for writing) until the block ends."""
        with self._lock:
            table = self._mapped()
            fcntl.flock(self._fd, lock)
            try:
                yield table
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    # ------------------------------------------------------------------------ the table

    @staticmethod
    def _slot(table: mmap.mmap, identity: int, window: int) -> tuple[int, tuple[int, int, int]]:
        """(offset, contents) of `identity`'s slot: where it stands among its probes, else
        the first free or stale one (a window older than the previous second), else the one
        with the oldest window (the table is full of live keys: the oldest gives way)."""
        start = identity % SLOTS
        chosen: tuple[int, tuple[int, int, int]] | None = None
        oldest: tuple[int, tuple[int, int, int]] | None = None
        for probe in range(PROBES):
            at = ((start + probe) % SLOTS) * SLOT.size
            contents: tuple[int, int, int] = SLOT.unpack_from(table, at)
            if contents[0] == identity:
                return at, contents
            if chosen is None and (contents[0] == 0 or contents[1] < window - 1):
                chosen = (at, contents)
            if oldest is None or contents[1] < oldest[1][1]:
                oldest = (at, contents)
        if chosen is not None:
            return chosen
        assert oldest is not None  # PROBES > 0
        return oldest

    def _identity(self, key: str) -> int:
        """64 bits of BLAKE2b of the key's id (never 0: 0 marks a free slot), remembered."""
        identity = self._identities.get(key)
        if identity is None:
            digest = hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest()
            identity = int.from_bytes(digest, "little") or 1
            if len(self._identities) >= MAX_REMEMBERED:
                self._identities.clear()
            self._identities[key] = identity
        return identity

    def _mapped(self) -> mmap.mmap:
        """The table, mapped by this process (a forked child opens the file anew: `flock`
        belongs to the open file, which a fork would share with the parent)."""
        if self._map is None or self._pid != os.getpid():
            self._path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o600)
            size = SLOTS * SLOT.size
            if os.fstat(fd).st_size < size:
                os.ftruncate(fd, size)  # zeros: every slot free
            self._map, self._fd, self._pid = mmap.mmap(fd, size), fd, os.getpid()
        return self._map
