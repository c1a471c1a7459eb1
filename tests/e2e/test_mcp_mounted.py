"""`/mcp` is handed to the MCP endpoint by the edge, at that very path: its answers are the
endpoint's, and the metrics count them under the route `/mcp`."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from tests.e2e.test_mcp_support import envelope_meta, served
from tests.support.dataset import build_store

from schooldata.bootstrap import bootstrap_memory

HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/list",
}


def _tools_list() -> dict[str, Any]:
    params = {"_meta": envelope_meta()}
    return {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": params}


def test_a_call_to_the_mounted_endpoint_is_answered_and_counted_under_its_route() -> None:
    app = bootstrap_memory(store=build_store())
    for client in served(app, Path(tempfile.mkdtemp())):
        answer = client.post("/mcp", content=json.dumps(_tools_list()), headers=HEADERS)
        assert answer.status_code == 200
        assert answer.headers["x-request-id"].startswith("req_")
        assert any(tool["name"] == "search_schools" for tool in answer.json()["result"]["tools"])
        assert 'route="/mcp"' in client.get("/metrics").text
