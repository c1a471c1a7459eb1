"""Driven ports for the commercial tier: keys, organisations and usage counters."""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from schooldata.domain.keys import ApiKeyRecord, Organisation


class KeyStore(Protocol):
    def find_key(self, *, key_hash: str) -> ApiKeyRecord | None: ...

    def add_key(self, *, record: ApiKeyRecord) -> None: ...

    def list_keys(self, *, organisation: str | None = None) -> list[ApiKeyRecord]: ...

    def revoke_key(self, *, display_prefix: str, at: dt.datetime) -> int:
        """Revoke every live key with this display prefix; returns how many were revoked."""
        ...

    def get_organisation(self, *, slug: str) -> Organisation | None: ...

    def save_organisation(self, *, organisation: Organisation) -> None: ...


class RateLimiter(Protocol):
    def hit(self, *, key: str, window: int) -> int:
        """Atomically count one request of `key` in the one-second `window`; return the count."""
        ...

    def peek(self, *, key: str, window: int) -> int: ...


class QuotaCounter(Protocol):
    def consume(self, *, organisation: str, period: str, limit: int) -> int | None:
        """Atomically add one use if the count is below `limit`; return the new count, or None
        (nothing consumed) when the quota is already used up. Durable."""
        ...

    def used(self, *, organisation: str, period: str) -> int: ...
