"""`/mcp` handed to the MCP endpoint before Litestar's router (rest/dispatch.py) answers every
request exactly as Litestar's route to the same endpoint does: statuses, headers, bodies,
errors and meter headers alike."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.e2e.test_mcp_support import envelope_meta, served
from tests.support.dataset import build_store
from tests.support.twins import LITESTAR_ROAD, dispatching_unless_told, seen

from schooldata.bootstrap import bootstrap_memory
from schooldata.entrypoints.rest import handing
from schooldata.entrypoints.rest.dispatch import RegistryGets

JSON_ACCEPT = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _modern(method: str, params: dict[str, Any], request_id: int = 3) -> tuple[Any, dict[str, str]]:
    routing = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    if method == "tools/call":
        routing["Mcp-Name"] = str(params["name"])
    body = {"jsonrpc": "2.0", "id": request_id, "method": method,
            "params": {**params, "_meta": envelope_meta()}}  # fmt: skip
    return body, {**JSON_ACCEPT, **routing}


REQUESTS: list[tuple[str, str, Any, dict[str, str], bool]] = [
    # (label, method, JSON body or raw bytes, headers, keyed)
    ("search", "POST", *_modern("tools/call", {"name": "search_schools",
                                                "arguments": {"query": "st mary"}}), False),
    ("search-keyed", "POST", *_modern("tools/call", {"name": "search_schools",
                                                      "arguments": {"query": "oak"}}), True),
    ("profile-keyed", "POST", *_modern("tools/call", {"name": "get_school_results",
                                                       "arguments": {"urn": "100001"}}), True),
    ("commercial-anonymous", "POST", *_modern("tools/call", {"name": "get_school_results",
                                                              "arguments": {"urn": "100001"}}), False),
    ("bad-arguments", "POST", *_modern("tools/call", {"name": "search_schools",
                                                       "arguments": {"colour": "blue"}}), False),
    ("tools-list", "POST", *_modern("tools/list", {}), True),
    ("discover", "POST", *_modern("server/discover", {}), False),
    ("initialize", "POST", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}, JSON_ACCEPT, False),
    ("get", "GET", None, {}, False),
    ("delete", "DELETE", None, {}, True),
    ("text-body", "POST", b"hello", {"Content-Type": "text/plain"}, False),
    ("broken-json", "POST", b"{", JSON_ACCEPT, False),
    ("no-accept", "POST", *_modern("tools/list", {})[:1], {"Content-Type": "application/json"},
     False),
    ("bad-key", "POST", *_modern("tools/list", {}), False),
]  # fmt: skip


class Twin:
    def __init__(self, mounted: TestClient, routed: TestClient, keys: tuple[str, str]) -> None:  # type: ignore[type-arg]
        self.mounted, self.routed, self.keys = mounted, routed, keys

    def both(
        self, method: str, body: Any, headers: dict[str, str], keyed: bool, label: str
    ) -> tuple[httpx.Response, httpx.Response]:
        answers = []
        for client, key in ((self.mounted, self.keys[0]), (self.routed, self.keys[1])):
            sent = dict(headers)
            if keyed:
                sent["Authorization"] = f"Bearer {key}"
            if label == "bad-key":
                sent["Authorization"] = "Bearer svc_live_" + "x" * 40
            content = body if isinstance(body, bytes) or body is None else json.dumps(body)
            answers.append(client.request(method, "/mcp", content=content, headers=sent))
        return answers[0], answers[1]


@pytest.fixture(scope="module")
def twin() -> Iterator[Twin]:
    first, second = bootstrap_memory(store=build_store()), bootstrap_memory(store=build_store())
    keys = (issue_key(first, "enterprise"), issue_key(second, "enterprise"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(RegistryGets, "__call__", dispatching_unless_told())
        for mounted in served(first, Path(tempfile.mkdtemp())):
            for routed in served(second, Path(tempfile.mkdtemp())):
                routed.headers[LITESTAR_ROAD] = "litestar"
                yield Twin(mounted, routed, keys)


@pytest.mark.parametrize(
    ("label", "method", "body", "headers", "keyed"), REQUESTS, ids=[r[0] for r in REQUESTS]
)
def test_mcp_answers_the_same_whether_mounted_or_routed(
    twin: Twin, label: str, method: str, body: Any, headers: dict[str, str], keyed: bool
) -> None:
    mounted, routed = twin.both(method, body, headers, keyed, label)
    assert seen(mounted) == seen(routed)


def test_the_mounted_road_is_taken_and_counts_its_route(
    twin: Twin, monkeypatch: pytest.MonkeyPatch
) -> None:
    handed: list[str] = []
    original = handing.handed

    async def recorded(endpoint: Any, scope: Any, receive: Any, send: Any) -> None:
        handed.append(scope["path"])
        await original(endpoint, scope, receive, send)

    monkeypatch.setattr(handing, "handed", recorded)
    body, headers = _modern("tools/list", {})
    twin.both("POST", body, headers, False, "tools-list")
    assert handed == ["/mcp"]  # the mounted twin only
    assert 'route="/mcp"' in twin.mounted.get("/metrics").text
