"""What a route answers: a whole HTTP answer, and what the edge records of it.

A route returns an `Answer` rather than telling other layers through the ASGI scope: the
edge sends it (adding validators, content coding, CORS and the request id) and logs its
tier, route and caller from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

PUBLIC: Final = "public"
COMMERCIAL: Final = "commercial"
Headers = list[tuple[bytes, bytes]]


class Answer:
    """`headers` as sent, encoded; `late`: headers the edge sends after its own (a keyed
    OPTIONS answer's meter readings); `tier`: whose answer it is (the access log, metrics; None: as the request's credentials
    and route say);
    `key_prefix`: the caller's key as shown in the access log; `route`: its route label."""

    __slots__ = ("body", "headers", "key_prefix", "late", "route", "status", "tier")

    def __init__(
        self,
        status: int,
        body: bytes,
        headers: Headers,
        *,
        tier: str | None = None,
        key_prefix: str | None = None,
        route: str | None = None,
        late: Headers | None = None,
    ) -> None:
        self.status = status
        self.body = body
        self.headers = headers
        self.tier = tier
        self.key_prefix = key_prefix
        self.route = route
        self.late = late


_NAMES: dict[str, bytes] = {}  # the app's own header names (constants), lowered and encoded
MAX_NAMES = 64


def encoded(headers: Mapping[str, str]) -> Headers:
    """Headers named as the code names them, encoded as ASGI sends them."""
    return [(_name(k), v.encode("latin-1")) for k, v in headers.items()]


def _name(name: str) -> bytes:
    lowered = _NAMES.get(name)
    if lowered is None:
        lowered = name.lower().encode("latin-1")
        if len(_NAMES) < MAX_NAMES:
            _NAMES[name] = lowered
    return lowered
