"""Request bodies are read as sent and name each member once, on every face that reads one:
a `Content-Encoding` the service does not decode is 415 before the body is read, and a JSON
object that names a member twice is 400, never resolved to its last value (issue 51)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.e2e.test_mcp_support import TEST_BASE_URL
from tests.support.http import bearer

from schooldata.application.service import Application
from schooldata.bootstrap import build_asgi
from schooldata.settings import load_settings

MCP = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-06-18",
}
CALL = b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_school","arguments":{"urn":"100001"}}}'


@pytest.fixture
def served(app: Application, tmp_path: Path) -> Iterator[TestClient]:  # type: ignore[type-arg]
    settings = load_settings(environ={}, home=tmp_path, base_url=TEST_BASE_URL)
    with TestClient(app=build_asgi(app, settings), base_url=TEST_BASE_URL) as client:
        yield client


def used(app: Application, organisation: str) -> int:
    period = app.ports.clock.now().strftime("%Y-%m")
    return app.ports.quota.used(organisation=organisation, period=period)


@pytest.mark.parametrize("coding", ["gzip", "br", "deflate", "identity, gzip", "x-unknown"])
def test_a_body_in_a_coding_the_service_does_not_decode_is_415_in_the_tiers_shape(
    app: Application,
    served: TestClient,
    coding: str,  # type: ignore[type-arg]
) -> None:
    key = issue_key(app, "enterprise", org="codings")
    lookup = gzip.compress(b'{"urns": ["100001"]}')
    keyed = served.post(
        "/api/v1/schools/lookup",
        content=lookup,
        headers={**bearer(key), "Content-Type": "application/json", "Content-Encoding": coding},
    )
    assert keyed.status_code == 415, keyed.text
    error = keyed.json()["error"]
    assert error["code"] == "unsupported_content_encoding"
    assert error["request_id"] == keyed.headers["x-request-id"]
    assert keyed.headers["accept-encoding"] == "identity"
    mcp = served.post("/mcp", content=CALL, headers={**MCP, "Content-Encoding": coding})
    assert mcp.status_code == 415
    body = mcp.json()
    assert body["id"] is None and body["error"]["code"] == -32600
    assert body["error"]["data"]["code"] == "unsupported_content_encoding"
    public = served.get("/api/v1/search?query=st", headers={"Content-Encoding": coding})
    assert public.status_code == 415
    assert public.json()["code"] == "unsupported_content_encoding"
    assert used(app, "codings-enterprise") == 0  # refused before anything was counted


def test_an_uncoded_body_is_read_as_before(app: Application, served: TestClient) -> None:  # type: ignore[type-arg]
    key = issue_key(app, "enterprise")
    for headers in ({}, {"Content-Encoding": "identity"}):
        answer = served.post(
            "/api/v1/schools/lookup",
            content=b'{"urns": ["100001"]}',
            headers={**bearer(key), "Content-Type": "application/json", **headers},
        )
        assert answer.status_code == 200, answer.text
        assert served.post("/mcp", content=CALL, headers={**MCP, **headers}).status_code == 200


@pytest.mark.parametrize("path", ["/api/v1/schools/lookup", "/api/v1/schools/compare"])
def test_a_json_body_that_names_a_member_twice_is_400_on_rest(
    app: Application,
    served: TestClient,
    path: str,  # type: ignore[type-arg]
) -> None:
    key = issue_key(app, "enterprise")
    body = b'{"urns": ["100001", "100002"], "urns": ["100003", "100004"]}'
    answer = served.post(
        path, content=body, headers={**bearer(key), "Content-Type": "application/json"}
    )
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "invalid_parameter" and error["details"] == {"parameter": "body"}
    assert "'urns'" in error["message"]


@pytest.mark.parametrize(
    "body",
    [
        b'{"jsonrpc":"2.0","id":3,"method":"tools/list","method":"tools/call","params":{}}',
        b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_school",'
        b'"arguments":{"urn":"100001","urn":"100002"}}}',
    ],
)
def test_a_json_body_that_names_a_member_twice_is_400_on_mcp(
    served: TestClient,
    body: bytes,  # type: ignore[type-arg]
) -> None:
    answer = served.post("/mcp", content=body, headers=MCP)
    assert answer.status_code == 400, answer.text
    decoded: dict[str, Any] = answer.json()
    assert decoded["error"]["code"] == -32600
    assert decoded["id"] == 3
    assert "more than once" in decoded["error"]["message"]
    json.dumps(decoded)
