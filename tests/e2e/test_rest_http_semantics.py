"""HTTP semantics every route shares: HEAD, 405 with Allow, and Litestar's own refusals
(unknown endpoint, wrong method) for requests that carry credentials."""

from __future__ import annotations

import pytest
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.support.http import METER_HEADERS

from schooldata.application.service import Application

BAD_KEY = "svc_live_" + "0" * 38


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/search?query=st%20mary",
        "/api/v1/schools/100001",
        "/api/get-school?urn=100001",
        "/api/v1/openapi.json",
    ],
)
def test_head_answers_with_the_get_headers_and_no_body(client: TestClient, path: str) -> None:
    get = client.get(path)
    head = client.head(path)
    assert head.status_code == get.status_code == 200
    assert head.content == b""
    assert head.headers["content-length"] == get.headers["content-length"]
    assert head.headers["content-type"] == get.headers["content-type"]
    assert head.headers["etag"] == get.headers["etag"]
    assert head.headers["x-request-id"] != get.headers["x-request-id"]


def test_head_of_an_error_keeps_its_status_without_a_body(client: TestClient) -> None:
    response = client.head("/api/v1/schools/12345")
    assert response.status_code == 400
    assert response.content == b""


def test_head_on_a_commercial_route_is_authenticated_and_metered_like_get(
    client: TestClient, app: Application
) -> None:
    key = issue_key(app)
    headers = {"Authorization": f"Bearer {key}"}
    first = client.get("/api/v1/meta", headers=headers)
    head = client.head("/api/v1/meta", headers=headers)
    assert head.status_code == 200 and head.content == b""
    assert int(head.headers["x-quota-remaining"]) == int(first.headers["x-quota-remaining"]) - 1
    assert client.head("/api/v1/meta").status_code == 401


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/api/v1/search?query=st"),
        ("DELETE", "/api/v1/schools/100000"),
        ("PUT", "/api/get-school?urn=100000"),
    ],
)
def test_a_method_not_allowed_names_the_allowed_ones(
    client: TestClient, method: str, path: str
) -> None:
    response = client.request(method, path)
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"
    allowed = {m.strip() for m in response.headers["allow"].split(",")}
    assert {"GET", "HEAD"} <= allowed
    assert method not in allowed


def test_an_unknown_endpoint_with_a_bad_key_is_refused_as_unauthenticated(
    client: TestClient,
) -> None:
    response = client.get("/api/v1/nonexistent", headers={"Authorization": f"Bearer {BAD_KEY}"})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_api_key"
    assert response.headers["www-authenticate"].startswith("Bearer")


def test_a_wrong_method_with_a_bad_key_is_refused_as_unauthenticated(
    client: TestClient,
) -> None:
    response = client.delete("/api/v1/meta", headers={"X-API-Key": BAD_KEY})
    assert response.status_code == 401


def test_refusals_of_a_known_caller_carry_the_meter_readings_without_metering(
    client: TestClient, app: Application
) -> None:
    headers = {"Authorization": f"Bearer {issue_key(app)}"}
    not_found = client.get("/api/v1/nonexistent", headers=headers)
    wrong_method = client.delete("/api/v1/meta", headers=headers)
    for response in (not_found, wrong_method):
        assert set(METER_HEADERS) <= set(response.headers)
        assert response.headers["cache-control"] == "no-store"
        error = response.json()["error"]
        assert error["request_id"] == response.headers["x-request-id"]
    assert not_found.status_code == 404 and wrong_method.status_code == 405
    assert not_found.headers["x-quota-remaining"] == wrong_method.headers["x-quota-remaining"]
    assert not_found.headers["x-quota-remaining"] == not_found.headers["x-quota-limit"]


def test_the_openapi_document_checks_credentials_sent_with_it(
    client: TestClient, app: Application
) -> None:
    bad = client.get("/api/v1/openapi.json", headers={"Authorization": f"Bearer {BAD_KEY}"})
    assert bad.status_code == 401
    good = client.get("/api/v1/openapi.json", headers={"Authorization": f"Bearer {issue_key(app)}"})
    assert good.status_code == 200 and good.json()["openapi"] == "3.1.0"
    assert "x-quota-remaining" not in good.headers


@pytest.mark.parametrize("path", ["/schools/search", "/schools/nearby"])
def test_commercial_routes_beside_the_public_record_refuse_query_keys_commercially(
    client: TestClient, path: str
) -> None:
    response = client.get(f"/api/v1{path}?q=st&api_key=secret")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "api_key_in_query"


def test_the_public_record_still_refuses_query_keys_in_the_public_shape(
    client: TestClient,
) -> None:
    response = client.get("/api/v1/schools/100000?api_key=secret")
    assert response.status_code == 400
    assert response.json() == {"error": response.json()["error"], "code": "api_key_in_query"}
    assert isinstance(response.json()["error"], str)


def test_cacheable_public_answers_vary_on_the_credential_headers(client: TestClient) -> None:
    response = client.get("/api/v1/schools/100001")
    assert response.headers["cache-control"].startswith("public")
    varies = {v.strip().lower() for v in response.headers["vary"].split(",")}
    assert {"accept-encoding", "authorization", "x-api-key"} <= varies


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/search?query=st%20mary&query=westminster",
        "/api/v1/search?postcode=SW1A%201AA&limit=5&limit=6",
        "/api/get-school?urn=100001&urn=abc",
    ],
)
def test_a_public_parameter_given_twice_is_refused_not_resolved(
    client: TestClient, path: str
) -> None:
    response = client.get(path)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_parameter"
    assert "given 2 times" in response.json()["error"]


def test_a_commercial_parameter_given_twice_is_refused_not_resolved(
    client: TestClient, app: Application
) -> None:
    headers = {"Authorization": f"Bearer {issue_key(app)}"}
    response = client.get("/api/v1/schools?per_page=5&per_page=500", headers=headers)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_parameter"
    assert error["details"]["parameter"] == "per_page"


def test_two_different_keys_in_one_credential_header_conflict(
    client: TestClient, app: Application
) -> None:
    enterprise, developer = issue_key(app, "enterprise"), issue_key(app, "developer")
    for first, second in ((enterprise, developer), (developer, enterprise)):
        response = client.get(
            "/api/v1/meta",
            headers=[("Authorization", f"Bearer {first}"), ("Authorization", f"Bearer {second}")],
        )
        assert response.status_code == 401
        error = response.json()["error"]
        assert error["code"] == "conflicting_credentials"
        assert error["message"].startswith("'Authorization' carries different keys"), error
        assert "X-API-Key" not in error["message"]


def test_an_integer_too_large_for_its_bound_is_refused_by_naming_the_bound(
    client: TestClient, app: Application
) -> None:
    headers = {"Authorization": f"Bearer {issue_key(app)}"}
    for page in ("9223372036854775807", "9" * 300):
        response = client.get(f"/api/v1/schools?page={page}", headers=headers)
        assert response.status_code == 400
        error = response.json()["error"]
        assert (error["code"], error["details"]) == ("invalid_parameter", {"parameter": "page"})
        assert error["message"] == "page must be between 1 and 2147483647."
    limit = client.get("/api/v1/search?query=st&limit=9223372036854775807")
    assert limit.status_code == 400
    assert limit.json()["error"] == "limit must be between 1 and 25."


def test_the_same_key_sent_twice_in_one_header_is_one_key(
    client: TestClient, app: Application
) -> None:
    key = issue_key(app)
    response = client.get("/api/v1/meta", headers=[("X-API-Key", key), ("X-API-Key", key)])
    assert response.status_code == 200


def test_query_bytes_that_are_not_utf8_are_refused_not_replaced(client: TestClient) -> None:
    response = client.get("/api/v1/search?query=St%20Mary%92s")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_parameter"
    assert "UTF-8" in response.json()["error"]


def test_a_percent_encoded_replacement_character_is_still_text(client: TestClient) -> None:
    assert client.get("/api/v1/search?query=St%20Mary%EF%BF%BDs").status_code == 200


@pytest.mark.parametrize("radius", ["1_0", "\uff11", "nan", "inf", "0x1"])
def test_radius_must_be_a_plain_decimal(client: TestClient, radius: str) -> None:
    response = client.get("/api/v1/search", params={"postcode": "SW1A 1AA", "radius_miles": radius})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_parameter"


@pytest.mark.parametrize("query", ["  ", "--", " a "])
def test_a_query_of_two_characters_as_sent_is_a_question_even_if_it_normalises_away(
    client: TestClient, query: str
) -> None:
    response = client.get("/api/v1/search", params={"query": query})
    assert response.status_code == 200
    assert response.json()["query"] == query


def test_a_one_character_query_is_refused(client: TestClient) -> None:
    assert client.get("/api/v1/search", params={"query": "a"}).status_code == 400


def test_a_postcode_with_a_no_break_space_is_the_same_postcode(client: TestClient) -> None:
    plain = client.get("/api/v1/search", params={"postcode": "SW1A 1AA"}).json()
    pasted = client.get("/api/v1/search", params={"postcode": "SW1A\u00a01AA"}).json()
    assert pasted["results"] == plain["results"]


def test_the_legacy_route_says_since_when_it_is_deprecated(client: TestClient) -> None:
    valid = client.get("/api/get-school", params={"urn": "100001"})
    assert valid.headers["deprecation"] == "@1787097600"
    assert valid.headers["link"] == '</api/v1/schools/100001>; rel="successor-version"'
    invalid = client.get("/api/get-school", params={"urn": "12"})
    assert invalid.status_code == 400
    assert invalid.headers["deprecation"] == "@1787097600"
    assert "link" not in invalid.headers


def test_any_page_past_the_last_is_an_empty_page_with_true_totals(
    client: TestClient, app: Application
) -> None:
    headers = {"Authorization": f"Bearer {issue_key(app)}"}
    first = client.get("/api/v1/schools?per_page=5", headers=headers).json()
    for page in (100_001, 2_147_483_647):
        far = client.get(f"/api/v1/schools?per_page=5&page={page}", headers=headers)
        assert far.status_code == 200
        assert far.json()["data"] == []
        assert far.json()["meta"]["pagination"]["total"] == first["meta"]["pagination"]["total"]
    too_far = client.get("/api/v1/schools?page=2147483648", headers=headers)
    assert too_far.status_code == 400


@pytest.mark.parametrize(
    ("content_type", "accepted"),
    [
        ("application/json", True),
        ("application/json; charset=utf-8", True),
        ("application/merge-patch+json", True),
        ("text/jsonish", False),
        ("text/plain", False),
        ("application/x-www-form-urlencoded", False),
    ],
)
def test_compare_takes_a_json_media_type_only(
    client: TestClient, app: Application, content_type: str, accepted: bool
) -> None:
    response = client.post(
        "/api/v1/schools/compare",
        content=b'{"urns": ["100001", "100002"]}',
        headers={
            "Authorization": f"Bearer {issue_key(app, 'professional')}",
            "Content-Type": content_type,
        },
    )
    assert (response.status_code == 200) is accepted
    if not accepted:
        assert response.status_code == 400
        assert response.json()["error"]["details"]["parameter"] == "body"


def test_the_authority_catalogue_finds_an_authority_by_its_code(
    client: TestClient, app: Application
) -> None:
    headers = {"Authorization": f"Bearer {issue_key(app)}"}
    every = client.get("/api/v1/areas/local-authorities", headers=headers).json()["data"]
    wanted = every[0]
    found = client.get(
        "/api/v1/areas/local-authorities", params={"q": wanted["code"]}, headers=headers
    ).json()["data"]
    assert wanted in found


def test_data_freshness_is_a_list_with_paging_like_every_list(
    client: TestClient, app: Application
) -> None:
    headers = {"Authorization": f"Bearer {issue_key(app)}"}
    whole = client.get("/api/v1/data-freshness", headers=headers).json()
    total = whole["meta"]["pagination"]["total"]
    assert total == len(whole["data"]) >= 1
    last = client.get(f"/api/v1/data-freshness?per_page=1&page={total}", headers=headers).json()
    assert last["data"] == whole["data"][-1:]
    before = f"http://testserver.local/api/v1/data-freshness?per_page=1&page={total - 1}"
    assert last["meta"]["pagination"] == {
        "page": total,
        "per_page": 1,
        "total": total,
        "total_pages": total,
        "next": None,
        "prev": before if total > 1 else None,
    }
    past = client.get(f"/api/v1/data-freshness?page={total + 1}&per_page=1", headers=headers)
    assert past.status_code == 200 and past.json()["data"] == []
    assert client.get("/api/v1/data-freshness?sort=x", headers=headers).status_code == 400


def test_options_checks_credentials_and_names_head_with_get(
    client: TestClient, app: Application
) -> None:
    anonymous = client.options("/api/v1/search")
    allowed = {m.strip() for m in anonymous.headers["allow"].split(",")}
    assert {"GET", "HEAD", "OPTIONS"} <= allowed
    assert (
        client.options("/api/v1/meta", headers={"Authorization": f"Bearer {BAD_KEY}"}).status_code
        == 401
    )
    keyed = client.options("/api/v1/meta", headers={"Authorization": f"Bearer {issue_key(app)}"})
    assert keyed.status_code == 204
    assert set(METER_HEADERS) <= set(keyed.headers)
    assert keyed.headers["x-quota-remaining"] == keyed.headers["x-quota-limit"]  # unmetered


@pytest.mark.parametrize("method", ["OPTIONS", "GET", "HEAD"])
@pytest.mark.parametrize("path", ["/api/v1/meta", "/api/v1/search?query=st", "/api/v1/schools"])
@pytest.mark.parametrize("keyed", [False, True], ids=["anonymous", "keyed"])
def test_no_answer_carries_a_header_twice(
    client: TestClient, app: Application, method: str, path: str, keyed: bool
) -> None:
    """Issue 22: OPTIONS /api/v1/meta sent `Cache-Control: no-store` twice."""
    headers = {"Authorization": f"Bearer {issue_key(app)}"} if keyed else {}
    response = client.request(method, path, headers=headers)
    names = [name.lower() for name, _ in response.headers.multi_items() if name != "vary"]
    assert len(names) == len(set(names)), (response.status_code, response.headers)


def test_an_anonymous_refusal_on_a_commercial_route_has_the_commercial_shape(
    client: TestClient,
) -> None:
    response = client.delete("/api/v1/meta")
    assert response.status_code == 405
    error = response.json()["error"]
    assert error["code"] == "method_not_allowed"
    assert error["request_id"] == response.headers["x-request-id"]
    assert isinstance(client.delete("/api/v1/search?query=st").json()["error"], str)  # public


@pytest.mark.parametrize("path", ["/api/v1/schools/search?zz=1", "/api/v1/schools/nearby?zz=1"])
def test_an_unknown_parameter_is_named_before_a_missing_one(
    client: TestClient, app: Application, path: str
) -> None:
    response = client.get(path, headers={"Authorization": f"Bearer {issue_key(app)}"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "unknown_parameter"
    assert response.json()["error"]["details"]["parameters"] == ["zz"]


def test_commercial_text_bounds_count_the_text_as_sent(
    client: TestClient, app: Application
) -> None:
    headers = {"Authorization": f"Bearer {issue_key(app)}"}
    assert client.get("/api/v1/schools", params={"q": " a"}, headers=headers).status_code == 200
    assert client.get("/api/v1/schools", params={"q": "a"}, headers=headers).status_code == 400
    padded = "SW1A 1AA" + " " * 9  # 17 characters: over the documented maxLength of 16
    response = client.get("/api/v1/schools/nearby", params={"postcode": padded}, headers=headers)
    assert response.status_code == 400
    assert response.json()["error"]["details"]["parameter"] == "postcode"
