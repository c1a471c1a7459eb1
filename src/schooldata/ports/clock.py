"""Driven ports for time and identifiers: the core has no clock and no randomness of its own."""

from __future__ import annotations

import datetime as dt
from typing import Protocol


class Clock(Protocol):
    def now(self) -> dt.datetime:
        """The current instant, timezone-aware UTC."""
        ...

    def timestamp(self) -> float:
        """The current instant as epoch seconds: `now().timestamp()`, without building a
        datetime (the meter asks on every keyed request)."""
        ...


class IdSource(Protocol):
    def request_id(self) -> str:
        """A new request id: `req_` + 20 base62 characters."""
        ...

    def random_base62(self, *, length: int) -> str:
        """Cryptographically random base62 text."""
        ...
