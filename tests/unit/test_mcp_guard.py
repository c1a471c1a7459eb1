"""The MCP endpoint's DNS-rebinding check: an `Origin` must be one of the names in the server's
one allow-list of hosts, strictly (no prefix matching). (Its `Host` is the HTTP edge's to
judge: tests/e2e/test_http_hosts.py.)"""

from __future__ import annotations

from typing import Any

from schooldata.entrypoints.hosts import HostPolicy
from schooldata.entrypoints.mcp_server.guard import OriginGuard

POLICY = HostPolicy.configured(
    base_url="https://api.example", allowed_hosts=("api.example", "localhost:*")
)


def _scope(*origins: str) -> dict[str, Any]:
    headers = [(b"host", b"api.example")]
    headers += [(b"origin", origin.encode()) for origin in origins]
    return {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}


def _status(scope: dict[str, Any]) -> int | None:
    refused = OriginGuard(POLICY).refusal(scope)
    return None if refused is None else refused[0]


def test_no_origin_and_the_allowed_hosts_own_origins_pass() -> None:
    assert _status(_scope()) is None
    assert _status(_scope("https://api.example")) is None
    assert _status(_scope("http://localhost:8000")) is None
    assert _status(_scope("")) is None


def test_another_origin_is_403() -> None:
    assert _status(_scope("https://evil.example")) == 403
    assert _status(_scope("null")) == 403


def test_an_origin_that_only_begins_like_an_allowed_one_is_refused() -> None:
    assert _status(_scope("http://localhost:8790@evil.example")) == 403


def test_the_first_origin_sent_is_the_one_judged() -> None:
    assert _status(_scope("https://evil.example", "https://api.example")) == 403
    assert _status(_scope("https://api.example", "https://evil.example")) is None
