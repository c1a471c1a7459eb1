"""Helpers, not tests: drive the MCP endpoint through the full ASGI app (transport layer, Litestar, SDK) in process.

`McpHttp` writes the JSON-RPC requests by hand, so the tests pin the wire: headers, `_meta`,
HTTP statuses and error codes. The SDK client is exercised separately over real HTTP.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient

from schooldata.application.service import Application
from schooldata.bootstrap import build_asgi
from schooldata.settings import load_settings

MODERN = "2026-07-28"
HANDSHAKE = ("2025-11-25", "2025-06-18", "2025-03-26")
ALL_VERSIONS = (MODERN, *HANDSHAKE)
PUBLIC_TOOLS = {"search_schools", "get_school"}
COMMERCIAL_TOOLS = {
    "search_schools",
    "get_school",
    "find_schools_near_location",
    "compare_schools",
    "get_school_inspection_history",
    "get_school_results",
    "get_school_admissions",
    "get_school_finances",
    "get_school_data_freshness",
    "get_school_rankings",
}
CLIENT_INFO = {"name": "schooldata-tests", "version": "1.0"}
# The in-process client's host, configured as the base URL a deployment would set (a request
# may only name a host the server answers to: entrypoints/hosts.py).
TEST_BASE_URL = "http://testserver.local"
_ids = itertools.count(1)


def envelope_meta(version: str = MODERN) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
        "io.modelcontextprotocol/clientCapabilities": {},
    }


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


class McpHttp:
    """One caller (anonymous, or with the given headers) of `/mcp`."""

    def __init__(self, client: TestClient, headers: Mapping[str, str] | None = None) -> None:  # type: ignore[type-arg]
        self.client = client
        self.headers = dict(headers or {})

    def post(self, body: Any, headers: Mapping[str, str]) -> httpx.Response:
        sent = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **self.headers,
            **headers,
        }
        return self.client.post("/mcp", json=body, headers=sent)

    # ------------------------------------------------------------------ 2026-07-28

    def modern(
        self, method: str, params: Mapping[str, Any] | None = None, **headers: str
    ) -> httpx.Response:
        body = {
            "jsonrpc": "2.0",
            "id": next(_ids),
            "method": method,
            "params": {**(params or {}), "_meta": envelope_meta()},
        }
        routing = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
        if method == "tools/call":
            routing["Mcp-Name"] = str((params or {})["name"])
        return self.post(body, {**routing, **headers})

    def tools(self) -> dict[str, dict[str, Any]]:
        response = self.modern("tools/list")
        assert response.status_code == 200, response.text
        return {tool["name"]: tool for tool in response.json()["result"]["tools"]}

    def call(self, name: str, arguments: Mapping[str, Any] | None = None) -> dict[str, Any]:
        response = self.modern("tools/call", {"name": name, "arguments": dict(arguments or {})})
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()["result"]
        return result

    # ------------------------------------------------------------------ handshake eras

    def legacy(
        self, method: str, params: Mapping[str, Any] | None = None, *, version: str
    ) -> httpx.Response:
        body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if not method.startswith("notifications/"):
            body["id"] = next(_ids)
        if params is not None:
            body["params"] = dict(params)
        headers = {} if method == "initialize" else {"MCP-Protocol-Version": version}
        return self.post(body, headers)

    def initialize(self, version: str) -> httpx.Response:
        return self.legacy(
            "initialize",
            {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT_INFO},
            version=version,
        )


class FixedClock:
    def __init__(self, now: dt.datetime) -> None:
        self.current = now

    def now(self) -> dt.datetime:
        return self.current

    def timestamp(self) -> float:
        return self.now().timestamp()


def served(app: Application, tmp_path: Path) -> Iterator[TestClient]:  # type: ignore[type-arg]
    """The whole served app (REST + MCP, transport layer included), its lifespan running."""
    settings = load_settings(environ={}, home=tmp_path, base_url=TEST_BASE_URL)
    with TestClient(app=build_asgi(app, settings), base_url=TEST_BASE_URL) as client:
        yield client


@pytest.fixture
def http(app: Application, tmp_path: Path) -> Iterator[TestClient]:  # type: ignore[type-arg]
    yield from served(app, tmp_path)


@pytest.fixture
def anonymous(http: TestClient) -> McpHttp:  # type: ignore[type-arg]
    return McpHttp(http)


def used(app: Application, organisation: str) -> int:
    period = app.ports.clock.now().strftime("%Y-%m")
    return app.ports.quota.used(organisation=organisation, period=period)


def text_of(result: Mapping[str, Any]) -> str:
    return "\n".join(block["text"] for block in result["content"] if block["type"] == "text")
