"""The SDK's Host/Origin check, remembered only for the pairs it passed."""

from __future__ import annotations

import asyncio
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings

from schooldata.entrypoints.mcp_server import guard
from schooldata.entrypoints.mcp_server.guard import HostGuard

SETTINGS = TransportSecuritySettings(
    allowed_hosts=["api.example", "localhost:*"], allowed_origins=["https://app.example"]
)


def _scope(host: str, origin: str | None = None) -> dict[str, Any]:
    headers = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    return {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}


async def _nothing() -> dict[str, Any]:
    return {"type": "http.request", "body": b""}


def _status(checker: HostGuard, scope: dict[str, Any]) -> int | None:
    refused = asyncio.run(checker.refusal(scope, _nothing))
    return None if refused is None else refused.status_code


def test_a_refused_host_or_origin_is_refused_every_time_after_good_ones() -> None:
    checker = HostGuard(SETTINGS)
    for _ in range(3):
        assert _status(checker, _scope("api.example")) is None
        assert _status(checker, _scope("localhost:8000", "https://app.example")) is None
        assert _status(checker, _scope("evil.example")) == 421
        assert _status(checker, _scope("api.example", "https://evil.example")) == 403


def test_the_remembered_pairs_stay_within_their_bound() -> None:
    checker = HostGuard(SETTINGS)
    for port in range(guard.MAX_REMEMBERED * 3):
        assert _status(checker, _scope(f"localhost:{port}")) is None
    assert len(checker._passed) == guard.MAX_REMEMBERED
    long_host = "localhost:" + "9" * guard.MAX_VALUE_BYTES
    assert guard.host_and_origin(_scope(long_host)) is None
    assert _status(checker, _scope(long_host)) is None  # checked, passed, not kept
