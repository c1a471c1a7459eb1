"""Keys, metering and the metering headers on the MCP endpoint (DECISIONS: Authentication 6,
Metering)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from attrs import evolve
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.e2e.test_mcp_support import (
    FixedClock,
    McpHttp,
    anonymous,
    bearer,
    http,
    served,
    used,
)
from tests.support.dataset import build_store
from tests.support.http import METER_HEADERS

from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap_memory
from schooldata.domain.plans import DEFAULT_PLANS, PlanCatalogue

__all__ = ["anonymous", "http"]  # fixtures

NOW = dt.datetime(2026, 11, 20, 12, 0, 0, 500_000, tzinfo=dt.UTC)


def test_only_accepted_tool_calls_are_metered(http: TestClient, app: Application) -> None:
    key = issue_key(app, "developer")
    mcp = McpHttp(http, bearer(key))
    before = used(app, "acme-developer")
    # Never metered: discovery, listing, the handshake, ping.
    for _ in range(3):
        assert mcp.modern("server/discover").status_code == 200
        mcp.tools()
        assert mcp.initialize("2025-06-18").status_code == 200
        assert mcp.legacy("tools/list", {}, version="2025-06-18").status_code == 200
        assert mcp.legacy("ping", version="2025-06-18").status_code == 200
    # Refused before running: not in the plan, arguments invalid, unknown tool.
    assert mcp.call("get_school_results", {"urn": "100001"})["isError"] is True
    assert mcp.call("get_school", {"urn": "12345"})["isError"] is True
    assert mcp.call("search_schools", {"q": "school", "per_page": 500})["isError"] is True
    assert mcp.call("search_schools", {"q": "school", "bogus": 1})["isError"] is True
    assert mcp.modern("tools/call", {"name": "nope", "arguments": {}}).status_code == 400
    assert used(app, "acme-developer") == before
    # Accepted: each consumes exactly one use, whatever it found.
    accepted: list[tuple[str, dict[str, object]]] = [
        ("get_school", {"urn": "100001"}),
        ("get_school", {"urn": "999999"}),  # ran, found nothing: still metered
        ("search_schools", {"q": "st mary", "per_page": 2}),
        ("find_schools_near_location", {"postcode": "ZZ9 9ZZ"}),  # ran: unknown postcode
    ]
    for name, arguments in accepted:
        mcp.call(name, arguments)
    legacy = mcp.legacy(
        "tools/call", {"name": "get_school_data_freshness", "arguments": {}}, version="2025-03-26"
    )
    assert legacy.json()["result"]["isError"] is False
    assert used(app, "acme-developer") == before + len(accepted) + 1


# Every argument rule is checked before a use is consumed, cross-argument rules and the
# URN's exact six digits included (a trailing newline once slipped past a `$` anchor).
REFUSED_FOR_THEIR_ARGUMENTS: list[tuple[str, dict[str, Any], str, str]] = [
    ("find_schools_near_location", {}, "invalid_parameter", "postcode"),
    ("find_schools_near_location", {"latitude": 51.5}, "invalid_parameter", "latitude"),
    (
        "find_schools_near_location",
        {"postcode": "SW1A 1AA", "latitude": 51.5, "longitude": -0.1},
        "invalid_parameter",
        "postcode",
    ),
    ("find_schools_near_location", {"radius_miles": 1}, "invalid_parameter", "postcode"),
    ("search_schools", {"q": "st", "sort": "distance"}, "invalid_parameter", "sort"),
    (
        "find_schools_near_location",
        {"postcode": "SW1A 1AA", "sort": "relevance"},
        "invalid_parameter",
        "sort",
    ),
    ("find_schools_near_location", {"postcode": "not a postcode"}, "invalid_parameter", "postcode"),
    ("get_school", {"urn": "100004\n"}, "invalid_urn", "urn"),
    ("get_school_results", {"urn": 12345}, "invalid_urn", "urn"),
    ("compare_schools", {"urns": ["100004", "100484\n"]}, "invalid_urn", "urns"),
    ("compare_schools", {"urns": ["100004", 100004]}, "invalid_parameter", "urns"),
    ("search_schools", {"q": "st", "per_page": 2.5}, "invalid_parameter", "per_page"),
    ("get_school_rankings", {"metric": "svc_score"}, "invalid_parameter", "phase"),
]


@pytest.mark.parametrize(("tool", "arguments", "code", "parameter"), REFUSED_FOR_THEIR_ARGUMENTS)
def test_a_call_refused_for_its_arguments_consumes_nothing(
    http: TestClient,
    app: Application,
    tool: str,
    arguments: dict[str, Any],
    code: str,
    parameter: str,
) -> None:
    mcp = McpHttp(http, bearer(issue_key(app, "enterprise")))
    response = mcp.modern("tools/call", {"name": tool, "arguments": arguments})
    result = response.json()["result"]
    assert result["isError"] is True
    error = result["structuredContent"]["error"]
    assert (error["code"], error["details"].get("parameter")) == (code, parameter), error
    assert used(app, "acme-enterprise") == 0
    assert response.headers["x-quota-remaining"] == "2000000"


def test_per_page_over_the_plan_is_refused_as_such_even_written_60_0(
    http: TestClient, app: Application
) -> None:
    mcp = McpHttp(http, bearer(issue_key(app, "developer")))
    for per_page in (60, 60.0):
        error = mcp.call("search_schools", {"q": "st", "per_page": per_page})["structuredContent"]
        assert error["error"]["code"] == "limit_exceeds_plan"
        assert error["error"]["details"] == {"parameter": "per_page", "max": 25}
    assert used(app, "acme-developer") == 0


def test_a_call_that_ran_into_an_unknown_postcode_or_school_is_metered(
    http: TestClient, app: Application
) -> None:
    mcp = McpHttp(http, bearer(issue_key(app, "enterprise")))
    ran = [
        ("find_schools_near_location", {"postcode": "ZZ9 9ZZ"}, "unknown_postcode"),
        ("get_school", {"urn": 999999}, "not_found"),
        ("compare_schools", {"urns": ["100002", "999999"]}, "not_found"),
    ]
    for tool, arguments, code in ran:
        result = mcp.call(tool, arguments)
        assert result["structuredContent"]["error"]["code"] == code
    assert used(app, "acme-enterprise") == len(ran)


def test_anonymous_calls_are_never_metered_and_carry_no_meter_headers(
    anonymous: McpHttp,
) -> None:
    response = anonymous.modern(
        "tools/call", {"name": "get_school", "arguments": {"urn": "100001"}}
    )
    assert response.status_code == 200
    assert not any(h in response.headers for h in METER_HEADERS)


def test_keyed_responses_carry_the_six_meter_headers(http: TestClient, app: Application) -> None:
    key = issue_key(app, "developer")
    mcp = McpHttp(http, bearer(key))
    discovered = mcp.modern("server/discover")
    listed = mcp.modern("tools/list")
    called = mcp.modern("tools/call", {"name": "get_school", "arguments": {"urn": "100001"}})
    refused = mcp.modern(
        "tools/call", {"name": "get_school_finances", "arguments": {"urn": "100001"}}
    )
    handshake = mcp.initialize("2025-11-25")
    for response in (discovered, listed, called, refused, handshake):
        assert response.status_code == 200
        for header in METER_HEADERS:
            assert response.headers[header].isdigit(), header
        assert response.headers["cache-control"] == "no-store"
    assert int(called.headers["x-quota-remaining"]) == 1000 - used(app, "acme-developer")
    assert called.headers["x-quota-remaining"] == "999"
    assert refused.headers["x-quota-remaining"] == "999"  # the refusal consumed nothing


def test_a_bad_key_is_401_with_the_commercial_error_body(http: TestClient) -> None:
    for headers in (
        bearer("svc_live_not-a-real-key"),
        {"X-API-Key": "svc_test_00000000000000000000000000000000AAAAAA"},
        {"Authorization": "Basic dXNlcjpwYXNz"},
    ):
        response = McpHttp(http, headers).modern("server/discover")
        assert response.status_code == 401
        error = response.json()["error"]
        assert error["code"] == "invalid_api_key"
        assert error["request_id"] == response.headers["x-request-id"]
        assert error["details"] == {}
        assert set(error) == {"code", "message", "request_id", "details"}
        assert response.headers["www-authenticate"].startswith("Bearer")


def test_a_revoked_key_and_conflicting_keys_are_401(http: TestClient, app: Application) -> None:
    key, other = issue_key(app), issue_key(app, org="other")
    conflicting = McpHttp(http, {**bearer(key), "X-API-Key": other}).modern("tools/list")
    assert conflicting.status_code == 401
    assert conflicting.json()["error"]["code"] == "conflicting_credentials"
    assert McpHttp(http, {"X-API-Key": key}).modern("tools/list").status_code == 200
    prefix = key[: len("svc_live_") + 4]
    app.keys.revoke(display_prefix=prefix)
    revoked = McpHttp(http, bearer(key)).initialize("2025-06-18")
    assert revoked.status_code == 401
    assert revoked.json()["error"]["code"] == "api_key_revoked"


def test_a_key_in_the_query_string_is_rejected_before_mcp(
    http: TestClient, app: Application
) -> None:
    key = issue_key(app)
    response = http.post(f"/mcp?api_key={key}", json={}, headers=bearer(key))
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "api_key_in_query"


@pytest.fixture
def tiny_plan_app() -> Application:
    plans = PlanCatalogue(
        tuple(
            evolve(p, rate_per_second=2, monthly_quota=3) if p.name == "developer" else p
            for p in DEFAULT_PLANS
        )
    )
    return bootstrap_memory(store=build_store(), clock=FixedClock(NOW), plans=plans)


@pytest.fixture
def tiny(tiny_plan_app: Application, tmp_path: Path) -> Iterator[McpHttp]:
    key = issue_key(tiny_plan_app, "developer")
    for client in served(tiny_plan_app, tmp_path):
        yield McpHttp(client, bearer(key))


def test_the_rate_limit_inside_a_tool_call_is_a_tool_error_with_retry_after(
    tiny: McpHttp, tiny_plan_app: Application
) -> None:
    responses = [
        tiny.modern("tools/call", {"name": "get_school", "arguments": {"urn": "100001"}})
        for _ in range(3)
    ]
    results = [r.json()["result"] for r in responses]
    assert [r["isError"] for r in results] == [False, False, True]
    error = results[2]["structuredContent"]["error"]
    assert error["code"] == "rate_limit_exceeded"
    assert error["details"]["retry_after"] >= 1
    # The HTTP answer is 200 (a tool error), with the header a REST 429 carries as well.
    assert responses[2].status_code == 200
    assert responses[2].headers["retry-after"] == str(error["details"]["retry_after"])
    assert "retry-after" not in responses[0].headers
    assert "rate_limit_exceeded" in results[2]["content"][0]["text"]
    assert used(tiny_plan_app, "acme-developer") == 2


def test_the_quota_inside_a_tool_call_is_a_tool_error_with_retry_after(
    tiny: McpHttp, tiny_plan_app: Application
) -> None:
    clock = tiny_plan_app.ports.clock
    assert isinstance(clock, FixedClock)
    outcomes = []
    for second in range(5):  # a new second each time: the rate limit never bites
        clock.current = NOW + dt.timedelta(seconds=second)
        response = tiny.modern("tools/call", {"name": "get_school", "arguments": {"urn": "100001"}})
        outcomes.append(response)
    errors = [r.json()["result"]["isError"] for r in outcomes]
    assert errors == [False, False, False, True, True]
    error = outcomes[3].json()["result"]["structuredContent"]["error"]
    assert error["code"] == "quota_exceeded"
    assert error["details"]["retry_after"] > 24 * 3600  # until the next calendar month
    assert outcomes[3].headers["x-quota-remaining"] == "0"
    assert outcomes[3].headers["retry-after"] == str(error["details"]["retry_after"])
    assert "retry-after" not in outcomes[2].headers
    assert used(tiny_plan_app, "acme-developer") == 3
