"""What the twin tests (a fast road against the framework's road) share: what they leave out
of a comparison, how an answer is seen, and how one twin is sent down the framework's road."""

from __future__ import annotations

import json
from typing import Any

import httpx

from schooldata.entrypoints.rest.dispatch import RegistryGets

# Ids, clocks, and the rate window's count (the two roads' calls may fall in different
# one-second windows).
PER_REQUEST_HEADERS = frozenset(
    {
        "x-request-id",
        "x-ratelimit-reset",
        "x-ratelimit-remaining",
        "x-quota-reset",
        "content-length",
    }
)
LITESTAR_ROAD = "x-test-road"  # a request carrying this header skips the dispatcher


def seen(response: httpx.Response) -> tuple[int, dict[str, str], Any]:
    """Status, headers and body (JSON where it parses), the request id made anonymous."""
    headers = {k: v for k, v in response.headers.items() if k not in PER_REQUEST_HEADERS}
    text = response.text.replace(response.headers.get("x-request-id", "-"), "req_ID")
    try:
        return response.status_code, headers, json.loads(text)
    except ValueError:
        return response.status_code, headers, text


def dispatching_unless_told() -> Any:
    """`RegistryGets.__call__` for a test to patch in: as it is, but a request that carries
    `LITESTAR_ROAD` goes straight on to Litestar."""
    call = RegistryGets.__call__

    async def unless_told(self: RegistryGets, scope: Any, receive: Any, send: Any) -> None:
        if any(name == LITESTAR_ROAD.encode() for name, _ in scope.get("headers", ())):
            await self._app(scope, receive, send)
        else:
            await call(self, scope, receive, send)

    return unless_told
