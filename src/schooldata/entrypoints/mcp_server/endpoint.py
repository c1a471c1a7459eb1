"""The ASGI wrapper around the SDK's stateless JSON transport: what the SDK does not know.

In order, for each HTTP request to `/mcp` (the HTTP edge has judged its `Host` already):
1. Origin (DNS rebinding), by the server's one allow-list of hosts (`guard`): a browser page
   of another site may not call this server (403).
2. Credentials -> the caller (bad credentials -> 401 with the commercial body, whatever the
   method or version: DECISIONS, Authentication 3 and 6).
3. What the request is (`routing`, decided once): POST only, a JSON Content-Type, its body,
   and its protocol era with the version and header rules that need the body (-32020,
   -32022).
4. Every tools/call the SDK's transport would dispatch is run by the call road (`call_road`),
   in every era; everything else goes to the SDK.
   On the way out: the six metering headers on every keyed response (the
   reading of the use a tools/call consumed, else the current reading), a -32022 answer's
   `supported` list completed with the handshake versions served on the same URL, and
   anything shaped like an API key cut to its display prefix, whoever wrote the answer (the
   SDK echoes a method and an id, this server a tool name, a version header...: one rule,
   `domain.errors.without_keys`, REST's, at the one way out).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Protocol

import anyio.to_thread
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp_types import UNSUPPORTED_PROTOCOL_VERSION

from schooldata.application.pipeline import Pipeline, Refused
from schooldata.domain.errors import without_keys_in
from schooldata.entrypoints.hosts import HostPolicy
from schooldata.entrypoints.http import early
from schooldata.entrypoints.http.request import read, request_id_in, request_of
from schooldata.entrypoints.http.route_table import RouteTable
from schooldata.entrypoints.mcp_server import routing, state
from schooldata.entrypoints.mcp_server.auth import (
    NO_STORE,
    authenticate,
    send_auth_failure,
)
from schooldata.entrypoints.mcp_server.call_road import ToolCallRoad
from schooldata.entrypoints.mcp_server.guard import OriginGuard
from schooldata.entrypoints.mcp_server.server import SUPPORTED_VERSIONS

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
JSON = (b"content-type", b"application/json")
ROUTES = RouteTable()  # reads a request no edge read before (an endpoint served bare)
_EDITED = (400, 413)  # statuses whose body may be edited (below)


class SessionSource(Protocol):
    """Where the running session manager is (None outside the lifespan)."""

    @property
    def manager(self) -> StreamableHTTPSessionManager | None: ...


class McpEndpoint:
    def __init__(
        self,
        pipeline: Pipeline,
        *,
        sessions: SessionSource,
        hosts: HostPolicy,
        base_url: str | None,
        max_body_bytes: int,
        road: ToolCallRoad,
    ) -> None:
        self._pipeline = pipeline
        self._road = road
        self._sessions = sessions
        self._guard = OriginGuard(hosts)
        self._base_url = base_url.rstrip("/") if base_url else None
        self._max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # pragma: no cover - Litestar routes only HTTP here
            return
        if (refusal := self._guard.refusal(scope)) is not None:
            status, code, message = refusal
            request_id = request_id_in(scope)
            _, headers, body = early.refusal(
                status, code, message, request_id=request_id, shape="mcp"
            )
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        http = request_of(scope) or read(scope, "", ROUTES)  # (read by the edge, if any)
        try:
            caller = await authenticate(self._pipeline, http)
        except Refused as refused:
            await send_auth_failure(scope, send, refused.error)
            return
        request = state.McpRequest(
            caller=caller, request_id=http.id, base_url=self._base_url or http.base_url()
        )
        # Every answer from here on, refusals included, goes out through the editor: a keyed
        # caller's answer carries the meter headers whoever wrote it.
        respond = _ResponseEditor(self._pipeline, request, send)
        checked = await routing.check(scope, receive, max_body_bytes=self._max_body_bytes)
        if checked.gone:
            return  # the client went away mid-body: no one to answer
        if (answer := checked.refusal) is not None:
            await _plain(respond, answer.status, answer.body, answer.headers)
            return
        manager = self._sessions.manager
        if manager is None:
            await _plain(respond, 503, b"The MCP endpoint is not running.", [])
            return
        if (call := self._road.match(scope, checked, caller)) is not None:
            status, body = await self._road.answer(call, request)
            await _plain(respond, status, body, [JSON])
            return
        with state.bound(request):
            await manager.handle_request(scope, checked.receive, respond)


class _ResponseEditor:
    """Adds the metering headers to keyed responses; completes a -32022 `supported` list;
    turns the SDK's plain-text 413 into a JSON-RPC error, as every other refusal here is;
    cuts anything shaped like an API key to its display prefix. The answer's start is held
    until its body is whole (the SDK's JSON answers are one message), so its length can
    follow the edits."""

    def __init__(self, pipeline: Pipeline, request: state.McpRequest, send: Send) -> None:
        self._pipeline = pipeline
        self._request = request
        self._send = send
        self._held: Message | None = None
        self._chunks: list[bytes] = []

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            if self._request.caller is not None:
                extra = await self._extra()
                replaced = {name for name, _ in extra}
                kept = [h for h in message.get("headers", []) if h[0].lower() not in replaced]
                message = {**message, "headers": [*kept, *extra]}
            self._held = message
            return
        if message["type"] != "http.response.body" or self._held is None:
            await self._send(message)
            return
        self._chunks.append(message.get("body", b""))
        if message.get("more_body", False):
            return
        held, self._held = self._held, None
        body = self._chunks[0] if len(self._chunks) == 1 else b"".join(self._chunks)
        self._chunks = []
        headers = held.get("headers", [])
        status = held["status"]
        edited = body
        if status == 413:
            edited = _too_large(self._request)
            headers = [h for h in headers if h[0].lower() != b"content-type"]
            headers.append((b"content-type", b"application/json"))
        elif status in _EDITED:
            edited = _complete_supported(body)
        edited = without_keys_in(edited)
        if edited is not body:
            headers = [h for h in headers if h[0].lower() != b"content-length"]
            headers.append((b"content-length", str(len(edited)).encode()))
            held = {**held, "headers": headers}
        await self._send(held)
        await self._send({"type": "http.response.body", "body": edited})

    async def _extra(self) -> list[tuple[bytes, bytes]]:
        caller = self._request.caller
        if caller is None:
            return []
        reading = self._request.reading
        if reading is None:  # nothing consumed (discovery, listing, a refused call): as it stands
            reading = await anyio.to_thread.run_sync(self._pipeline.peek, caller)
            if reading is None:
                return [NO_STORE]
        extra = [(k.lower().encode(), v.encode()) for k, v in reading.headers().items()]
        if self._request.retry_after is not None:
            # The call is a tool error (HTTP 200, docs/mcp.md), but a client or proxy that
            # backs off by the header finds the same Retry-After as on a REST 429.
            extra.append((b"retry-after", str(self._request.retry_after).encode()))
        return [*extra, NO_STORE]


def _too_large(request: state.McpRequest) -> bytes:
    """The JSON-RPC answer to a body over `max_body_bytes` (refused before it was parsed, so
    no id): -32600 Invalid Request, with the REST tier's error code in `data`, as every
    refusal given before the request was read (`entrypoints/early.py`)."""
    message = "Request body too large."
    _, _, body = early.refusal(
        413, "payload_too_large", message, request_id=request.request_id, shape="mcp"
    )
    return body


def _complete_supported(body: bytes) -> bytes:
    try:
        decoded = json.loads(body)
    except ValueError:
        return body
    error = decoded.get("error") if isinstance(decoded, dict) else None
    if not isinstance(error, dict) or error.get("code") != UNSUPPORTED_PROTOCOL_VERSION:
        return body
    data = error.get("data")
    error["data"] = {
        **(data if isinstance(data, dict) else {}),
        "supported": list(SUPPORTED_VERSIONS),
    }
    return json.dumps(decoded, separators=(",", ":")).encode()


async def _plain(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    headers = [*headers, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
