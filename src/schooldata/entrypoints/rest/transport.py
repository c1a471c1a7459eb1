"""The outermost ASGI layer: what every response needs, whatever route (or none) answers.

- Every response carries `X-Request-Id` (`req_` + 20 base62), also on 404s for unknown routes
  and on MCP responses, because it wraps the whole app rather than the routed handlers.
- A key in the query string is refused (400 `api_key_in_query`) before anything else runs,
  on every route, public included; such a request's URL is never logged unredacted.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl

# Plain ASGI types: this layer sits outside Litestar and wraps any ASGI app.
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

REQUEST_ID_KEY = "schooldata.request_id"
QUERY_KEY_NAMES = frozenset({"api_key", "apikey", "key", "access_token", "token"})
QUERY_KEY_REJECTED = "schooldata.query_key_rejected"


def carries_key_in_query(query_string: bytes) -> bool:
    try:
        pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    except ValueError:
        return False
    return any(name.strip().lower() in QUERY_KEY_NAMES for name, _ in pairs)


def has_credentials(scope: Scope) -> bool:
    for name, _ in scope.get("headers", ()):
        if name.lower() in (b"authorization", b"x-api-key"):
            return True
    return False


class TransportLayer:
    def __init__(
        self,
        app: ASGIApp,
        *,
        new_request_id: Callable[[], str],
        is_public_route: Callable[[str], bool],
    ) -> None:
        self._app = app
        self._new_request_id = new_request_id
        self._is_public_route = is_public_route

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        request_id = self._new_request_id()
        scope[REQUEST_ID_KEY] = request_id
        header = (b"x-request-id", request_id.encode())

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0].lower() != b"x-request-id"]
                message["headers"] = [*headers, header]
            await send(message)

        if carries_key_in_query(scope.get("query_string", b"")):
            scope[QUERY_KEY_REJECTED] = True
            await self._reject_query_key(scope, send_with_id, request_id)
            return
        await self._app(scope, receive, send_with_id)

    async def _reject_query_key(self, scope: Scope, send: Send, request_id: str) -> None:
        message = (
            "API keys must not be sent in the query string; send "
            "'Authorization: Bearer <key>' instead. Treat the key as exposed and revoke it."
        )
        body: dict[str, Any]
        if self._is_public_route(scope["path"]) and not has_credentials(scope):
            body = {"error": message, "code": "api_key_in_query"}
        else:
            body = {
                "error": {
                    "code": "api_key_in_query",
                    "message": message,
                    "request_id": request_id,
                    "details": {},
                }
            }
        payload = json.dumps(body).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 400,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(payload)).encode()),
                    (b"cache-control", b"no-store"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})
