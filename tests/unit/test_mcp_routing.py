"""What a request to `/mcp` is, decided once: its method, its Content-Type, and the protocol
era it is served in (every later step reads the answer)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from schooldata.entrypoints.mcp_server import routing

BODY = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()


def _check(
    *headers: tuple[bytes, bytes], method: str = "POST", body: bytes = BODY
) -> routing.Checked:
    sent = [(b"content-type", b"application/json"), *headers]
    scope: dict[str, Any] = {"type": "http", "method": method, "path": "/mcp", "headers": sent}
    messages = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, Any]:
        return messages.pop(0)

    return asyncio.run(routing.check(scope, receive, max_body_bytes=64 * 1024))


def _version(value: str) -> tuple[bytes, bytes]:
    return (b"mcp-protocol-version", value.encode())


def test_only_a_post_is_read_and_anything_else_is_405_naming_post() -> None:
    for method in ("GET", "DELETE", "PUT"):
        refusal = _check(method=method).refusal
        assert refusal is not None and refusal.status == 405
        assert refusal.headers == [(b"allow", b"POST")]


def test_a_body_that_is_not_json_by_its_content_type_is_400_invalid_request() -> None:
    scope: dict[str, Any] = {"type": "http", "method": "POST", "headers": []}

    async def receive() -> dict[str, Any]:
        raise AssertionError("the body is not read")

    checked = asyncio.run(routing.check(scope, receive, max_body_bytes=1024))
    assert checked.refusal is not None and checked.refusal.status == 400
    assert json.loads(checked.refusal.body)["error"]["code"] == -32600


def test_without_a_version_header_the_request_is_of_the_oldest_handshake_era() -> None:
    checked = _check()
    assert checked.refusal is None
    assert (checked.modern, checked.version, checked.body) == (False, "2025-03-26", BODY)


def test_a_handshake_version_header_names_the_era() -> None:
    for version in ("2025-11-25", "2025-06-18", "2025-03-26"):
        checked = _check(_version(version))
        assert (checked.refusal, checked.modern, checked.version) == (None, False, version)


def test_the_stateless_version_is_the_modern_era_with_its_message_read() -> None:
    checked = _check(_version("2026-07-28"))
    assert checked.refusal is None and checked.modern and checked.version is None
    assert checked.message == {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def test_a_gone_era_is_refused_naming_the_versions_served() -> None:
    refusal = _check(_version("2024-11-05")).refusal
    assert refusal is not None and refusal.status == 400
    error = json.loads(refusal.body)["error"]
    assert error["code"] == -32022
    assert error["data"]["requested"] == "2024-11-05"
    assert "2026-07-28" in error["data"]["supported"]


def test_an_unknown_version_is_no_era_of_ours() -> None:
    checked = _check(_version("2030-01-01"))
    assert checked.refusal is not None
    assert (checked.modern, checked.version) == (False, None)
