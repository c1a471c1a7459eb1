"""The public REST tier against the contract's tables, over the in-memory store."""

from __future__ import annotations

import re

import pytest
from litestar.testing import TestClient
from tests.conftest import issue_key

from schooldata.application.service import Application

SEARCH_KEYS = {"query", "postcode", "phase", "radiusMiles", "total", "limit", "results"}
RESULT_KEYS = {
    "urn",
    "name",
    "phase",
    "type",
    "localAuthority",
    "location",
    "distanceMiles",
    "ofstedRating",
    "svcScore",
    "scoreSuppressed",
    "url",
}
REQUEST_ID = re.compile(r"^req_[0-9A-Za-z]{20}$")


def test_search_by_name_returns_exactly_the_documented_shape(client: TestClient) -> None:
    response = client.get("/api/v1/search", params={"query": "st mary"})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == SEARCH_KEYS
    assert body["query"] == "st mary"
    assert body["postcode"] is None and body["phase"] is None and body["radiusMiles"] is None
    assert body["limit"] == 10
    assert body["total"] == len(body["results"]) >= 3
    for result in body["results"]:
        assert set(result) <= RESULT_KEYS - {"distanceMiles"}
        assert result["url"] == f"http://testserver.local/api/v1/schools/{result['urn']}"
        assert result["location"] is None or set(result["location"]) == {"latitude", "longitude"}


def test_search_matches_apostrophes_and_full_stops_alike(client: TestClient) -> None:
    names = {r["name"] for r in client.get("/api/v1/search?query=St%20Marys").json()["results"]}
    assert "St Mary’s Church of England Primary School" in names
    assert "St. Mary's Roman Catholic High School" in names


def test_search_matches_local_authority_and_type(client: TestClient) -> None:
    by_la = client.get("/api/v1/search?query=birmingham").json()
    assert by_la["total"] == 5
    by_type = client.get("/api/v1/search?query=nursery").json()
    assert [r["urn"] for r in by_type["results"]] == [100010]


def test_search_without_postcode_is_deterministic(client: TestClient) -> None:
    first = client.get("/api/v1/search?query=school").json()
    second = client.get("/api/v1/search?query=school").json()
    assert first == second


@pytest.mark.parametrize("postcode", ["SW1A 1AA", "sw1a1aa", " sw1a 1aa ", "SW1A"])
def test_postcode_search_is_nearest_first_with_distances(client: TestClient, postcode: str) -> None:
    body = client.get("/api/v1/search", params={"postcode": postcode, "limit": 25}).json()
    distances = [r["distanceMiles"] for r in body["results"]]
    assert distances == sorted(distances)
    assert body["postcode"] == postcode
    assert all(r["location"] is not None for r in body["results"])


@pytest.mark.parametrize("radius", [0.1, 0.5, 2, 100])
def test_radius_bounds_every_result(client: TestClient, radius: float) -> None:
    body = client.get(
        "/api/v1/search", params={"postcode": "SW1A 1AA", "radius_miles": radius}
    ).json()
    assert body["radiusMiles"] == radius
    assert all(r["distanceMiles"] <= radius for r in body["results"])


def test_phase_filter_and_echo(client: TestClient) -> None:
    body = client.get("/api/v1/search", params={"query": "school", "phase": "sixth form"}).json()
    assert body["phase"] == "sixth form"
    assert {r["phase"] for r in body["results"]} <= {"sixth form"}


def test_middle_deemed_primary_counts_as_primary(client: TestClient) -> None:
    body = client.get("/api/v1/search", params={"query": "pimlico", "phase": "primary"}).json()
    assert [r["urn"] for r in body["results"]] == [100013]


@pytest.mark.parametrize("limit", [1, 25])
def test_limit_edges_are_accepted(client: TestClient, limit: int) -> None:
    body = client.get("/api/v1/search", params={"query": "school", "limit": limit}).json()
    assert body["limit"] == limit and len(body["results"]) <= limit


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"phase": "primary"},
        {"query": "a"},
        {"postcode": "S"},
        {"query": "school", "phase": "infant"},
        {"query": "school", "limit": 0},
        {"query": "school", "limit": 26},
        {"query": "school", "limit": "ten"},
        {"postcode": "SW1A 1AA", "radius_miles": 0.09},
        {"postcode": "SW1A 1AA", "radius_miles": 100.5},
        {"postcode": "ZZ99 9ZZ"},
        {"postcode": "not a postcode"},
    ],
)
def test_bad_search_input_gets_400_with_a_clear_error(
    client: TestClient, params: dict[str, object]
) -> None:
    response = client.get("/api/v1/search", params=params)
    assert response.status_code == 400
    body = response.json()
    assert isinstance(body["error"], str) and len(body["error"]) > 10
    assert REQUEST_ID.match(response.headers["x-request-id"])


def test_unknown_postcode_says_so(client: TestClient) -> None:
    body = client.get("/api/v1/search", params={"postcode": "ZZ99 9ZZ"}).json()
    assert "Unknown postcode" in body["error"]


def test_school_record_has_required_fields_and_no_premium_or_personal_data(
    client: TestClient,
) -> None:
    response = client.get("/api/v1/schools/100002")
    assert response.status_code == 200
    body = response.json()
    assert body["urn"] == 100002 and body["name"].startswith("St. Mary")
    for absent in (
        "pupils",
        "capacity",
        "percentage_fsm",
        "trustName",
        "headName",
        "head_name",
        "inspectorateName",
        "fees",
        "catchment",
        "aiSummary",
        "websiteContent",
    ):
        assert absent not in body
    assert body["scoreSuppressed"] is False and 0 <= body["svcScore"] <= 100
    assert "scoreSuppressedReason" not in body


def test_suppressed_score_is_null_with_a_reason(client: TestClient) -> None:
    body = client.get("/api/v1/schools/100009").json()
    assert body["svcScore"] is None
    assert body["scoreSuppressed"] is True
    assert body["scoreSuppressedReason"] == "small_cohort"


def test_historic_ofsted_grade_is_marked_not_comparable(client: TestClient) -> None:
    body = client.get("/api/v1/schools/100002").json()
    assert body["ofstedRating"] == 1
    assert body["ofstedRatingHistoric"]["comparable"] is False


@pytest.mark.parametrize("urn", ["12345", "1234567", "abcdef", "10000a", "%20100001"])
def test_invalid_urn_is_400(client: TestClient, urn: str) -> None:
    response = client.get(f"/api/v1/schools/{urn}")
    assert response.status_code == 400
    assert "six digits" in response.json()["error"]


@pytest.mark.parametrize("urn", ["999999", "100019", "100020"])
def test_unknown_closed_or_unopened_school_is_404(client: TestClient, urn: str) -> None:
    response = client.get(f"/api/v1/schools/{urn}")
    assert response.status_code == 404
    assert isinstance(response.json()["error"], str)


def test_open_but_proposed_to_close_is_served(client: TestClient) -> None:
    assert client.get("/api/v1/schools/100021").status_code == 200


def test_legacy_route_behaves_like_get_school_and_says_it_is_deprecated(client: TestClient) -> None:
    response = client.get("/api/get-school", params={"urn": "100001"})
    assert response.status_code == 200
    assert response.headers["deprecation"]
    assert response.headers["link"] == '</api/v1/schools/100001>; rel="successor-version"'
    modern = client.get("/api/v1/schools/100001").json()
    assert response.json() == modern
    assert client.get("/api/get-school", params={"urn": "12"}).status_code == 400
    assert client.get("/api/get-school").status_code == 400
    assert client.get("/api/get-school", params={"urn": "999999"}).status_code == 404


@pytest.mark.parametrize("name", ["api_key", "APIKEY", "key", "access_token", "Token"])
def test_a_key_in_the_query_string_is_rejected_on_public_routes(
    client: TestClient, name: str
) -> None:
    response = client.get(f"/api/v1/search?query=school&{name}=svc_live_x")
    assert response.status_code == 400
    assert response.json()["code"] == "api_key_in_query"


def test_every_response_carries_a_request_id(client: TestClient) -> None:
    for path in (
        "/api/v1/search?query=school",
        "/api/v1/schools/1",
        "/nowhere",
        "/api/v1/openapi.json",
    ):
        assert REQUEST_ID.match(client.get(path).headers["x-request-id"])


def test_unknown_route_gets_the_public_error_shape_not_the_framework_default(
    client: TestClient,
) -> None:
    response = client.get("/api/v1/nothing-here")
    assert response.status_code in (401, 404)
    body = response.json()
    assert "status_code" not in body and "detail" not in body


def test_a_valid_key_on_a_public_route_gets_the_public_answer_unmetered(
    client: TestClient, app: Application
) -> None:
    key = issue_key(app)
    response = client.get("/api/v1/search?query=school", headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 200
    assert set(response.json()) == SEARCH_KEYS
    assert "x-quota-limit" not in response.headers


def test_a_bad_key_on_a_public_route_is_401_not_a_silent_downgrade(client: TestClient) -> None:
    response = client.get("/api/v1/search?query=school", headers={"Authorization": "Bearer nope"})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_api_key"
    assert response.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    ("path", "extra"),
    [
        ("/api/v1/search?query=st%20mary", "&sort=name&page=2"),
        ("/api/v1/schools/100001", "?fields=all"),
        ("/api/get-school?urn=100001", "&format=xml"),
    ],
)
def test_a_public_operation_ignores_parameters_it_does_not_define(
    client: TestClient, path: str, extra: str
) -> None:
    """The public operations list their 400s, and an unknown parameter is none of them
    (docs/decisions.md); commercial list endpoints refuse one, as the description says."""
    plain = client.get(path)
    with_extra = client.get(path + extra)
    assert plain.status_code == with_extra.status_code == 200
    assert with_extra.json() == plain.json()


@pytest.mark.parametrize(
    "target", ["/api/get-school?urn=100001&urn=100001", "/api/v1/search?query=ab&query=cd"]
)
def test_a_keyed_callers_bad_query_on_a_public_only_route_gets_the_public_shape(
    client: TestClient, app: Application, target: str
) -> None:
    keyed = client.get(target, headers={"Authorization": f"Bearer {issue_key(app)}"})
    assert keyed.status_code == 400
    assert keyed.json()["code"] == "invalid_parameter"
    assert isinstance(keyed.json()["error"], str)
    bad = client.get(target, headers={"Authorization": "Bearer svc_live_" + "x" * 40})
    assert bad.status_code == 401  # the credentials are authenticated first
    assert bad.json()["error"]["code"] == "invalid_api_key"
