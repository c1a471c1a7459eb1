"""A key sent anywhere in an MCP request never comes back beyond its display prefix: the version
header, the method, the tool name, the arguments (names and values), the request id, the
`_meta` version, the routing headers; anonymous or keyed, 2026-07-28 or a handshake era, the
SDK's answers and this server's alike (`domain.errors.without_keys`, REST's rule, at the MCP
endpoint's one way out)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient
from tests.e2e.test_mcp_support import HANDSHAKE, MODERN, envelope_meta, http

from schooldata.application.service import Application

__all__ = ["http"]  # fixtures

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
Ask = Callable[[str], tuple[dict[str, Any], dict[str, str]]]


def modern(
    method: str, params: dict[str, Any], **headers: str
) -> tuple[dict[str, Any], dict[str, str]]:
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": method,
        "params": {**params, "_meta": envelope_meta()},
    }
    routing = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if method == "tools/call":
        routing["Mcp-Name"] = str(params["name"])
    return body, {**routing, **headers}


def handshake(
    method: str, params: dict[str, Any], **headers: str
) -> tuple[dict[str, Any], dict[str, str]]:
    body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}
    return body, {"MCP-Protocol-Version": HANDSHAKE[1], **headers}


def _version_header(key: str) -> tuple[dict[str, Any], dict[str, str]]:
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}
    return body, {"MCP-Protocol-Version": key}


def _version_header_and_meta(key: str) -> tuple[dict[str, Any], dict[str, str]]:
    body, headers = modern("tools/list", {})
    return body, {**headers, "MCP-Protocol-Version": key}


def _meta_version(key: str) -> tuple[dict[str, Any], dict[str, str]]:
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/list",
        "params": {"_meta": {**envelope_meta(), "io.modelcontextprotocol/protocolVersion": key}},
    }
    return body, {}


def _meta_version_and_header(key: str) -> tuple[dict[str, Any], dict[str, str]]:
    body, _ = _meta_version(key)
    return body, {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"}


def _method(key: str) -> tuple[dict[str, Any], dict[str, str]]:
    return modern(key, {})


def _method_handshake(key: str) -> tuple[dict[str, Any], dict[str, str]]:
    return handshake(key, {})


def _method_header(key: str) -> tuple[dict[str, Any], dict[str, str]]:
    return modern("tools/list", {}, **{"Mcp-Method": key})


def _tool_name(key: str) -> tuple[dict[str, Any], dict[str, str]]:
    return modern("tools/call", {"name": key, "arguments": {}})


def _tool_name_handshake(key: str) -> tuple[dict[str, Any], dict[str, str]]:
    return handshake("tools/call", {"name": key, "arguments": {}})


def _name_header(key: str) -> tuple[dict[str, Any], dict[str, str]]:
    return modern(
        "tools/call", {"name": "get_school", "arguments": {"urn": "100001"}}, **{"Mcp-Name": key}
    )


def _argument_value(key: str) -> tuple[dict[str, Any], dict[str, str]]:
    return modern("tools/call", {"name": "get_school", "arguments": {"urn": key}})


def _argument_value_handshake(key: str) -> tuple[dict[str, Any], dict[str, str]]:
    return handshake(
        "tools/call", {"name": "search_schools", "arguments": {"query": "st", "phase": key}}
    )


def _argument_name(key: str) -> tuple[dict[str, Any], dict[str, str]]:
    return modern("tools/call", {"name": "search_schools", "arguments": {"query": "st", key: 1}})


def _search_query(key: str) -> tuple[dict[str, Any], dict[str, str]]:
    return modern("tools/call", {"name": "search_schools", "arguments": {"query": key}})


def _request_id(key: str) -> tuple[dict[str, Any], dict[str, str]]:
    body, headers = handshake("no/such/method", {})
    return {**body, "id": key}, headers


PLACES: dict[str, Callable[[str], tuple[dict[str, Any], dict[str, str]]]] = {
    "the version header": _version_header,
    "the version header beside a _meta version": _version_header_and_meta,
    "the _meta version": _meta_version,
    "the _meta version beside the header": _meta_version_and_header,
    "the method": _method,
    "the method, handshake era": _method_handshake,
    "the Mcp-Method header": _method_header,
    "the tool name": _tool_name,
    "the tool name, handshake era": _tool_name_handshake,
    "the Mcp-Name header": _name_header,
    "an argument's value": _argument_value,
    "an argument's value, handshake era": _argument_value_handshake,
    "an argument's name": _argument_name,
    "the search's question": _search_query,
    "the request id": _request_id,
}


@pytest.mark.parametrize("keyed", [False, True], ids=["anonymous", "keyed"])
@pytest.mark.parametrize("place", sorted(PLACES))
def test_a_key_sent_anywhere_in_an_mcp_request_comes_back_as_its_display_prefix_at_most(
    app: Application,
    http: TestClient,
    place: str,
    keyed: bool,  # type: ignore[type-arg]
) -> None:
    issued = app.keys.create_key(organisation="echo", name="t", plan="enterprise").key
    sent = issued if keyed else "svc_live_" + "Q" * 38  # a pasted key, not the caller's
    body, headers = PLACES[place](sent)
    if keyed:
        headers = {**headers, "Authorization": f"Bearer {issued}"}
    response = http.post("/mcp", content=json.dumps(body).encode(), headers={**HEADERS, **headers})
    shown = _everything(response)
    assert sent[13:] not in shown, f"{place}: the key echoed ({response.status_code}): {shown}"
    assert not any(sent[i : i + 8] in shown for i in range(13, len(sent) - 7)), shown
    assert response.headers["content-length"] == str(len(response.content))
    if response.status_code < 500 and response.headers.get("content-type", "").startswith(
        "application/json"
    ):
        response.json()  # still JSON


def test_the_display_prefix_is_what_an_echo_shows(http: TestClient) -> None:  # type: ignore[type-arg]
    key = "svc_test_" + "Ab12" + "x" * 34
    body, headers = _method_handshake(key)
    answer = http.post("/mcp", content=json.dumps(body).encode(), headers={**HEADERS, **headers})
    assert answer.json()["error"]["data"] == "svc_test_Ab12..."


def _everything(response: httpx.Response) -> str:
    return response.text + "\n" + "\n".join(f"{k}: {v}" for k, v in response.headers.multi_items())
