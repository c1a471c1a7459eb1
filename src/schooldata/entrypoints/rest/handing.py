"""A mounted ASGI endpoint (MCP) run as Litestar runs it. Apart from `dispatch`, which is
compiled (setup.py), so that a test can watch the mounted road by replacing `handed`."""

from __future__ import annotations

from typing import Any

from litestar import Request

from schooldata.entrypoints.rest.errors import unexpected_response
from schooldata.entrypoints.rest.transport import ASGIApp, Receive, Scope, Send


async def handed(endpoint: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
    """As Litestar's `@asgi(copy_scope=True)` route runs it: on a copy of the scope, and an
    error before the answer started answered as Litestar's exception handler would."""
    started = False

    async def watched(message: Any) -> None:
        nonlocal started
        started = True
        await send(message)

    try:
        await endpoint(dict(scope), receive, watched)
    except Exception as error:
        if started:
            raise
        request: Request[Any, Any, Any] = Request(scope, receive)  # type: ignore[arg-type]
        response = unexpected_response(request, error).to_asgi_response(None, request)
        await response(scope, receive, send)  # type: ignore[arg-type]
