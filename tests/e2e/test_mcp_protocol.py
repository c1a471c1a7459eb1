"""The MCP endpoint's protocol surface: one URL, 2026-07-28 and the handshake eras, per request."""

from __future__ import annotations

import json

import pytest
from litestar.testing import TestClient
from tests.e2e.test_mcp_support import (
    ALL_VERSIONS,
    CLIENT_INFO,
    HANDSHAKE,
    MODERN,
    PUBLIC_TOOLS,
    McpHttp,
    anonymous,
    envelope_meta,
    http,
)

__all__ = ["anonymous", "http"]  # fixtures

DISCOVERY_HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "server/discover",
}
ADVERTISED = {
    "tools": {"listChanged": False},
    "prompts": {"listChanged": False},  # none: an empty list
    "resources": {"listChanged": False, "subscribe": False},  # none: empty lists
}
DISCOVERY_BODY = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "server/discover",
    "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "example-client", "version": "1.0.0"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    },
}


def test_the_discovery_request_of_the_description_succeeds(http: TestClient) -> None:
    response = http.post("/mcp", json=DISCOVERY_BODY, headers=DISCOVERY_HEADERS)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.headers["x-request-id"].startswith("req_")
    body = response.json()
    assert body["id"] == 1
    result = body["result"]
    assert result["resultType"] == "complete"
    assert set(ALL_VERSIONS) <= set(result["supportedVersions"])
    assert result["capabilities"] == ADVERTISED  # no logging, completions or subscriptions
    assert result["instructions"]
    assert result["ttlMs"] > 0
    assert result["cacheScope"] == "public"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "schooldata"
    assert "mcp-session-id" not in response.headers


def test_a_tool_list_depends_on_credentials_so_it_is_cached_privately(anonymous: McpHttp) -> None:
    result = anonymous.modern("tools/list").json()["result"]
    assert result["resultType"] == "complete"
    assert result["cacheScope"] == "private"
    assert result["ttlMs"] > 0


@pytest.mark.parametrize(
    "headers",
    [
        {"Mcp-Method": ""},  # sent empty
        {"Mcp-Method": "tools/list"},  # says another method
    ],
)
def test_a_missing_or_mismatched_method_header_is_400_header_mismatch(
    http: TestClient, headers: dict[str, str]
) -> None:
    sent = {**DISCOVERY_HEADERS, **headers}
    response = http.post("/mcp", json=DISCOVERY_BODY, headers=sent)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32020


def test_an_absent_method_header_is_400_header_mismatch(http: TestClient) -> None:
    sent = {k: v for k, v in DISCOVERY_HEADERS.items() if k != "Mcp-Method"}
    response = http.post("/mcp", json=DISCOVERY_BODY, headers=sent)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32020


def test_a_version_header_that_disagrees_with_meta_is_400_header_mismatch(
    http: TestClient,
) -> None:
    sent = {**DISCOVERY_HEADERS, "MCP-Protocol-Version": "2099-01-01"}
    response = http.post("/mcp", json=DISCOVERY_BODY, headers=sent)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32020


def test_a_mismatched_name_header_on_tools_call_is_400(anonymous: McpHttp) -> None:
    params = {"name": "get_school", "arguments": {"urn": "100001"}}
    response = anonymous.modern("tools/call", params, **{"Mcp-Name": "search_schools"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32020


@pytest.mark.parametrize("requested", ["2099-01-01", "2024-11-05"])
def test_an_unsupported_version_is_400_naming_every_served_version(
    http: TestClient, requested: str
) -> None:
    body = {**DISCOVERY_BODY, "params": {"_meta": envelope_meta(requested)}}
    sent = {**DISCOVERY_HEADERS, "MCP-Protocol-Version": requested}
    response = http.post("/mcp", json=body, headers=sent)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32022
    assert error["data"]["requested"] == requested
    assert error["data"]["supported"] == list(ALL_VERSIONS)
    assert int(response.headers["content-length"]) == len(response.content)


def test_an_unknown_method_is_404_method_not_found(anonymous: McpHttp) -> None:
    response = anonymous.modern("schools/list")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == -32601
    assert anonymous.modern("ping").status_code == 404  # ping exists only in the handshake eras


def test_a_request_without_meta_is_400_invalid_params(http: TestClient) -> None:
    body = {"jsonrpc": "2.0", "id": 7, "method": "server/discover", "params": {}}
    response = http.post("/mcp", json=body, headers=DISCOVERY_HEADERS)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32602
    assert "_meta" in error["message"]


def test_an_unknown_tool_is_a_protocol_error_not_a_tool_result(anonymous: McpHttp) -> None:
    response = anonymous.modern("tools/call", {"name": "no_such_tool", "arguments": {}})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32602


def test_a_commercial_tool_called_without_a_key_is_unknown_and_says_why(
    anonymous: McpHttp,
) -> None:
    response = anonymous.modern(
        "tools/call", {"name": "get_school_results", "arguments": {"urn": "100001"}}
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32602
    assert "Authorization: Bearer" in error["message"]
    assert set(error["data"]["tools"]) == PUBLIC_TOOLS


@pytest.mark.parametrize("version", HANDSHAKE)
def test_the_handshake_eras_initialize_list_and_call_on_the_same_url(
    anonymous: McpHttp, version: str
) -> None:
    init = anonymous.initialize(version)
    assert init.status_code == 200
    result = init.json()["result"]
    assert result["protocolVersion"] == version
    assert result["capabilities"] == ADVERTISED
    assert result["serverInfo"]["name"] == "schooldata"
    assert "mcp-session-id" not in init.headers  # stateless: no session to keep
    assert anonymous.legacy("notifications/initialized", version=version).status_code == 202

    listed = anonymous.legacy("tools/list", {}, version=version)
    assert listed.status_code == 200
    assert {t["name"] for t in listed.json()["result"]["tools"]} == PUBLIC_TOOLS

    called = anonymous.legacy(
        "tools/call",
        {"name": "get_school", "arguments": {"urn": "100001"}},
        version=version,
    )
    assert called.status_code == 200
    tool_result = called.json()["result"]
    assert tool_result["isError"] is False
    assert tool_result["structuredContent"]["urn"] == 100001
    assert "resultType" not in tool_result  # a 2026-07-28 field, not sent to older clients

    assert anonymous.legacy("ping", version=version).json()["result"] == {}


def test_handshake_era_protocol_errors_travel_in_200_responses(anonymous: McpHttp) -> None:
    unknown_tool = anonymous.legacy(
        "tools/call", {"name": "no_such_tool", "arguments": {}}, version="2025-06-18"
    )
    assert unknown_tool.status_code == 200
    assert unknown_tool.json()["error"]["code"] == -32602
    unknown_method = anonymous.legacy("schools/list", {}, version="2025-06-18")
    assert unknown_method.json()["error"]["code"] == -32601


def test_initialize_for_a_version_we_do_not_serve_is_offered_our_newest(
    anonymous: McpHttp,
) -> None:
    result = anonymous.initialize("2024-11-05").json()["result"]
    assert result["protocolVersion"] == "2025-11-25"


def test_the_era_is_chosen_per_request(anonymous: McpHttp) -> None:
    assert anonymous.initialize("2025-06-18").status_code == 200
    assert anonymous.modern("tools/list").json()["result"]["resultType"] == "complete"
    legacy = anonymous.legacy("tools/list", {}, version="2025-06-18").json()["result"]
    assert "resultType" not in legacy


@pytest.mark.parametrize(
    ("method", "listed"),
    [
        ("prompts/list", "prompts"),
        ("resources/list", "resources"),
        ("resources/templates/list", "resourceTemplates"),
    ],
)
def test_what_is_advertised_is_answered_with_empty_lists_and_cache_hints(
    anonymous: McpHttp, method: str, listed: str
) -> None:
    result = anonymous.modern(method).json()["result"]
    assert result[listed] == []
    assert result["resultType"] == "complete"
    assert result["cacheScope"] == "public"  # empty for everyone
    assert result["ttlMs"] > 0
    legacy = anonymous.legacy(method, {}, version="2025-11-25").json()["result"]
    assert legacy[listed] == []


def test_no_prompt_or_resource_exists_so_getting_one_is_invalid_params(
    anonymous: McpHttp,
) -> None:
    prompt = anonymous.modern("prompts/get", {"name": "summary"}, **{"Mcp-Name": "summary"})
    assert prompt.status_code == 400
    assert prompt.json()["error"]["code"] == -32602
    assert prompt.json()["error"]["data"] == {"name": "summary"}
    uri = "schooldata://schools/100001"
    resource = anonymous.modern("resources/read", {"uri": uri}, **{"Mcp-Name": uri})
    assert resource.status_code == 400
    assert resource.json()["error"]["code"] == -32602
    assert resource.json()["error"]["data"] == {"uri": uri}


@pytest.mark.parametrize("method", ["server/discover", "tools/list", "tools/call"])
def test_a_stateless_era_meta_without_its_version_header_is_400_header_mismatch(
    http: TestClient, method: str
) -> None:
    params: dict[str, object] = {"_meta": envelope_meta()}
    headers = {k: v for k, v in DISCOVERY_HEADERS.items() if k != "MCP-Protocol-Version"}
    headers["Mcp-Method"] = method
    if method == "tools/call":
        params.update(name="get_school", arguments={"urn": "100001"})
        headers["Mcp-Name"] = "get_school"
    body = {"jsonrpc": "2.0", "id": 41, "method": method, "params": params}
    response = http.post("/mcp", json=body, headers=headers)
    assert response.status_code == 400
    answer = response.json()
    assert answer["id"] == 41
    assert answer["error"]["code"] == -32020
    assert "MCP-Protocol-Version" in answer["error"]["message"]


def test_neither_version_header_nor_meta_is_the_2025_03_26_era(http: TestClient) -> None:
    body = {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    response = http.post("/mcp", json=body, headers=headers)
    assert response.status_code == 200
    assert {t["name"] for t in response.json()["result"]["tools"]} == PUBLIC_TOOLS


@pytest.mark.parametrize("requested", ["garbage", "2099-01-01"])
def test_an_unknown_version_header_without_meta_is_unsupported_not_a_missing_meta(
    http: TestClient, requested: str
) -> None:
    body = {"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {}}
    headers = {**DISCOVERY_HEADERS, "MCP-Protocol-Version": requested, "Mcp-Method": "tools/list"}
    response = http.post("/mcp", json=body, headers=headers)
    assert response.status_code == 400
    answer = response.json()
    assert answer["id"] == 9
    assert answer["error"]["code"] == -32022
    assert answer["error"]["data"] == {"supported": list(ALL_VERSIONS), "requested": requested}


def test_an_unknown_version_in_both_header_and_meta_is_unsupported(http: TestClient) -> None:
    body = {**DISCOVERY_BODY, "params": {"_meta": envelope_meta("2099-01-01")}}
    sent = {**DISCOVERY_HEADERS, "MCP-Protocol-Version": "2099-01-01"}
    response = http.post("/mcp", json=body, headers=sent)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32022


@pytest.mark.parametrize(
    "headers",
    [
        {"MCP-Protocol-Version": "2024-11-05"},
        {"MCP-Protocol-Version": "garbage"},
        {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"},  # mismatched
        {"Content-Type": "text/plain"},
    ],
)
def test_bad_credentials_are_401_before_any_protocol_check(
    http: TestClient, headers: dict[str, str]
) -> None:
    sent = {**DISCOVERY_HEADERS, "Authorization": "Bearer svc_live_not-a-key", **headers}
    response = http.post("/mcp", json=DISCOVERY_BODY, headers=sent)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_api_key"


def test_bad_credentials_on_a_get_are_401_not_405(http: TestClient) -> None:
    response = http.get("/mcp", headers={"X-API-Key": "svc_live_not-a-key"})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_api_key"
    assert response.headers["www-authenticate"].startswith("Bearer")


def test_only_post_is_served(http: TestClient) -> None:
    for method in ("GET", "DELETE", "PUT"):
        response = http.request(method, "/mcp", headers={"Accept": "text/event-stream"})
        assert response.status_code == 405
        assert response.headers["allow"] == "POST"


def test_dns_rebinding_protection_is_on_with_a_deliberate_allow_list(http: TestClient) -> None:
    hostile_host = http.post(
        "/mcp", json=DISCOVERY_BODY, headers={**DISCOVERY_HEADERS, "Host": "evil.example"}
    )
    assert hostile_host.status_code == 421
    hostile_origin = http.post(
        "/mcp",
        json=DISCOVERY_BODY,
        headers={**DISCOVERY_HEADERS, "Origin": "http://evil.example"},
    )
    assert hostile_origin.status_code == 403
    for host in ("localhost:8000", "127.0.0.1:51234", "testserver.local"):
        allowed = http.post(
            "/mcp", json=DISCOVERY_BODY, headers={**DISCOVERY_HEADERS, "Host": host}
        )
        assert allowed.status_code == 200, host


def test_a_notification_is_acknowledged_with_202(http: TestClient) -> None:
    body = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    headers = {**DISCOVERY_HEADERS, "Mcp-Method": "notifications/cancelled"}
    assert http.post("/mcp", json=body, headers=headers).status_code == 202


@pytest.mark.parametrize("method_header", [None, "", "notifications/progress"])
def test_a_notification_without_its_method_header_is_400_header_mismatch(
    http: TestClient, method_header: str | None
) -> None:
    body = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    headers = {k: v for k, v in DISCOVERY_HEADERS.items() if k != "Mcp-Method"}
    if method_header is not None:
        headers["Mcp-Method"] = method_header
    response = http.post("/mcp", json=body, headers=headers)
    assert response.status_code == 400
    answer = response.json()
    assert answer["id"] is None  # a notification has none
    assert answer["error"]["code"] == -32020


def test_client_info_is_optional_in_meta(http: TestClient) -> None:
    meta = {k: v for k, v in envelope_meta(MODERN).items() if "clientInfo" not in k}
    body = {**DISCOVERY_BODY, "params": {"_meta": meta}}
    assert http.post("/mcp", json=body, headers=DISCOVERY_HEADERS).status_code == 200
    assert CLIENT_INFO  # the helper sends it by default


@pytest.mark.parametrize("chunked", [False, True])
def test_a_body_over_the_limit_is_413_with_a_json_rpc_error(
    http: TestClient, chunked: bool
) -> None:
    padding = "x" * (64 * 1024)
    body = {**DISCOVERY_BODY, "params": {**DISCOVERY_BODY["params"], "padding": padding}}
    raw = json.dumps(body).encode()
    content = iter([raw[:1000], raw[1000:]]) if chunked else raw
    response = http.post("/mcp", content=content, headers=DISCOVERY_HEADERS)
    assert response.status_code == 413
    assert response.headers["content-type"] == "application/json"
    assert int(response.headers["content-length"]) == len(response.content)
    answer = response.json()
    assert answer["jsonrpc"] == "2.0" and answer["id"] is None
    assert answer["error"]["code"] == -32600
    assert answer["error"]["data"]["code"] == "payload_too_large"
    assert answer["error"]["data"]["request_id"] == response.headers["x-request-id"]
