"""The MCP endpoint's DNS-rebinding check: `Host` by the server's one allow-list of hosts,
`Origin` by the same names, strictly (no prefix matching)."""

from __future__ import annotations

from typing import Any

from schooldata.entrypoints.hosts import HostPolicy
from schooldata.entrypoints.mcp_server.guard import HostGuard

POLICY = HostPolicy.configured(
    base_url="https://api.example", allowed_hosts=("api.example", "localhost:*")
)


def _scope(*hosts: str, origin: str | None = None) -> dict[str, Any]:
    headers = [(b"host", host.encode()) for host in hosts]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    return {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}


def _status(scope: dict[str, Any]) -> int | None:
    refused = HostGuard(POLICY).refusal(scope)
    return None if refused is None else refused[0]


def test_allowed_hosts_and_their_own_origins_pass() -> None:
    assert _status(_scope("api.example")) is None
    assert _status(_scope("API.example:443", origin="https://api.example")) is None
    assert _status(_scope("localhost:8000", origin="http://localhost:8000")) is None


def test_another_host_is_421_and_another_origin_403() -> None:
    assert _status(_scope("evil.example")) == 421
    assert _status(_scope("api.example", origin="https://evil.example")) == 403
    assert _status(_scope("api.example", origin="null")) == 403


def test_a_host_that_only_begins_like_an_allowed_one_is_no_host() -> None:
    for host in ("localhost:8790@evil.example", "localhost:/x", "localhost:8000/evil", "a:/b"):
        assert _status(_scope(host)) == 400, host
    assert _status(_scope("api.example", origin="http://localhost:8790@evil.example")) == 403


def test_two_host_headers_are_refused() -> None:
    assert _status(_scope("api.example", "api.example")) == 400
