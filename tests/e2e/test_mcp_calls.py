"""Every tools/call goes by one road, whatever the protocol era: a tool answers alike in each
(the era changes only the wire form), a call the SDK's transport refuses gets its refusal, and
the SDK itself runs no tool."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.e2e.test_mcp_support import HANDSHAKE, MODERN, McpHttp, bearer, envelope_meta, served
from tests.support.dataset import build_store
from tests.support.exposition import samples, series

from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap_memory
from schooldata.entrypoints.mcp_server.server import build_server

PUBLIC_CALLS: list[tuple[str, Any]] = [
    ("search_schools", {"query": "st mary", "limit": 2}),
    ("search_schools", {"colour": "blue"}),
    ("get_school", {"urn": "100001"}),
    ("get_school", {"urn": "999999"}),
    ("get_school", None),
]
KEYED_CALLS: list[tuple[str, Any]] = [
    ("search_schools", {"q": "oak", "per_page": 2}),
    ("compare_schools", {"urns": ["100001", "100002"]}),
    ("get_school_results", {"urn": "100001"}),
    ("get_school_rankings", {"query": "x"}),
]


@pytest.fixture(scope="module")
def app() -> Application:
    return bootstrap_memory(store=build_store())


@pytest.fixture(scope="module")
def client(app: Application, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:  # type: ignore[type-arg]
    yield from served(app, tmp_path_factory.mktemp("mcp-calls"))


def _call(name: Any, arguments: Any, request_id: Any = 7, *, modern: bool) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if modern:
        params["_meta"] = envelope_meta()
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _routing(name: Any, version: str) -> dict[str, str]:
    if version != MODERN:
        return {"MCP-Protocol-Version": version}
    return {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": str(name)}


def ask(
    caller: McpHttp, version: str, name: Any, arguments: Any, *, request_id: Any = 7, **headers: str
) -> httpx.Response:
    body = _call(name, arguments, request_id, modern=version == MODERN)
    return caller.post(body, {**_routing(name, version), **headers})


def _without_era(result: dict[str, Any]) -> dict[str, Any]:
    """A 2026-07-28 result without what only that era's results carry."""
    return {k: v for k, v in result.items() if k not in ("resultType", "_meta")}


@pytest.mark.parametrize("version", HANDSHAKE)
@pytest.mark.parametrize(("name", "arguments"), PUBLIC_CALLS)
def test_a_public_tool_answers_alike_in_every_era(
    client: TestClient,  # type: ignore[type-arg]
    version: str,
    name: str,
    arguments: Any,
) -> None:
    caller = McpHttp(client)
    modern, handshake = ask(caller, MODERN, name, arguments), ask(caller, version, name, arguments)
    assert modern.status_code == handshake.status_code == 200
    assert handshake.json()["result"] == _without_era(modern.json()["result"])
    assert modern.json()["result"]["resultType"] == "complete"


@pytest.mark.parametrize(("name", "arguments"), KEYED_CALLS)
def test_a_commercial_tool_answers_alike_in_every_era(
    client: TestClient,  # type: ignore[type-arg]
    app: Application,
    name: str,
    arguments: Any,
) -> None:
    caller = McpHttp(client, bearer(issue_key(app, "enterprise")))
    modern = ask(caller, MODERN, name, arguments)
    for version in HANDSHAKE:
        handshake = ask(caller, version, name, arguments)
        assert handshake.status_code == 200
        seen = handshake.json()["result"]
        expected = _without_era(modern.json()["result"])
        # (the request id inside a commercial answer is the request's own)
        assert seen["isError"] == expected["isError"]
        assert seen["content"][0] == expected["content"][0]
        assert set(seen["structuredContent"]) == set(expected["structuredContent"])
        assert handshake.headers["x-ratelimit-limit"] == modern.headers["x-ratelimit-limit"]


@pytest.mark.parametrize("version", [MODERN, *HANDSHAKE])
def test_an_unknown_tool_is_invalid_params_naming_the_callers_tools(
    client: TestClient,  # type: ignore[type-arg]
    version: str,
) -> None:
    response = ask(McpHttp(client), version, "get_school_results", {"urn": "100001"})
    assert response.status_code == (400 if version == MODERN else 200)
    error = response.json()["error"]
    assert error["code"] == -32602
    assert error["message"].startswith("Unknown tool: 'get_school_results'. Tools: ")
    assert "Commercial tools need 'Authorization: Bearer <key>'." in error["message"]
    assert error["data"] == {
        "tool": "get_school_results",
        "tools": ["search_schools", "get_school"],
    }


@pytest.mark.parametrize("version", [MODERN, *HANDSHAKE])
@pytest.mark.parametrize(("name", "arguments"), [(5, {}), (None, {}), ("get_school", [1, 2])])
def test_params_the_method_refuses_are_invalid_params_with_empty_data(
    client: TestClient,  # type: ignore[type-arg]
    version: str,
    name: Any,
    arguments: Any,
) -> None:
    headers = {"Mcp-Name": "get_school"} if name is None else {}
    response = ask(McpHttp(client), version, name, arguments, **headers)
    if version == MODERN and name == 5:  # (its Mcp-Name header "5" is no match for 5)
        assert response.json()["error"]["code"] == -32020
        return
    assert response.status_code == (400 if version == MODERN else 200)
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": -32602, "message": "Invalid request parameters", "data": ""},
    }


def test_an_id_that_is_no_request_id_is_each_transports_to_answer(
    client: TestClient,  # type: ignore[type-arg]
) -> None:
    caller = McpHttp(client)
    modern = ask(caller, MODERN, "get_school", {"urn": "100001"}, request_id=1.5)
    assert modern.status_code == 400
    assert modern.json()["error"]["code"] == -32600
    for version in HANDSHAKE:  # (read as a notification: acknowledged, nothing runs)
        handshake = ask(caller, version, "get_school", {"urn": "100001"}, request_id=1.5)
        assert handshake.status_code == 202


@pytest.mark.parametrize("version", [MODERN, *HANDSHAKE])
def test_a_client_that_accepts_no_json_is_406(
    client: TestClient,  # type: ignore[type-arg]
    version: str,
) -> None:
    caller = McpHttp(client)
    response = ask(caller, version, "get_school", {"urn": "100001"}, Accept="text/event-stream")
    assert response.status_code == 406


def test_the_handshake_transport_wants_application_json_itself_as_content_type(
    client: TestClient,  # type: ignore[type-arg]
) -> None:
    caller = McpHttp(client)
    odd = {"Content-Type": "application/json-seq"}
    assert ask(caller, MODERN, "get_school", {"urn": "100001"}, **odd).status_code == 200
    for version in HANDSHAKE:
        refused = ask(caller, version, "get_school", {"urn": "100001"}, **odd)
        assert refused.status_code == 415


def test_a_handshake_era_body_is_read_by_the_sdks_own_json_reader(
    client: TestClient,  # type: ignore[type-arg]
) -> None:
    """A lone surrogate: `json.loads` reads it, the handshake transport's reader does not."""
    body = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_school",'
    body += b'"arguments":{"urn":"\\ud800"}}}'
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    for version in HANDSHAKE:
        sent = {**headers, "MCP-Protocol-Version": version}
        response = client.post("/mcp", content=body, headers=sent)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == -32700


def test_the_sdk_server_runs_no_tool_yet_offers_tools(app: Application) -> None:
    server = build_server(app)
    assert server.get_request_handler("tools/call") is None
    assert server.get_capabilities().tools is not None


def test_handshake_era_calls_are_counted_by_tool_and_outcome(tmp_path: Path) -> None:
    app = bootstrap_memory(store=build_store())
    for client in served(app, tmp_path):
        caller = McpHttp(client)
        for version in HANDSHAKE:
            ask(caller, version, "get_school", {"urn": "100001"})
            ask(caller, version, "get_school", {"urn": "12"})
            ask(caller, version, "no_such_tool", {})
            ask(caller, version, 5, {})  # (invalid params: no tool was asked for)
        found = samples(client.get("/metrics").text)
    calls = "schooldata_mcp_calls_total"
    assert found[series(calls, tool="get_school", outcome="ok")] == len(HANDSHAKE)
    assert found[series(calls, tool="get_school", outcome="error")] == len(HANDSHAKE)
    assert found[series(calls, tool="unknown", outcome="rejected")] == len(HANDSHAKE)
