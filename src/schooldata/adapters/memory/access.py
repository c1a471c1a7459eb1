"""In-memory key store and usage counters: one process only (and the tests' fakes).

The rate windows here are the right choice for a single server process; several processes
or machines need the Redis limiter, and durable quotas need the SQL counter.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import defaultdict

import attrs
from mypy_extensions import mypyc_attr

from schooldata.domain.keys import ApiKeyRecord, Organisation
from schooldata.ports.keys import KeyLookup


@mypyc_attr(allow_interpreted_subclasses=True)
class InMemoryKeyStore:
    def __init__(self) -> None:
        self._keys: dict[str, ApiKeyRecord] = {}
        self._organisations: dict[str, Organisation] = {}
        self._lock = threading.Lock()

    @property
    def is_local(self) -> bool:
        return True

    def find_key(self, *, key_hash: str) -> ApiKeyRecord | None:
        return self._keys.get(key_hash)

    def find_key_with_organisation(self, *, key_hash: str) -> KeyLookup | None:
        # Through the two single lookups, so a subclass that overrides one (the tests' broken
        # or counting stores) is honoured here as well.
        record = self.find_key(key_hash=key_hash)
        if record is None:
            return None
        return KeyLookup(record, self.get_organisation(slug=record.organisation))

    def add_key(self, *, record: ApiKeyRecord) -> None:
        with self._lock:
            self._keys[record.key_hash] = record

    def list_keys(self, *, organisation: str | None = None) -> list[ApiKeyRecord]:
        keys = [k for k in self._keys.values() if organisation in (None, k.organisation)]
        return sorted(keys, key=lambda k: (k.organisation, k.created_at, k.display_prefix))

    def revoke_key(self, *, display_prefix: str, at: dt.datetime) -> int:
        with self._lock:
            live = [
                k
                for k in self._keys.values()
                if k.display_prefix == display_prefix and not k.revoked
            ]
            for record in live:
                self._keys[record.key_hash] = attrs.evolve(record, revoked_at=at)
            return len(live)

    def get_organisation(self, *, slug: str) -> Organisation | None:
        return self._organisations.get(slug)

    def save_organisation(self, *, organisation: Organisation) -> None:
        with self._lock:
            self._organisations[organisation.slug] = organisation

    def list_organisations(self) -> list[Organisation]:
        return sorted(self._organisations.values(), key=lambda o: o.slug)


@mypyc_attr(allow_interpreted_subclasses=True)
class InMemoryRateLimiter:
    """Counts per (key, second); forgets windows older than the current one."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, int], int] = defaultdict(int)
        self._lock = threading.Lock()
        self._newest = 0

    @property
    def is_local(self) -> bool:
        return True

    def hit(self, *, key: str, window: int) -> int:
        with self._lock:
            if window > self._newest:
                self._newest = window
                stale = [k for k in self._counts if k[1] < window - 1]
                for k in stale:
                    del self._counts[k]
            slot = (key, window)
            count = self._counts[slot] + 1
            self._counts[slot] = count
        return count

    def peek(self, *, key: str, window: int) -> int:
        return self._counts.get((key, window), 0)

    def undo(self, *, key: str, window: int) -> None:
        with self._lock:
            if self._counts.get((key, window), 0) > 0:
                self._counts[(key, window)] -= 1


@mypyc_attr(allow_interpreted_subclasses=True)
class InMemoryQuotaCounter:
    def __init__(self) -> None:
        self._used: dict[tuple[str, str], int] = defaultdict(int)
        self._lock = threading.Lock()

    @property
    def is_local(self) -> bool:
        return True

    def consume(self, *, organisation: str, period: str, limit: int) -> int | None:
        with self._lock:
            current = self._used[(organisation, period)]
            if current >= limit:
                return None
            self._used[(organisation, period)] = current + 1
            return current + 1

    def consume_nowait(self, *, organisation: str, period: str, limit: int) -> int | None:
        return self.consume(organisation=organisation, period=period, limit=limit)

    def used(self, *, organisation: str, period: str) -> int:
        return self._used.get((organisation, period), 0)

    def give_back(self) -> None:
        """Nothing reserved ahead: nothing to give back."""
