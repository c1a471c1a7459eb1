"""One process's quota uses on SQLite, reserved from the store in blocks, handed out in memory.

One committed statement reserves the next n counts of the organisation's month for this
process, which then hands them out one per request without a statement. The stored count is
never behind the uses answered, the limit is never exceeded, and no count is given twice,
across any number of processes; the stored count runs ahead of the answered uses by the
unreserved rest of each process's current block (a block covers ~0.1 s of that
organisation's requests, at most MAX_BLOCK uses, one use at low rates and near the limit),
returned when the process shuts down cleanly.

Apart from the SQL counter (`quota_counter.py`) because it knows no database: the store's
statements reach it as two callables, so the block sizing and its locking read on their own.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Final

from mypy_extensions import mypyc_attr

from schooldata.adapters.sql.sqlite_changes import fork_generation
from schooldata.ports.keys import WouldBlock

MAX_BLOCK: Final = 128
BLOCK_SECONDS: Final = 0.1  # a block lasting less than this doubles the next; over 10x, halves
NEAR_LIMIT: Final = 128  # within this many uses of the limit, one use per statement


class _Lease:
    """Counts `next`..`end` of one organisation's month, reserved in the store for this
    process and handed out in order."""

    __slots__ = ("end", "next", "size", "stored", "taken_at")

    def __init__(self) -> None:
        self.next, self.end, self.size, self.stored, self.taken_at = 1, 0, 1, 0, 0.0


# Not a compiled (native) class: the quota counter gives its leases back at exit through a
# weak reference to it.
@mypyc_attr(native_class=False)
class QuotaLeases:
    """One process's reserved quota counts on SQLite (see the module docstring).

    A use is handed out from the current block under a lock held for a few operations; an
    exhausted block reserves the next with one statement (`reserve(size, ceiling)` -> the
    stored count after it, or None when that many do not fit under the ceiling), one
    reservation at a time. A fork
    starts with no blocks: a child must never hand out its parent's counts."""

    def __init__(
        self,
        reserve: Callable[[str, str, int, int, bool], int | None],
        give_back: Callable[[str, str, int, int], None],
    ) -> None:
        self._reserve = reserve
        self._give_back = give_back
        self._leases: dict[tuple[str, str], _Lease] = {}
        self._lock = threading.Lock()  # the blocks, for a few operations at a time
        self._reserving = threading.Lock()  # one reservation (a database write) at a time
        self._forks = fork_generation()

    def consume(self, organisation: str, period: str, limit: int, *, wait: bool) -> int | None:
        if self._forks != fork_generation():
            self._forget_inherited()
        key = (organisation, period)
        with self._lock:
            lease = self._leases.get(key)
            if lease is not None and lease.next <= lease.end and lease.next <= limit:
                count = lease.next
                lease.next += 1
                return count
        if not self._reserving.acquire(blocking=wait):
            raise WouldBlock()
        try:
            with self._lock:  # another thread may have reserved while this one waited
                lease = self._leases.setdefault(key, _Lease())
                if lease.next <= lease.end and lease.next <= limit:
                    count = lease.next
                    lease.next += 1
                    return count
            return self._take_block(key, lease, limit, wait=wait)
        finally:
            self._reserving.release()

    def _take_block(
        self, key: tuple[str, str], lease: _Lease, limit: int, *, wait: bool
    ) -> int | None:
        now = time.monotonic()
        if lease.end:  # an earlier block: size the next by how long that one lasted
            lasted = now - lease.taken_at
            if lasted < BLOCK_SECONDS:
                lease.size = min(MAX_BLOCK, lease.size * 2)
            elif lasted > 10 * BLOCK_SECONDS:
                lease.size = max(1, lease.size // 2)
        # A block of more than one use never reaches into the last NEAR_LIMIT of the quota
        # (the statement checks it against the stored count, however stale this process's
        # view): there every use is its own statement, exact across processes.
        size = min(lease.size, limit - NEAR_LIMIT - lease.stored)
        stored = self._reserve(*key, size, limit - NEAR_LIMIT, wait) if size > 1 else None
        if stored is None:
            size = 1
            stored = self._reserve(*key, size, limit, wait)
        if stored is None:
            return None
        with self._lock:
            lease.next, lease.end, lease.stored, lease.taken_at = (
                stored - size + 2,
                stored,
                stored,
                now,
            )
            return stored - size + 1

    def unused(self, organisation: str, period: str) -> int:
        """Counts reserved by this process and not yet handed out."""
        with self._lock:
            lease = self._leases.get((organisation, period))
            if lease is None or self._forks != fork_generation():
                return 0
            return max(0, lease.end - lease.next + 1)

    def give_back(self) -> None:
        """Return every block's unused counts (each only if no block was reserved after it)."""
        if self._forks != fork_generation():
            return
        with self._lock:
            leases, self._leases = self._leases, {}
        for (organisation, period), lease in leases.items():
            if lease.next <= lease.end:
                self._give_back(organisation, period, lease.end - lease.next + 1, lease.end)

    def _forget_inherited(self) -> None:
        with self._lock:
            self._leases = {}
            self._forks = fork_generation()
        self._reserving = threading.Lock()  # a lock held at the fork stays held in the child
