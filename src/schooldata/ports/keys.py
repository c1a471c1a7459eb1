"""Driven ports for the commercial tier: keys, organisations and usage counters."""

from __future__ import annotations

import datetime as dt
from typing import NamedTuple, Protocol

from schooldata.domain.keys import ApiKeyRecord, Organisation


class KeyLookup(NamedTuple):
    """A key and its organisation as they stand now (None: the organisation is gone)."""

    record: ApiKeyRecord
    organisation: Organisation | None


class KeyStore(Protocol):
    @property
    def is_local(self) -> bool:
        """Whether a lookup answers without a network round trip (memory, a local file), so
        it may run on an event loop."""
        ...

    def find_key(self, *, key_hash: str) -> ApiKeyRecord | None: ...

    def find_key_with_organisation(self, *, key_hash: str) -> KeyLookup | None:
        """The key and its organisation in one lookup (None: no such key) as they stand now: a
        revocation or plan change applies to the very next request. A store may remember
        answers only while it can tell that nothing has changed since (and then gives back the
        very same object, which callers may rely on to keep what they built from it). Stores
        may do it in one statement; this default (inherited by explicit subclasses) does the
        two lookups."""
        record = self.find_key(key_hash=key_hash)
        if record is None:
            return None
        return KeyLookup(record, self.get_organisation(slug=record.organisation))

    def add_key(self, *, record: ApiKeyRecord) -> None: ...

    def list_keys(self, *, organisation: str | None = None) -> list[ApiKeyRecord]: ...

    def revoke_key(self, *, display_prefix: str, at: dt.datetime) -> int:
        """Revoke every live key with this display prefix; returns how many were revoked."""
        ...

    def get_organisation(self, *, slug: str) -> Organisation | None: ...

    def save_organisation(self, *, organisation: Organisation) -> None: ...

    def list_organisations(self) -> list[Organisation]: ...


class RateLimiter(Protocol):
    @property
    def is_local(self) -> bool:
        """Whether it answers without a network round trip, so it may run on an event loop."""
        ...

    def hit(self, *, key: str, window: int) -> int:
        """Atomically count one request of `key` in the one-second `window`; return the count."""
        ...

    def peek(self, *, key: str, window: int) -> int: ...

    def undo(self, *, key: str, window: int) -> None:
        """Take back one hit of `key` in `window` whose request did not go ahead."""
        ...


class QuotaCounter(Protocol):
    @property
    def is_local(self) -> bool:
        """Whether it answers without a network round trip, so it may run on an event loop."""
        ...

    def consume(self, *, organisation: str, period: str, limit: int) -> int | None:
        """Atomically add one use if the count is below `limit`; return the new count, or None
        (nothing consumed) when the quota is already used up. Durable: the stored count is
        never behind the uses answered, never over `limit`, and no count is returned twice, in
        any number of processes. A store may reserve uses ahead in blocks (the stored count
        then runs ahead of the answered uses by the unreserved rest of a block)."""
        ...

    def consume_nowait(self, *, organisation: str, period: str, limit: int) -> int | None:
        """As `consume`, or WouldBlock (and nothing consumed) when it would have to wait (a
        store that is not local always would)."""
        ...

    def used(self, *, organisation: str, period: str) -> int: ...

    def give_back(self) -> None:
        """Return the uses this process reserved ahead and did not answer, as it stops (a
        store that reserves none has nothing to do)."""
        ...


class WouldBlock(Exception):
    """The store could answer only by waiting (another writer holds it); nothing was done."""
