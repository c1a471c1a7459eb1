"""The MCP endpoint reads a request body once: whole when its Content-Length bytes are in,
else up to the server's closing message, and hands the SDK every message it read."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from schooldata.entrypoints.mcp_server import routing
from schooldata.entrypoints.mcp_server.server import HANDSHAKE_VERSIONS, SUPPORTED_VERSIONS

STATELESS = next(v for v in SUPPORTED_VERSIONS if v not in HANDSHAKE_VERSIONS)
BODY = json.dumps(
    {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "search_schools"}}
).encode()


class ScriptedReceive:
    """Hands out `messages` in turn and counts the calls; past the end it fails the test."""

    def __init__(self, messages: Sequence[dict[str, Any]]) -> None:
        self.messages = list(messages)
        self.calls = 0

    async def __call__(self) -> dict[str, Any]:
        self.calls += 1
        assert self.messages, "read past the end of the request"
        return self.messages.pop(0)


def _scope(*headers: tuple[bytes, bytes]) -> dict[str, Any]:
    sent = [
        (b"mcp-protocol-version", STATELESS.encode()),
        (b"content-type", b"application/json"),
        *headers,
    ]
    return {"type": "http", "method": "POST", "path": "/mcp", "headers": sent}


def _chunk(body: bytes, more: bool) -> dict[str, Any]:
    return {"type": "http.request", "body": body, "more_body": more}


def _check(scope: dict[str, Any], receive: ScriptedReceive) -> routing.Checked:
    return asyncio.run(routing.check(scope, receive, max_body_bytes=64 * 1024))


def _replayed(checked: routing.Checked, count: int) -> list[dict[str, Any]]:
    async def read() -> list[dict[str, Any]]:
        return [await checked.receive() for _ in range(count)]

    return asyncio.run(read())


def test_a_body_whose_declared_length_has_arrived_is_read_without_waiting_for_more() -> None:
    receive = ScriptedReceive([_chunk(BODY, True), _chunk(b"", False)])
    checked = _check(_scope((b"content-length", str(len(BODY)).encode())), receive)
    assert checked.message is not None and checked.message["id"] == 7
    assert receive.calls == 1
    # The SDK, reading on, gets what was read and then the server's own closing message.
    assert _replayed(checked, 2) == [_chunk(BODY, True), _chunk(b"", False)]


def test_a_body_in_parts_is_read_until_its_declared_length_is_in() -> None:
    half = len(BODY) // 2
    receive = ScriptedReceive([_chunk(BODY[:half], True), _chunk(BODY[half:], True)])
    checked = _check(_scope((b"content-length", str(len(BODY)).encode())), receive)
    assert checked.message is not None and checked.message["id"] == 7
    assert receive.calls == 2


def test_a_body_without_a_length_is_read_until_the_server_says_it_ended() -> None:
    receive = ScriptedReceive([_chunk(BODY, True), _chunk(b"", False)])
    checked = _check(_scope(), receive)
    assert checked.message is not None and checked.message["id"] == 7
    assert receive.calls == 2


def test_a_chunked_body_is_read_to_its_end_whatever_length_it_declares() -> None:
    receive = ScriptedReceive([_chunk(BODY, True), _chunk(b"", False)])
    scope = _scope((b"content-length", str(len(BODY)).encode()), (b"transfer-encoding", b"chunked"))
    checked = _check(scope, receive)
    assert checked.message is not None and checked.message["id"] == 7
    assert receive.calls == 2


def test_a_length_that_is_no_plain_number_is_ignored_and_the_body_read_to_its_end() -> None:
    for declared in (b"\xb2", b"+10", b"1e3", b""):  # "\xb2" is latin-1's superscript two
        receive = ScriptedReceive([_chunk(BODY, True), _chunk(b"", False)])
        checked = _check(_scope((b"content-length", declared)), receive)
        assert checked.message is not None and checked.message["id"] == 7
        assert receive.calls == 2
