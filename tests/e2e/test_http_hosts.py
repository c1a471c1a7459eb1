"""Absolute URLs come from configuration or from a `Host` the server answers to, never from
whatever a client names (`entrypoints/hosts.py`, judged at the HTTP edge for every route).

With no base URL configured, a request naming another host (`evil.example`) is refused with
421 before any answer is built, on every route, so the name appears in no answer or header;
a `Host` that is no host is 400; both in the tier's error shape with a request id. A host the
server answers to still starts the links (`make serve`: loopback on any port)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.e2e.test_hosts_corpus import MALFORMED_HOSTS
from tests.support.http import bearer

from schooldata.application.service import Application
from schooldata.bootstrap import build_asgi
from schooldata.settings import load_settings

LOCAL = "http://127.0.0.1:8000"
MCP_BODY = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
MCP_HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-06-18",
}


@pytest.fixture
def local(app: Application, tmp_path: Path) -> Iterator[TestClient]:  # type: ignore[type-arg]
    """The served app as `make serve` runs it: no base URL, the default allow-list."""
    settings = load_settings(environ={}, home=tmp_path)
    with TestClient(app=build_asgi(app, settings), base_url=LOCAL) as client:
        yield client


def _requests(key: str) -> list[tuple[str, str, dict[str, str], Any, str]]:
    """(method, path, headers, JSON body, the error shape expected) on every kind of route."""
    keyed = bearer(key)
    csv = {"Accept": "text/csv"}
    return [
        ("GET", "/health", {}, None, "public"),
        ("GET", "/ready", {}, None, "public"),
        ("GET", "/", {}, None, "public"),
        ("GET", "/api/v1/openapi.json", {}, None, "commercial"),  # as its other refusals
        ("GET", "/api/v1/search?query=st%20mary", {}, None, "public"),
        ("GET", "/api/v1/search?query=st%20mary", csv, None, "public"),
        ("GET", "/api/get-school?urn=100001", {}, None, "public"),
        ("GET", "/api/v1/schools/100001", {}, None, "public"),
        ("GET", "/api/v1/schools/100001", keyed, None, "commercial"),
        ("GET", "/api/v1/schools?per_page=1", keyed, None, "commercial"),
        ("GET", "/api/v1/schools?per_page=1", {**keyed, **csv}, None, "commercial"),
        ("GET", "/api/v1/schools", {}, None, "commercial"),
        ("POST", "/api/v1/schools/lookup", keyed, {"urns": ["100001"]}, "commercial"),
        ("GET", "/no/such/path", {}, None, "public"),
        ("POST", "/mcp", MCP_HEADERS, MCP_BODY, "mcp"),
        ("POST", "/mcp", {**MCP_HEADERS, **keyed}, MCP_BODY, "mcp"),
    ]


def _send(client: TestClient, request: tuple[Any, ...], host: str) -> httpx.Response:  # type: ignore[type-arg]
    method, path, headers, body, _ = request
    sent = {**headers, "Host": host.encode("utf-8")}  # (bytes: a Host need not be ASCII)
    return client.request(method, path, headers=sent, json=body)


def _assert_refused(response: httpx.Response, status: int, code: str, shape: str) -> None:
    assert response.status_code == status, response.text
    request_id = response.headers["x-request-id"]
    body = response.json()
    if shape == "mcp":
        assert body["id"] is None and body["error"]["code"] == -32600
        assert body["error"]["data"] == {"code": code, "request_id": request_id}
    elif shape == "public":
        assert body["code"] == code and isinstance(body["error"], str)
    else:
        assert body["error"]["code"] == code and body["error"]["request_id"] == request_id
    assert response.headers["cache-control"] == "no-store"


def test_a_request_for_another_host_is_421_on_every_route_and_never_echoes_it(
    app: Application,
    local: TestClient,  # type: ignore[type-arg]
) -> None:
    key = issue_key(app, "enterprise")
    for request in _requests(key):
        for host in ("evil.example", "EVIL.example:8000", "localhost.evil.example"):
            response = _send(local, request, host)
            _assert_refused(response, 421, "misdirected_request", request[4])
            shown = response.text + str(response.headers.multi_items())
            assert "evil" not in shown.lower(), (request[:2], shown)


@pytest.mark.parametrize("host", MALFORMED_HOSTS)
def test_a_host_that_names_no_host_is_400_on_every_route(
    app: Application,
    local: TestClient,
    host: str,  # type: ignore[type-arg]
) -> None:
    key = issue_key(app, "enterprise")
    for request in _requests(key):
        _assert_refused(_send(local, request, host), 400, "invalid_request", request[4])


def test_nothing_is_metered_for_a_refused_host(app: Application, local: TestClient) -> None:  # type: ignore[type-arg]
    key = issue_key(app, "developer", org="hosts")
    period = app.ports.clock.now().strftime("%Y-%m")
    for host in ("evil.example", "a:/b"):
        local.get("/api/v1/schools", headers={**bearer(key), "Host": host})
    assert app.ports.quota.used(organisation="hosts-developer", period=period) == 0


def test_a_loopback_host_on_any_port_starts_the_links(
    app: Application,
    local: TestClient,  # type: ignore[type-arg]
) -> None:
    key = issue_key(app, "enterprise")
    for host in ("localhost:8000", "127.0.0.1:51234", "[::1]:9"):
        search = local.get("/api/v1/search?query=st%20mary", headers={"Host": host})
        assert search.status_code == 200
        assert search.json()["results"][0]["url"].startswith(f"http://{host}/api/v1/schools/")
        listed = local.get("/api/v1/schools?per_page=1", headers={**bearer(key), "Host": host})
        assert listed.status_code == 200
        assert f"<http://{host}/api/v1/schools?" in listed.headers["link"]


def test_a_configured_base_url_starts_every_link_whatever_allowed_host_is_named(
    app: Application, tmp_path: Path
) -> None:
    settings = load_settings(
        environ={
            "SCHOOLDATA_BASE_URL": "https://schools.example.org",
            "SCHOOLDATA_ALLOWED_HOSTS": "upstream.internal:8000",
        },
        home=tmp_path,
    )
    key = issue_key(app, "enterprise")
    asgi = build_asgi(app, settings)
    with TestClient(app=asgi, base_url="http://upstream.internal:8000") as client:
        search = client.get("/api/v1/search?query=st%20mary")
        assert search.json()["results"][0]["url"].startswith("https://schools.example.org/")
        listed = client.get("/api/v1/schools?per_page=1", headers=bearer(key))
        assert "<https://schools.example.org/api/v1/schools?" in listed.headers["link"]
        assert "upstream.internal" not in listed.text + listed.headers["link"]
        public = client.get("/health", headers={"Host": "schools.example.org"})
        assert public.status_code == 200  # the base URL's own host is always answered
        assert client.get("/health", headers={"Host": "localhost"}).status_code == 421
