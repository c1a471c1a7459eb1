"""JSON-RPC over HTTP to `/mcp`, right and wrong, in every protocol era, by every kind of
caller: what each gets back (status, headers, body) is the MCP contract as clients see it.

`baseline/mcp_answers.json` holds these answers; `test_mcp_answers_unchanged.py` asks again.
Request ids are made anonymous as in `http_corpus`; keys come from counted ids and show as
sent back."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from litestar.testing import TestClient
from tests.contract.http_corpus import application, seen

from schooldata.bootstrap import build_asgi
from schooldata.settings import load_settings

MODERN = "2026-07-28"
LEGACY = "2025-06-18"
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "corpus", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
CALLS: list[tuple[str, Any]] = [
    ("search_schools", {"query": "Oak"}),
    ("search_schools", {"postcode": "SW1A 1AA", "radius_miles": 2, "limit": 2}),
    ("search_schools", {"q": "oak", "per_page": 2}),
    ("search_schools", {"query": "x"}),
    ("search_schools", {"colour": "blue"}),
    ("search_schools", {}),
    ("search_schools", "not an object"),
    ("get_school", {"urn": "100001"}),
    ("get_school", {"urn": 100001}),
    ("get_school", {"urn": "999999"}),
    ("get_school", {"urn": "svc_live_abcdefghijklmnopqrstuvwxyz0123456789AB"}),
    ("find_schools_near_location", {"postcode": "SW1A 1AA", "radius_miles": 1, "per_page": 2}),
    ("compare_schools", {"urns": ["100001", "100002"]}),
    ("get_school_inspection_history", {"urn": "100001"}),
    ("get_school_results", {"urn": "100001"}),
    ("get_school_admissions", {"urn": "100001"}),
    ("get_school_finances", {"urn": "100001"}),
    ("get_school_data_freshness", {}),
    ("get_school_rankings", {"metric": "svc_score", "phase": "secondary", "per_page": 2}),
    ("no_such_tool", {}),
]

Case = tuple[str, bytes, dict[str, str]]  # method, body, headers


def _modern(
    method: str, params: dict[str, Any] | None, request_id: Any = 1, **headers: str
) -> Case:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if request_id is not None:
        message["id"] = request_id
    message["params"] = {**(params or {}), "_meta": META}
    routing = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if method == "tools/call" and params:
        routing["Mcp-Name"] = str(params.get("name"))
    return "POST", json.dumps(message).encode(), {**JSON_HEADERS, **routing, **headers}


def _legacy(method: str, params: dict[str, Any] | None, request_id: Any = 1) -> Case:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return "POST", json.dumps(message).encode(), {**JSON_HEADERS, "MCP-Protocol-Version": LEGACY}


def cases() -> Iterator[tuple[str, Case]]:
    yield "modern discover", _modern("server/discover", {})
    yield "modern tools/list", _modern("tools/list", {})
    for number, (name, arguments) in enumerate(CALLS):
        call = {"name": name, "arguments": arguments}
        yield f"modern call {number} {name}", _modern("tools/call", call)
        yield f"legacy call {number} {name}", _legacy("tools/call", call)
    call = {"name": "get_school", "arguments": {"urn": "100001"}}
    yield "modern call string id", _modern("tools/call", call, request_id="abc")
    yield "modern call no name header", _modern("tools/call", call, **{"Mcp-Name": ""})
    yield "modern call other name header", _modern("tools/call", call, **{"Mcp-Name": "x"})
    yield "modern call other method header", _modern("tools/call", call, **{"Mcp-Method": "x"})
    yield (
        "modern call key as version",
        _modern(
            "tools/call",
            call,
            **{"MCP-Protocol-Version": "svc_live_abcdefghijklmnopqrstuvwxyz0123"},
        ),
    )
    yield (
        "modern call old version",
        _modern("tools/call", call, **{"MCP-Protocol-Version": "2024-11-05"}),
    )
    yield "modern call no accept", _modern("tools/call", call, Accept="text/html")
    yield "modern notification", _modern("notifications/initialized", {}, request_id=None)
    yield "modern ping", _modern("ping", {})
    yield "modern prompts/list", _modern("prompts/list", {})
    yield "modern unknown method", _modern("svc_live_abcdefghijklmnopqrstuvwxyz0123/x", {})
    yield (
        "legacy initialize",
        _legacy(
            "initialize",
            {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "c", "version": "1"},
            },
        ),
    )
    yield "legacy tools/list", _legacy("tools/list", {})
    yield "legacy ping", _legacy("ping", None)
    yield "batch", ("POST", b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', JSON_HEADERS)
    yield "not json", ("POST", b"{nope", {**JSON_HEADERS, "MCP-Protocol-Version": MODERN})
    yield "wrong content type", ("POST", b"{}", {"Content-Type": "text/plain"})
    yield "get", ("GET", b"", {"Accept": "text/event-stream"})
    yield "delete", ("DELETE", b"", {})


WHO = ("anonymous", "keyed", "developer", "bad-key")


def ask_all() -> dict[str, Any]:
    app = application()
    settings = load_settings({}, home=Path(tempfile.mkdtemp()), base_url="http://testserver.local")
    answers: dict[str, Any] = {}
    with TestClient(app=build_asgi(app, settings)) as client:
        for who in WHO:
            for number, (name, (method, body, headers)) in enumerate(cases()):
                sent = dict(headers)
                if who in ("keyed", "developer"):
                    plan = "enterprise" if who == "keyed" else "developer"
                    key = app.keys.create_key(organisation=plan, name=f"m{number}", plan=plan).key
                    sent["Authorization"] = f"Bearer {key}"
                elif who == "bad-key":
                    sent["Authorization"] = "Bearer svc_live_nope"
                response = client.request(method, "/mcp", content=body, headers=sent)
                answers[f"{who} {name}"] = seen(response)
    return answers
