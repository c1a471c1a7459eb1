"""The SDK's Host/Origin check (DNS rebinding protection), remembered for the pairs it passed.

The SDK's check reads both headers through a Starlette `Request` on every call; its verdict
depends on the two values alone (and the fixed allow-lists), so a pair it passed once passes
again. Refusals are never remembered: each is the SDK's own answer, logged by it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import Response

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Pair = tuple[bytes | None, bytes | None]

MAX_REMEMBERED = 64  # distinct (Host, Origin) pairs: a server answers for a few names
MAX_VALUE_BYTES = 256  # longer values are checked every time, never kept


class HostGuard:
    def __init__(self, settings: TransportSecuritySettings) -> None:
        self._guard = TransportSecurityMiddleware(settings)
        self._passed: set[Pair] = set()

    async def refusal(self, scope: Scope, receive: Receive) -> Response | None:
        """None when the request may go on; else the SDK's refusal (421 or 403)."""
        pair = host_and_origin(scope)
        if pair is not None and pair in self._passed:
            return None
        refused = await self._guard.validate_request(Request(scope, receive), is_post=False)
        if refused is None and pair is not None and len(self._passed) < MAX_REMEMBERED:
            self._passed.add(pair)
        return refused


def host_and_origin(scope: Scope) -> Pair | None:
    """The first `Host` and `Origin` values, as the SDK reads them (None: one is too long to
    keep)."""
    host: bytes | None = None
    origin: bytes | None = None
    for name, value in scope.get("headers", ()):
        if host is None and name == b"host":
            host = bytes(value)
        elif origin is None and name == b"origin":
            origin = bytes(value)
    if (host is not None and len(host) > MAX_VALUE_BYTES) or (
        origin is not None and len(origin) > MAX_VALUE_BYTES
    ):
        return None
    return host, origin
