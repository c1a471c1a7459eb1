"""What REST decided, MCP does too: credentials checked the same way, refusals that carry the
meter readings, arguments read as sent, mistakes reported in the same order."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.e2e.test_mcp_support import MODERN, McpHttp, anonymous, envelope_meta, http
from tests.support.http import METER_HEADERS, bearer

from schooldata.application.service import Application

__all__ = ["anonymous", "http"]  # fixtures


def _code(result: dict[str, Any]) -> str:
    body = result["structuredContent"]
    return str(body["error"]["code"] if isinstance(body["error"], dict) else body["code"])


def _rest_code(response: Any) -> str:
    error = response.json()["error"]
    return str(error["code"] if isinstance(error, dict) else response.json()["code"])


@pytest.mark.parametrize("header", ["Authorization", "X-API-Key"])
def test_two_different_keys_in_one_header_conflict_on_mcp_as_on_rest(
    http: TestClient, app: Application, header: str
) -> None:
    first, second = issue_key(app, "developer"), issue_key(app, "professional")
    value = (lambda k: f"Bearer {k}") if header == "Authorization" else (lambda k: k)
    for headers in (
        [(header, value(first)), (header, value(second))],
        [(header, f"{value(first)}, {value(second)}")],
    ):
        response = http.post(
            "/mcp",
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/list",
                "params": {"_meta": envelope_meta()},
            },
            headers=[
                ("Content-Type", "application/json"),
                ("Accept", "application/json, text/event-stream"),
                ("MCP-Protocol-Version", MODERN),
                ("Mcp-Method", "tools/list"),
                *headers,
            ],
        )
        assert response.status_code == 401, response.text
        assert response.json()["error"]["code"] == "conflicting_credentials"
        # The message names the header that carries two keys, not the other one.
        assert response.json()["error"]["message"].startswith(f"'{header}' carries different")


def test_a_keyed_callers_refusals_carry_the_meter_readings(
    http: TestClient, app: Application
) -> None:
    keyed = McpHttp(http, bearer(issue_key(app)))
    refusals = [
        http.get("/mcp", headers=keyed.headers),
        keyed.post(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, {"Content-Type": "text/plain"}
        ),
        keyed.post(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/list",
                "params": {"_meta": envelope_meta()},
            },
            {"Mcp-Method": "tools/list"},  # a stateless-era _meta without its version header
        ),
    ]
    assert [r.status_code for r in refusals] == [405, 400, 400]
    for response in refusals:
        assert set(METER_HEADERS) <= set(response.headers), response.headers
    assert refusals[1].json()["error"]["code"] == -32600  # JSON-RPC, not plain text


def test_the_public_query_counts_its_text_as_sent_on_mcp_as_on_rest(
    http: TestClient, anonymous: McpHttp
) -> None:
    result = anonymous.call("search_schools", {"query": " a"})
    rest = http.get("/api/v1/search", params={"query": " a"})
    assert result["isError"] is False and rest.status_code == 200
    assert result["structuredContent"]["total"] == rest.json()["total"]


@pytest.mark.parametrize(
    ("tool", "path", "arguments"),
    [
        ("find_schools_near_location", "/api/v1/schools/nearby", {"zz": "1"}),
        ("search_schools", "/api/v1/schools/search", {"zz": "1"}),
        ("get_school_rankings", "/api/v1/rankings", {"zz": "1"}),
        ("search_schools", "/api/v1/schools/search", {"q": "st", "per_page": "101", "zz": "1"}),
        (
            "get_school_rankings",
            "/api/v1/rankings",
            {"metric": "svc_score", "phase": "infant", "per_page": "101"},
        ),
        (
            "find_schools_near_location",
            "/api/v1/schools/nearby",
            {"postcode": "SW1A 1AA", "sort": "bogus", "per_page": "101"},
        ),
    ],
)
def test_a_mistake_is_reported_with_the_same_code_on_mcp_and_rest(
    http: TestClient, app: Application, tool: str, path: str, arguments: dict[str, str]
) -> None:
    key = issue_key(app, "professional")  # (rankings are in the professional plan)
    rest = http.get(path, params=arguments, headers=bearer(key))
    mcp_arguments: dict[str, Any] = {
        name: int(value) if name == "per_page" else value for name, value in arguments.items()
    }
    result = McpHttp(http, bearer(key)).call(tool, mcp_arguments)
    assert rest.status_code == 400
    assert result["isError"] is True
    assert _code(result) == _rest_code(rest)


def test_a_urn_sent_as_an_integral_float_is_that_urn(http: TestClient, app: Application) -> None:
    keyed = McpHttp(http, bearer(issue_key(app, "professional")))
    assert keyed.call("get_school", {"urn": 100002.0})["isError"] is False
    compared = keyed.call("compare_schools", {"urns": [100002.0, "100004"]})
    assert compared["isError"] is False


@pytest.mark.parametrize(
    ("body", "version"),
    [
        ("{}", None),
        ("[]", None),
        ('[{"jsonrpc":"2.0","id":1,"method":"ping"}]', "2025-06-18"),
        ('{"jsonrpc":"2.0","id":1}', "2025-11-25"),
        ('{"id":1,"method":"ping"}', "2025-03-26"),
    ],
)
def test_json_that_is_no_json_rpc_message_is_an_invalid_request_in_every_era(
    http: TestClient, body: str, version: str | None
) -> None:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if version is not None:
        headers["MCP-Protocol-Version"] = version
    response = http.post("/mcp", content=body, headers=headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600
    assert "validation error" not in response.text.lower()
