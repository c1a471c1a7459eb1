"""The MCP tools: which a caller sees, their schemas, and answers equal to their REST twins."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from jsonschema import Draft7Validator, Draft202012Validator  # type: ignore[import-untyped]
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.e2e.test_mcp_support import (
    COMMERCIAL_TOOLS,
    PUBLIC_TOOLS,
    McpHttp,
    anonymous,
    bearer,
    http,
    text_of,
)

from schooldata.application.service import Application

__all__ = ["anonymous", "http"]  # fixtures

PHASES = ["primary", "secondary", "nursery", "sixth form", "all-through"]


def keyed(http: TestClient, app: Application, plan: str) -> McpHttp:
    return McpHttp(http, bearer(issue_key(app, plan)))


def conforms(tool: dict[str, Any], result: dict[str, Any]) -> None:
    """structuredContent matches the declared output schema (success or error alike)."""
    errors = list(
        Draft202012Validator(tool["outputSchema"]).iter_errors(result["structuredContent"])
    )
    assert not errors, errors[0].message


# ---------------------------------------------------------------------------- listing


def test_anonymous_callers_see_exactly_the_two_public_tools(anonymous: McpHttp) -> None:
    tools = anonymous.tools()
    assert set(tools) == PUBLIC_TOOLS
    search = tools["search_schools"]["inputSchema"]
    assert search["additionalProperties"] is False
    assert search["properties"]["limit"] == {
        **search["properties"]["limit"],
        "minimum": 1,
        "maximum": 25,
        "default": 10,
    }
    assert search["properties"]["radius_miles"]["minimum"] == 0.1
    assert search["properties"]["radius_miles"]["maximum"] == 100
    assert search["properties"]["phase"]["enum"] == PHASES
    assert search["properties"]["query"]["minLength"] == 2
    assert tools["get_school"]["inputSchema"]["properties"]["urn"]["pattern"] == "^[0-9]{6}$"
    assert tools["get_school"]["inputSchema"]["required"] == ["urn"]
    for tool in tools.values():
        assert len(tool["description"]) > 100
        assert tool["outputSchema"]["type"] == "object"
        assert tool["annotations"]["readOnlyHint"] is True
        assert tool["annotations"]["destructiveHint"] is False


def test_a_key_sees_exactly_the_ten_commercial_tools_with_its_plan_bounds(
    http: TestClient, app: Application
) -> None:
    developer = keyed(http, app, "developer").tools()
    assert set(developer) == COMMERCIAL_TOOLS
    search = developer["search_schools"]["inputSchema"]
    assert search["required"] == ["q"]
    assert search["properties"]["per_page"]["maximum"] == 25
    assert developer["get_school_results"]["_meta"]["schooldata/feature"] == "results"
    assert "professional" in developer["get_school_results"]["description"]
    enterprise = keyed(http, app, "enterprise").tools()
    assert enterprise["search_schools"]["inputSchema"]["properties"]["per_page"]["maximum"] == 100
    assert enterprise["compare_schools"]["inputSchema"]["properties"]["urns"]["maxItems"] == 25


# ---------------------------------------------------------------------------- public tier


@pytest.mark.parametrize(
    "question",
    [
        {"query": "st mary"},
        {"query": "school", "limit": 3},
        {"postcode": "SW1A 1AA"},
        {"postcode": "B1 1AA", "radius_miles": 2.5, "phase": "primary"},
        {"postcode": "SW1A", "query": "westminster", "limit": 25},
        {"query": "camden", "phase": "secondary"},
    ],
)
def test_anonymous_search_answers_exactly_as_public_rest(
    http: TestClient, anonymous: McpHttp, question: dict[str, Any]
) -> None:
    rest = http.get("/api/v1/search", params=question)
    assert rest.status_code == 200
    result = anonymous.call("search_schools", question)
    assert result["isError"] is False
    assert result["structuredContent"] == rest.json()  # same schools, order and values
    assert text_of(result).startswith(f"{rest.json()['total']} open schools")
    conforms(anonymous.tools()["search_schools"], result)


def test_anonymous_get_school_is_the_public_record_of_rest(
    http: TestClient, anonymous: McpHttp
) -> None:
    result = anonymous.call("get_school", {"urn": "100001"})
    assert result["structuredContent"] == http.get("/api/v1/schools/100001").json()
    conforms(anonymous.tools()["get_school"], result)
    assert "headName" not in result["structuredContent"]  # nothing beyond the public boundary


def test_nulls_stay_nulls(http: TestClient, anonymous: McpHttp) -> None:
    record = anonymous.call("get_school", {"urn": "100009"})["structuredContent"]
    assert record == http.get("/api/v1/schools/100009").json()
    assert record["svcScore"] is None
    assert record["scoreSuppressed"] is True
    found = anonymous.call("search_schools", {"query": "regent high"})["structuredContent"]
    assert found["results"][0]["location"] is None


@pytest.mark.parametrize("urn", ["12345", "1234567", "abcdef", " 100001", "10000１"])
def test_an_invalid_urn_is_a_tool_error_the_model_can_read(anonymous: McpHttp, urn: str) -> None:
    result = anonymous.call("get_school", {"urn": urn})
    assert result["isError"] is True
    assert result["structuredContent"]["code"] == "invalid_urn"
    assert "six digits" in text_of(result)
    conforms(anonymous.tools()["get_school"], result)


def test_a_urn_sent_as_a_number_is_that_school(http: TestClient, anonymous: McpHttp) -> None:
    result = anonymous.call("get_school", {"urn": 100001})
    assert result["isError"] is False
    assert result["structuredContent"] == http.get("/api/v1/schools/100001").json()
    urn = anonymous.tools()["get_school"]["inputSchema"]["properties"]["urn"]
    assert urn["type"] == ["string", "integer"]
    assert (urn["minimum"], urn["maximum"]) == (100000, 999999)


@pytest.mark.parametrize("urn", [12345, 1000000, 100001.5, True, "100001\n"])
def test_a_number_or_text_that_is_not_six_digits_is_an_invalid_urn(
    anonymous: McpHttp, urn: object
) -> None:
    result = anonymous.call("get_school", {"urn": urn})
    assert result["isError"] is True
    assert result["structuredContent"]["code"] == "invalid_urn"


def test_an_integral_limit_is_that_integer_as_json_schema_counts_it(
    http: TestClient, anonymous: McpHttp
) -> None:
    result = anonymous.call("search_schools", {"query": "st", "limit": 2.0})
    assert result["isError"] is False
    assert result["structuredContent"] == http.get("/api/v1/search?query=st&limit=2").json()
    fraction = anonymous.call("search_schools", {"query": "st", "limit": 2.5})
    assert fraction["structuredContent"]["code"] == "invalid_parameter"
    assert "integer" in fraction["structuredContent"]["error"]


@pytest.mark.parametrize(
    "question",
    [
        {"query": "school", "phase": "Primary"},
        {"query": "school", "phase": " SECONDARY "},
        {"query": "st mary " * 40},  # 320 characters: the public search has no maximum
    ],
)
def test_the_public_search_accepts_what_rest_accepts(
    http: TestClient, anonymous: McpHttp, question: dict[str, Any]
) -> None:
    rest = http.get("/api/v1/search", params=question)
    assert rest.status_code == 200
    result = anonymous.call("search_schools", question)
    assert result["isError"] is False, result["structuredContent"]
    assert result["structuredContent"] == rest.json()  # the echo too: as sent
    assert (
        "maxLength" not in anonymous.tools()["search_schools"]["inputSchema"]["properties"]["query"]
    )


@pytest.mark.parametrize(
    ("arguments", "code", "words"),
    [
        ({"postcode": "ZZ9 9ZZ"}, "unknown_postcode", "Unknown postcode"),
        ({"postcode": "not a postcode"}, "invalid_parameter", "full UK postcode"),
        ({}, "invalid_parameter", "query"),
        ({"query": "a"}, "invalid_parameter", "at least 2 characters"),
        ({"query": "school", "limit": 26}, "invalid_parameter", "between 1 and 25"),
        ({"query": "school", "radius_miles": 0}, "invalid_parameter", "between 0.1 and 100"),
        ({"query": "school", "phase": "college"}, "invalid_parameter", "one of"),
        ({"query": "school", "page": 2}, "unknown_parameter", "page"),
    ],
)
def test_search_mistakes_are_tool_errors_not_protocol_errors(
    anonymous: McpHttp, arguments: dict[str, Any], code: str, words: str
) -> None:
    result = anonymous.call("search_schools", arguments)
    assert result["isError"] is True
    assert result["structuredContent"]["code"] == code
    assert words in result["structuredContent"]["error"]


def test_an_unknown_school_is_a_tool_error(anonymous: McpHttp) -> None:
    result = anonymous.call("get_school", {"urn": "999999"})
    assert result["isError"] is True
    assert result["structuredContent"]["code"] == "not_found"


# ---------------------------------------------------------------------------- commercial tier


def test_feature_not_in_plan_is_a_readable_tool_error(http: TestClient, app: Application) -> None:
    developer = keyed(http, app, "developer")
    result = developer.call("get_school_results", {"urn": "100002"})
    assert result["isError"] is True
    error = result["structuredContent"]["error"]
    assert error["code"] == "feature_not_in_plan"
    assert error["details"]["feature"] == "results"
    assert error["request_id"].startswith("req_")
    assert "feature_not_in_plan" in text_of(result)
    assert '"feature":"results"' in text_of(result)
    conforms(developer.tools()["get_school_results"], result)


def _rest(http: TestClient, key: str, path: str, **params: Any) -> dict[str, Any]:
    response = http.get(path, params=params, headers=bearer(key))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _same_envelope(result: dict[str, Any], rest: dict[str, Any]) -> None:
    """The same envelope but for the request id and the page links: an MCP client pages by
    the `page` argument, so its `next`/`prev` are null where REST's are URLs."""
    mcp = result["structuredContent"]
    assert result["isError"] is False, mcp
    assert mcp["data"] == rest["data"]
    assert mcp["meta"]["request_id"].startswith("req_")
    assert _without_links(mcp["meta"]) == _without_links(rest["meta"])
    paging = mcp["meta"].get("pagination")
    if paging is not None:
        assert paging["next"] is None and paging["prev"] is None, paging


def _without_links(meta: dict[str, Any]) -> dict[str, Any]:
    shown = {k: v for k, v in meta.items() if k != "request_id"}
    if "pagination" in shown:
        paging = shown["pagination"]
        shown["pagination"] = {k: v for k, v in paging.items() if k not in ("next", "prev")}
    return shown


def test_commercial_search_answers_as_its_rest_twin(http: TestClient, app: Application) -> None:
    key = issue_key(app, "developer")
    mcp = McpHttp(http, bearer(key))
    result = mcp.call("search_schools", {"q": "st mary", "per_page": 2})
    _same_envelope(result, _rest(http, key, "/api/v1/schools/search", q="st mary", per_page=2))
    assert result["structuredContent"]["meta"]["pagination"]["per_page"] == 2
    conforms(mcp.tools()["search_schools"], result)


def test_commercial_nearby_and_profile_answer_as_their_rest_twins(
    http: TestClient, app: Application
) -> None:
    key = issue_key(app, "enterprise")  # more calls in a second than a developer key may make
    mcp = McpHttp(http, bearer(key))
    tools = mcp.tools()
    near = {"postcode": "SW1A 1AA", "radius_miles": 1.5, "phase": "primary"}
    result = mcp.call("find_schools_near_location", near)
    _same_envelope(result, _rest(http, key, "/api/v1/schools/nearby", **near))
    conforms(tools["find_schools_near_location"], result)
    by_point = mcp.call("find_schools_near_location", {"latitude": 52.48, "longitude": -1.9})
    assert by_point["structuredContent"]["data"][0]["distance_miles"] >= 0
    profile = mcp.call("get_school", {"urn": "100001"})
    _same_envelope(profile, _rest(http, key, "/api/v1/schools/100001"))
    conforms(tools["get_school"], profile)
    freshness = mcp.call("get_school_data_freshness")
    _same_envelope(freshness, _rest(http, key, "/api/v1/data-freshness"))
    conforms(tools["get_school_data_freshness"], freshness)


def test_dataset_tools_answer_as_their_rest_twins(http: TestClient, app: Application) -> None:
    key = issue_key(app, "enterprise")
    mcp = McpHttp(http, bearer(key))
    tools = mcp.tools()
    for tool, path in [
        ("get_school_inspection_history", "inspections"),
        ("get_school_results", "results"),
        ("get_school_admissions", "admissions"),
        ("get_school_finances", "finance"),
    ]:
        result = mcp.call(tool, {"urn": "100002"})
        _same_envelope(result, _rest(http, key, f"/api/v1/schools/100002/{path}"))
        conforms(tools[tool], result)
    ranking = {"metric": "svc_score", "phase": "secondary", "per_page": 3}
    result = mcp.call("get_school_rankings", ranking)
    _same_envelope(result, _rest(http, key, "/api/v1/rankings", **ranking))
    conforms(tools["get_school_rankings"], result)
    urns = ["100002", "100003", "100005"]
    rest = http.post("/api/v1/schools/compare", json={"urns": urns}, headers=bearer(key))
    result = mcp.call("compare_schools", {"urns": urns})
    _same_envelope(result, rest.json())
    conforms(tools["compare_schools"], result)


@pytest.mark.parametrize(
    ("tool", "arguments", "code", "details"),
    [
        ("search_schools", {"q": "school", "per_page": 26}, "limit_exceeds_plan", {"max": 25}),
        ("search_schools", {"per_page": 5}, "invalid_parameter", {"parameter": "q"}),
        ("search_schools", {"q": "x", "colour": "red"}, "unknown_parameter", {}),
        ("get_school", {"urn": "12"}, "invalid_urn", {"parameter": "urn"}),
        ("get_school", {"urn": "999999"}, "not_found", {"urn": "999999"}),
        ("find_schools_near_location", {"postcode": "ZZ9 9ZZ"}, "unknown_postcode", {}),
        (
            "find_schools_near_location",
            {"postcode": "SW1A 1AA", "latitude": 51.5, "longitude": -0.1},
            "invalid_parameter",
            {"parameter": "postcode"},
        ),
        ("find_schools_near_location", {"latitude": 51.5}, "invalid_parameter", {}),
        ("get_school_inspection_history", {"urn": "100001", "x": 1}, "unknown_parameter", {}),
    ],
)
def test_commercial_mistakes_are_tool_errors_in_the_commercial_shape(
    http: TestClient,
    app: Application,
    tool: str,
    arguments: dict[str, Any],
    code: str,
    details: dict[str, Any],
) -> None:
    result = keyed(http, app, "developer").call(tool, arguments)
    assert result["isError"] is True
    error = result["structuredContent"]["error"]
    assert error["code"] == code, error
    assert details.items() <= error["details"].items()


def test_commercial_enums_accept_the_values_the_answers_show_in_any_case(
    http: TestClient, app: Application
) -> None:
    key = issue_key(app, "enterprise")
    mcp = McpHttp(http, bearer(key))
    listed = mcp.call("search_schools", {"q": "school", "per_page": 3})["structuredContent"]
    shown = listed["data"][0]
    assert shown["gender"] == "Mixed"  # what an agent may copy back
    question = {"q": "school", "gender": shown["gender"], "phase": "Primary", "sort": "NAME"}
    result = mcp.call("search_schools", question)
    _same_envelope(result, _rest(http, key, "/api/v1/schools/search", **question))
    ranking = {"metric": "SVC_SCORE", "phase": "Secondary", "order": "Asc"}
    result = mcp.call("get_school_rankings", ranking)
    _same_envelope(result, _rest(http, key, "/api/v1/rankings", **ranking))


@pytest.mark.parametrize("urns", [["100002", "abc"], ["100002", "100003\n"], ["100002", True]])
def test_a_malformed_urn_to_compare_is_refused_exactly_as_rest_refuses_it(
    http: TestClient, app: Application, urns: list[object]
) -> None:
    key = issue_key(app, "professional")
    rest = http.post("/api/v1/schools/compare", json={"urns": urns}, headers=bearer(key))
    assert rest.status_code == 400
    result = McpHttp(http, bearer(key)).call("compare_schools", {"urns": urns})
    error = result["structuredContent"]["error"]
    assert error["code"] == rest.json()["error"]["code"] == "invalid_urn"
    assert error["details"] == rest.json()["error"]["details"] == {"parameter": "urns"}


def test_urns_to_compare_may_be_numbers_on_both_faces(http: TestClient, app: Application) -> None:
    key = issue_key(app, "professional")
    urns = [100002, "100003", 100005]
    rest = http.post("/api/v1/schools/compare", json={"urns": urns}, headers=bearer(key))
    mcp = McpHttp(http, bearer(key))
    result = mcp.call("compare_schools", {"urns": urns})
    _same_envelope(result, rest.json())
    items = mcp.tools()["compare_schools"]["inputSchema"]["properties"]["urns"]["items"]
    assert items["type"] == ["string", "integer"]


def test_compare_is_bounded_by_the_plan(http: TestClient, app: Application) -> None:
    professional = keyed(http, app, "professional")
    eleven = [str(100001 + i) for i in range(11)]
    result = professional.call("compare_schools", {"urns": eleven})
    assert result["structuredContent"]["error"]["code"] == "limit_exceeds_plan"
    assert result["structuredContent"]["error"]["details"] == {"parameter": "urns", "max": 10}
    twice = professional.call("compare_schools", {"urns": ["100001", "100001"]})
    assert twice["structuredContent"]["error"]["code"] == "invalid_parameter"
    unknown = professional.call("compare_schools", {"urns": ["100001", "999999"]})
    assert unknown["structuredContent"]["error"]["code"] == "not_found"
    assert "999999" in unknown["structuredContent"]["error"]["message"]


def test_every_schema_is_a_valid_json_schema_in_both_dialects(
    http: TestClient, app: Application, anonymous: McpHttp
) -> None:
    tools = [*anonymous.tools().values(), *keyed(http, app, "professional").tools().values()]
    for tool in tools:
        for schema in (tool["inputSchema"], tool["outputSchema"]):
            Draft202012Validator.check_schema(schema)
            Draft7Validator.check_schema(schema)
        assert tool["inputSchema"]["type"] == "object"
        assert not {"anyOf", "oneOf", "allOf"} & set(tool["inputSchema"])


def _record_loop_use(app: Application, monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    seen: list[bool] = []
    execute = app.get_school.execute

    def recording(raw_urn: object) -> Any:
        try:
            asyncio.get_running_loop()
            seen.append(False)  # on the event loop
        except RuntimeError:
            seen.append(True)  # a worker thread has no running loop
        return execute(raw_urn)

    monkeypatch.setattr(app.get_school, "execute", recording)
    return seen


def test_tools_whose_store_may_wait_run_their_use_cases_off_the_event_loop(
    anonymous: McpHttp, app: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _record_loop_use(app, monkeypatch)
    monkeypatch.setattr(app.pipeline, "nonblocking", frozenset)  # as a store with no snapshot yet
    assert anonymous.call("get_school", {"urn": "100001"})["isError"] is False
    assert seen == [True]


def test_tools_answered_from_memory_skip_the_worker_thread(
    anonymous: McpHttp, app: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _record_loop_use(app, monkeypatch)
    assert anonymous.call("get_school", {"urn": "100001"})["isError"] is False
    assert seen == [False]
