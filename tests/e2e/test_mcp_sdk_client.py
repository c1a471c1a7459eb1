"""The official MCP SDK client against the endpoint over real HTTP (uvicorn on a free port).

Both connection modes: `auto` (server/discover, then 2026-07-28) and `legacy` (the initialize
handshake). Every tool is listed and called, anonymously and with a key; the client validates
each structured result against the tool's output schema.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from tests.conftest import issue_key
from tests.e2e.test_mcp_support import COMMERCIAL_TOOLS, PUBLIC_TOOLS
from tests.support.servers import free_port

from schooldata.application.service import Application
from schooldata.bootstrap import build_asgi
from schooldata.settings import load_settings

PUBLIC_CALLS: dict[str, dict[str, Any]] = {
    "search_schools": {"query": "st mary", "limit": 3},
    "get_school": {"urn": "100001"},
}
COMMERCIAL_CALLS: dict[str, dict[str, Any]] = {
    "search_schools": {"q": "st mary", "per_page": 2},
    "get_school": {"urn": "100001"},
    "find_schools_near_location": {"postcode": "B1 1AA", "radius_miles": 5},
    "compare_schools": {"urns": ["100002", "100003"]},
    "get_school_inspection_history": {"urn": "100002"},
    "get_school_results": {"urn": "100002"},
    "get_school_admissions": {"urn": "100002"},
    "get_school_finances": {"urn": "100002"},
    "get_school_data_freshness": {},
    "get_school_rankings": {"metric": "svc_score", "phase": "secondary"},
}


@pytest.fixture
def server_url(app: Application, tmp_path: Path) -> Iterator[str]:
    asgi = build_asgi(app, load_settings(environ={}, home=tmp_path))
    port = free_port()
    config = uvicorn.Config(asgi, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


async def _session(
    url: str, mode: str, headers: dict[str, str], calls: dict[str, dict[str, Any]]
) -> tuple[str, set[str], dict[str, Any]]:
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        listed = {tool.name for tool in (await client.list_tools()).tools}
        results = {}
        for name, arguments in calls.items():
            result = await client.call_tool(name, arguments)
            assert result.is_error is False, (name, result.content)
            assert result.structured_content is not None
            assert result.content[0].type == "text"
            results[name] = result.structured_content
        return client.protocol_version, listed, results


@pytest.mark.parametrize(("mode", "version"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_the_sdk_client_lists_and_calls_every_public_tool(
    server_url: str, mode: str, version: str
) -> None:
    negotiated, listed, results = asyncio.run(_session(server_url, mode, {}, PUBLIC_CALLS))
    assert negotiated == version
    assert listed == PUBLIC_TOOLS
    assert results["get_school"]["urn"] == 100001
    assert results["search_schools"]["limit"] == 3


@pytest.mark.parametrize(("mode", "version"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_the_sdk_client_lists_and_calls_every_commercial_tool(
    server_url: str, app: Application, mode: str, version: str
) -> None:
    headers = {"Authorization": f"Bearer {issue_key(app, 'enterprise')}"}
    negotiated, listed, results = asyncio.run(_session(server_url, mode, headers, COMMERCIAL_CALLS))
    assert negotiated == version
    assert listed == COMMERCIAL_TOOLS
    assert set(results) == COMMERCIAL_TOOLS
    assert results["get_school"]["data"]["urn"] == 100001
    assert all("meta" in body and "data" in body for body in results.values())


def test_the_sdk_client_sees_a_tool_outside_the_plan_as_a_tool_error(
    server_url: str, app: Application
) -> None:
    async def call() -> Any:
        headers = {"X-API-Key": issue_key(app, "developer")}
        async with (
            httpx2.AsyncClient(headers=headers) as http,
            Client(streamable_http_client(server_url, http_client=http)) as client,
        ):
            return await client.call_tool("get_school_finances", {"urn": "100001"})

    result = asyncio.run(call())
    assert result.is_error is True
    assert result.structured_content["error"]["details"]["feature"] == "finance"
