"""An access-log request line as one Struct. Apart from `access` and `logs`, which are compiled
(setup.py): mypyc does not compile a msgspec Struct's class body."""

from __future__ import annotations

from typing import Any

import msgspec


class RequestLine(msgspec.Struct, omit_defaults=True):
    """One request's line as `JsonFormatter` writes its record, field for field (`query` and
    `key_prefix` left out when None, as the record leaves them out)."""

    ts: str
    level: str
    logger: str
    message: str
    request_id: Any
    tier: str
    route: str
    method: str
    path: str
    status: int
    latency_ms: float
    bytes: int
    query: str | None = None
    key_prefix: Any = None
