"""What a request to `/mcp` is, decided once before anything runs it: its HTTP method, its
Content-Type, its body, and the protocol era it is served in (the answer to each question
every later step reads from `Checked`).

- Only POST: a stateless server offers no GET stream and no sessions to DELETE (405).
- Content-Type must be JSON (400, -32600).

The SDK picks the era from the `MCP-Protocol-Version` header alone. In a handshake era, JSON
that is no single JSON-RPC message (a batch, `{}`) -> 400, -32600 (the SDK's own answer is
-32602 with a validation dump). The rules here need the
body too, so the body is read once (up to the size limit; a larger body goes on unread, for the
SDK's 413) and handed on unchanged:

- No header, but `params._meta` names a stateless-era version (anything but a handshake
  version): the header is required at that version -> 400, -32020. A request with neither
  header nor `_meta` version is a handshake-era client (2025-03-26 by the spec's default).
- A header naming a handshake version we do not serve (2024-11-05) -> 400, -32022.
- A header naming an unknown version, and no `_meta` version to compare it with -> 400,
  -32022 (what was asked is plain; without this the SDK would say `_meta` is missing). With a
  `_meta` version the SDK's ladder answers: -32020 when they differ, -32022 when they agree.
- A 2026-07-28 notification whose `Mcp-Method` header is missing or names another method ->
  400, -32020 with a null id (the SDK would acknowledge it with 202). The header is required on
  "all requests and notifications".
- A body (any era) whose objects name a member twice -> 400, -32600 (`entrypoints/json_body`).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any

from attrs import frozen
from mcp_types import (
    DEFAULT_NEGOTIATED_VERSION,
    HEADER_MISMATCH,
    INVALID_REQUEST,
    PROTOCOL_VERSION_META_KEY,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS

from schooldata.entrypoints.http.request import first_header
from schooldata.entrypoints.json_body import INVALID, decoded_or_invalid, duplicate_member
from schooldata.entrypoints.mcp_server.server import HANDSHAKE_VERSIONS, SUPPORTED_VERSIONS

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Headers = list[tuple[bytes, bytes]]
JSON = (b"content-type", b"application/json")


@frozen
class Refusal:
    """A JSON-RPC error to send with HTTP 400 instead of running the request."""

    code: int
    message: str
    request_id: Any = None
    data: Mapping[str, Any] | None = None

    def body(self) -> bytes:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = dict(self.data)
        payload = {"jsonrpc": "2.0", "id": self.request_id, "error": error}
        return json.dumps(payload, separators=(",", ":")).encode()

    def answer(self) -> Answer:
        return Answer(400, self.body(), [JSON])


@frozen
class Answer:
    """An HTTP answer given instead of running the request."""

    status: int
    body: bytes
    headers: Headers


NOT_POST = Answer(405, b"", [(b"allow", b"POST")])
NOT_JSON = Refusal(INVALID_REQUEST, "Content-Type must be application/json.").answer()


@frozen
class Checked:
    """What `check` found: an answer to give instead (None: run the request), the `receive`
    to hand on (it replays what was read), the body when it was read whole, the era the
    request is served in (`modern`: 2026-07-28, with its decoded body as `message`;
    `version`: a handshake era's version), and whether the client went away before its body
    was whole (nothing to answer then: the HTTP edge answers a body that timed out)."""

    refusal: Answer | None
    receive: Receive
    message: Mapping[str, Any] | None = None
    gone: bool = False
    body: bytes | None = None
    modern: bool = False
    version: str | None = None


async def check(scope: Scope, receive: Receive, *, max_body_bytes: int) -> Checked:
    if scope["method"] != "POST":
        return Checked(NOT_POST, receive)
    content_type = first_header(scope, b"content-type") or ""
    if not content_type.lower().startswith("application/json"):
        return Checked(NOT_JSON, receive)
    version = first_header(scope, b"mcp-protocol-version")
    body, receive, gone = await _peek(scope, receive, max_body_bytes)
    if gone:
        return Checked(None, receive, gone=True)
    decoded = INVALID if body is None else decoded_or_invalid(body)  # (decoded once)
    if body is not None and (name := duplicate_member(body, decoded)) is not None:
        return Checked(_refused(_duplicated(name, decoded)), receive)
    if version is None or version in HANDSHAKE_VERSIONS:
        # A handshake era: the SDK answers, except a body that is JSON but no JSON-RPC
        # message (its answer would be -32602 with a validation dump, not -32600).
        if (malformed := _not_a_message(decoded)) is not None:
            return Checked(malformed.answer(), receive)
        if version is not None:
            return Checked(None, receive, body=body, version=version)
    message = decoded if isinstance(decoded, dict) else None
    if version is None:
        if (required := _header_required(message)) is not None:
            return Checked(required.answer(), receive)
        return Checked(None, receive, body=body, version=DEFAULT_NEGOTIATED_VERSION)
    if version in KNOWN_PROTOCOL_VERSIONS and version not in SUPPORTED_VERSIONS:
        return Checked(_unsupported(version, message).answer(), receive)  # a gone era
    if version not in SUPPORTED_VERSIONS:
        refusal = None if _meta_version(message) is not None else _unsupported(version, message)
        return Checked(_refused(refusal), receive)
    refusal = _notification_method(scope, message)
    return Checked(_refused(refusal), receive, message, body=body, modern=True)


def _refused(refusal: Refusal | None) -> Answer | None:
    return None if refusal is None else refusal.answer()


def _not_a_message(decoded: Any) -> Refusal | None:
    """-32600 Invalid Request for JSON that is no single JSON-RPC 2.0 message: a batch, or an
    object without `"jsonrpc": "2.0"` and a method (or, as a response, a result or error).
    Not JSON at all (INVALID, or no body read) is left to the SDK (-32700)."""
    if decoded is INVALID:
        return None
    if isinstance(decoded, list):
        return Refusal(
            INVALID_REQUEST, "Batches are not supported: send one JSON-RPC message per request."
        )
    if not isinstance(decoded, dict) or decoded.get("jsonrpc") != "2.0":
        return Refusal(INVALID_REQUEST, 'Not a JSON-RPC 2.0 message ("jsonrpc": "2.0").')
    is_response = "id" in decoded and ("result" in decoded or "error" in decoded)
    if not isinstance(decoded.get("method"), str) and not is_response:
        return Refusal(INVALID_REQUEST, "A JSON-RPC request needs a method.", _id_of(decoded))
    return None


def _duplicated(name: str, decoded: Any) -> Refusal:
    """-32600 for a body that names a member twice in one object (in every era: which of
    the two a reader keeps is not the client's to guess)."""
    shown = json.dumps(name[:40] + ("..." if len(name) > 40 else ""))
    message = f"An object in the request names the member {shown} more than once."
    return Refusal(INVALID_REQUEST, message, _id_of(decoded if isinstance(decoded, dict) else None))


def _header_required(message: Mapping[str, Any] | None) -> Refusal | None:
    declared = _meta_version(message)
    if declared is None or declared in HANDSHAKE_VERSIONS:
        return None
    return Refusal(
        HEADER_MISMATCH,
        f"The MCP-Protocol-Version header is required: params._meta names protocol version "
        f"{json.dumps(declared)}.",
        _id_of(message),
    )


def _unsupported(version: str, message: Mapping[str, Any] | None) -> Refusal:
    data = {"supported": list(SUPPORTED_VERSIONS), "requested": version}
    return Refusal(
        UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", _id_of(message), data
    )


def _notification_method(scope: Scope, message: Mapping[str, Any] | None) -> Refusal | None:
    if message is None or "id" in message:
        return None  # a request: the SDK checks its headers
    sent = first_header(scope, b"mcp-method")
    if sent is not None and sent.strip() == message.get("method"):
        return None
    return Refusal(HEADER_MISMATCH, "Mcp-Method header does not match the notification's method")


def _meta_version(message: Mapping[str, Any] | None) -> object | None:
    """The `_meta` protocol version a body declares (any JSON value), or None."""
    params = message.get("params") if message is not None else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    return meta.get(PROTOCOL_VERSION_META_KEY) if isinstance(meta, dict) else None


def _id_of(message: Mapping[str, Any] | None) -> Any:
    value = message.get("id") if message is not None else None
    return value if isinstance(value, str | int) and not isinstance(value, bool) else None


async def _peek(scope: Scope, receive: Receive, limit: int) -> tuple[bytes | None, Receive, bool]:
    """The whole body (None when it is over `limit`: then only what was read is replayed, and
    the rest is left for the SDK to refuse), a `receive` that replays it, and whether the
    client went away (`http.disconnect`) before the body was whole.

    A body whose Content-Length bytes have all arrived is whole: the server has no more to
    give (HTTP frames it by that length), so its closing empty message is not waited for.
    Granian sends one after every body, and it costs a second wake-up of this thread."""
    declared = (first_header(scope, b"content-length") or "").strip()
    # (ASCII digits only: `str.isdigit` also passes "²", which `int` refuses)
    length = int(declared) if declared.isascii() and declared.isdigit() else None
    if length is not None and length > limit:
        return None, receive, False
    if length is not None and first_header(scope, b"transfer-encoding") is not None:
        length = None  # (framed by its chunks, not its length)
    read: deque[Message] = deque()
    size = 0
    complete = False
    while size <= limit:
        message = await receive()
        read.append(message)
        if message.get("type") != "http.request":
            break
        size += len(message.get("body", b""))
        if not message.get("more_body", False) or size == length:
            complete = True
            break

    async def replay() -> Message:
        return read.popleft() if read else await receive()

    body = b"".join(m.get("body", b"") for m in read if m.get("type") == "http.request")
    gone = not complete and bool(read) and read[-1].get("type") == "http.disconnect"
    return (body if complete and size <= limit else None), replay, gone
