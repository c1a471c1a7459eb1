"""Issue 23's acceptance, black-box over HTTP on the bundled demo data (a uvicorn server on
loopback): page links, CSV, the bulk lookup and brotli, as a client sees them.

The plans keep their entitlements and bounds; only their rate limits are lifted, so walking
pages measures paging, not the limiter."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import attrs
import brotli
import httpx
import pytest
from litestar.testing import TestClient
from tests.support.http import METER_HEADERS, bearer
from tests.support.servers import live_server

from schooldata.adapters.sample.demo import load_demo
from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap_memory
from schooldata.domain.plans import DEFAULT_PLANS, PlanCatalogue
from schooldata.entrypoints.hosts import HostPolicy
from schooldata.entrypoints.rest.app import create_app
from schooldata.entrypoints.tables import (
    AUTHORITIES_COLUMNS,
    FRESHNESS_COLUMNS,
    RANKINGS_COLUMNS,
    SCHOOLS_COLUMNS,
    SEARCH_COLUMNS,
    csv_cell,
    flatten,
)

AUTHORITY = "Kensington and Chelsea"  # the demo's smallest authority: 30 open schools
OPEN = ("138180", "140122", "109144")  # open demo schools in Westminster
CLOSED, PROPOSED, UNKNOWN = "109785", "152001", "999999"


@pytest.fixture(scope="module")
def demo() -> Application:
    plans = PlanCatalogue(tuple(attrs.evolve(p, rate_per_second=10**6) for p in DEFAULT_PLANS))
    app = bootstrap_memory(plans=plans)
    load_demo(app)
    return app


@pytest.fixture(scope="module")
def base(demo: Application) -> Iterator[str]:
    with live_server(create_app(demo)) as url:  # no configured base URL: the request's own
        yield url


@pytest.fixture(scope="module")
def http(base: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base, timeout=30) as client:
        yield client


@pytest.fixture(scope="module")
def enterprise(demo: Application) -> dict[str, str]:
    return bearer(demo.keys.create_key(organisation="walker", name="t", plan="enterprise").key)


def key_on(demo: Application, plan: str, org: str) -> dict[str, str]:
    return bearer(demo.keys.create_key(organisation=org, name="t", plan=plan).key)


def page_of(url: str) -> int:
    return int(dict(parse_qsl(urlsplit(url).query))["page"])


def rels(response: httpx.Response) -> dict[str, str]:
    return {rel: link["url"] for rel, link in response.links.items()}


# ---------------------------------------------------------------------------- page links


def test_following_next_from_page_one_visits_every_school_of_an_authority_once(
    http: httpx.Client, enterprise: dict[str, str]
) -> None:
    whole = http.get(
        "/api/v1/schools",
        params={"local_authority": AUTHORITY, "per_page": 100},
        headers=enterprise,
    ).json()
    expected = [item["urn"] for item in whole["data"]]
    assert len(expected) == whole["meta"]["pagination"]["total"] == 30
    url: str | None = f"/api/v1/schools?local_authority={AUTHORITY}&per_page=5"
    visited: list[int] = []
    pages = 0
    while url is not None:
        response = http.get(url, headers=enterprise)
        assert response.status_code == 200, response.text
        body = response.json()
        visited += [item["urn"] for item in body["data"]]
        following = rels(response).get("next")
        assert body["meta"]["pagination"]["next"] == following
        url = following
        pages += 1
    assert visited == expected, "every school once, in the order of one page"
    assert pages == 6


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        (1, {"first": 1, "next": 2, "last": 6}),
        (3, {"first": 1, "prev": 2, "next": 4, "last": 6}),
        (6, {"first": 1, "prev": 5, "last": 6}),
        (9, {"first": 1, "prev": 6, "last": 6}),  # past the end: prev is the last page
    ],
)
def test_first_prev_next_and_last_are_right_on_the_first_a_middle_the_last_page_and_past_it(
    http: httpx.Client, base: str, enterprise: dict[str, str], page: int, expected: dict[str, int]
) -> None:
    query = f"sort=name&local_authority=Kensington%20and%20Chelsea&page={page}&per_page=5"
    response = http.get(f"/api/v1/schools?{query}", headers=enterprise)
    assert response.status_code == 200
    links = rels(response)
    assert {rel: page_of(url) for rel, url in links.items()} == expected
    for rel, url in links.items():  # every parameter as sent, in its place; page replaced
        assert url == f"{base}/api/v1/schools?" + query.replace(
            f"&page={page}&", f"&page={expected[rel]}&"
        )
    paging = response.json()["meta"]["pagination"]
    assert paging["next"] == links.get("next") and paging["prev"] == links.get("prev")
    assert (response.json()["data"] == []) is (page > 6)


def test_a_page_asked_without_page_gets_it_added_last(
    http: httpx.Client, base: str, enterprise: dict[str, str]
) -> None:
    response = http.get("/api/v1/rankings?metric=svc_score&phase=primary", headers=enterprise)
    links = rels(response)
    assert links["next"] == f"{base}/api/v1/rankings?metric=svc_score&phase=primary&page=2"
    assert "prev" not in links and response.json()["meta"]["pagination"]["prev"] is None


def test_the_links_start_at_the_configured_base_url(
    demo: Application, enterprise: dict[str, str]
) -> None:
    configured = "https://schools.example.org"
    # Requests name another host the server answers to (a proxy's upstream name, say): the
    # links still start at the configured base URL, never at the request's Host.
    hosts = HostPolicy.configured(base_url=configured, allowed_hosts=("testserver.local",))
    asgi = create_app(demo, base_url=f"{configured}/", allowed_hosts=hosts)
    with TestClient(app=asgi) as client:
        response = client.get("/api/v1/data-freshness?per_page=1", headers=enterprise)
        head = client.head("/api/v1/data-freshness?per_page=1", headers=enterprise)
    assert rels(response)["next"] == f"{configured}/api/v1/data-freshness?per_page=1&page=2"
    assert head.headers["link"] == response.headers["link"]


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/schools?per_page=2",
        "/api/v1/schools/search?q=primary&per_page=2",
        "/api/v1/schools/nearby?postcode=SW1A%201AA&per_page=2",
        "/api/v1/rankings?metric=svc_score&phase=secondary&per_page=2",
        "/api/v1/areas/local-authorities?per_page=2",
        "/api/v1/data-freshness?per_page=2",
    ],
)
def test_every_paged_list_carries_its_page_links(
    http: httpx.Client, enterprise: dict[str, str], path: str
) -> None:
    response = http.get(path, headers=enterprise)
    assert response.status_code == 200, response.text
    assert {"first", "next", "last"} <= set(rels(response))
    assert response.json()["meta"]["pagination"]["next"] == rels(response)["next"]


def test_single_answers_and_the_public_search_carry_no_page_links(
    http: httpx.Client, enterprise: dict[str, str]
) -> None:
    for path, headers in (
        ("/api/v1/schools/138180", enterprise),
        ("/api/v1/meta", enterprise),
        ("/api/v1/search?query=primary", {}),
    ):
        assert "link" not in http.get(path, headers=headers).headers, path


# ---------------------------------------------------------------------------- CSV


def parsed(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def as_cells(item: dict[str, Any], columns: tuple[str, ...]) -> dict[str, str]:
    flat = flatten(item)
    return {column: csv_cell(flat.get(column)) for column in columns}


def test_the_public_search_as_csv_holds_the_same_items_as_its_json(http: httpx.Client) -> None:
    params = {"query": "primary", "postcode": "SW1A 1AA", "limit": 25}
    document = http.get("/api/v1/search", params=params).json()
    response = http.get("/api/v1/search", params=params, headers={"Accept": "text/csv"})
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    assert response.headers["x-request-id"].startswith("req_")
    rows = parsed(response.text)
    assert tuple(rows[0]) == SEARCH_COLUMNS
    assert len(rows) == len(document["results"]) == 25
    assert rows == [as_cells(item, SEARCH_COLUMNS) for item in document["results"]]
    assert all(row["distanceMiles"] for row in rows)


def test_a_commercial_list_as_csv_holds_the_same_items_and_is_metered_like_json(
    http: httpx.Client, demo: Application
) -> None:
    headers = key_on(demo, "developer", "csv-reader")
    url = f"/api/v1/schools?local_authority={AUTHORITY}&per_page=7&page=2"
    document = http.get(url, headers=headers)
    response = http.get(url, headers={**headers, "Accept": "text/csv"})
    assert response.status_code == 200
    rows = parsed(response.text)
    assert tuple(rows[0]) == SCHOOLS_COLUMNS
    assert rows == [as_cells(item, SCHOOLS_COLUMNS) for item in document.json()["data"]]
    for name in METER_HEADERS:
        assert response.headers[name].isdigit(), name
    remaining = int(document.headers["x-quota-remaining"])
    assert int(response.headers["x-quota-remaining"]) == remaining - 1
    assert response.links == document.links
    assert response.headers["cache-control"] == "no-store"
    assert "accept" in response.headers["vary"].lower()


@pytest.mark.parametrize(
    ("path", "columns"),
    [
        ("/api/v1/schools/search?q=academy&per_page=9", SCHOOLS_COLUMNS),
        ("/api/v1/schools/nearby?postcode=SW1A%201AA&per_page=9", SCHOOLS_COLUMNS),
        ("/api/v1/rankings?metric=svc_score&phase=primary&per_page=9", RANKINGS_COLUMNS),
        ("/api/v1/areas/local-authorities?per_page=9", AUTHORITIES_COLUMNS),
        ("/api/v1/data-freshness", FRESHNESS_COLUMNS),
    ],
)
def test_every_commercial_list_answers_csv_in_the_clis_columns(
    http: httpx.Client, enterprise: dict[str, str], path: str, columns: tuple[str, ...]
) -> None:
    data = http.get(path, headers=enterprise).json()["data"]
    response = http.get(path, headers={**enterprise, "Accept": "text/csv"})
    assert response.status_code == 200
    rows = parsed(response.text)
    assert rows and tuple(rows[0]) == columns
    assert rows == [as_cells(item, columns) for item in data]


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        (None, "application/json"),
        ("*/*", "application/json"),
        ("application/json", "application/json"),
        ("text/csv", "text/csv"),
        ("text/*", "text/csv"),
        ("application/json;q=0.4, text/csv;q=0.5", "text/csv"),
        ("text/csv;q=0.5, application/json", "application/json"),
        ("text/html, application/xhtml+xml, */*;q=0.8", "application/json"),
        ("application/json;q=0, */*", "text/csv"),
    ],
)
def test_the_representation_follows_the_accept_q_values(
    http: httpx.Client, accept: str | None, expected: str
) -> None:
    headers = {} if accept is None else {"Accept": accept}
    response = http.get("/api/v1/search?query=primary", headers=headers)
    assert response.status_code == 200
    assert response.headers["content-type"].split(";")[0] == expected
    assert "accept" in response.headers["vary"].lower()


def test_an_accept_allowing_neither_json_nor_csv_is_406_in_the_tiers_error_shape(
    http: httpx.Client, enterprise: dict[str, str]
) -> None:
    xml = {"Accept": "application/xml"}
    public = http.get("/api/v1/search?query=primary", headers=xml)
    assert public.status_code == 406
    assert public.json()["code"] == "not_acceptable" and isinstance(public.json()["error"], str)
    keyed = http.get("/api/v1/schools", headers={**enterprise, **xml})
    assert keyed.status_code == 406
    error = keyed.json()["error"]
    assert error["code"] == "not_acceptable"
    assert error["request_id"] == keyed.headers["x-request-id"]
    assert error["details"] == {"available": ["application/json", "text/csv"]}
    assert "accept" in keyed.headers["vary"].lower()


def test_single_answers_and_errors_stay_json_whatever_is_accepted(
    http: httpx.Client, enterprise: dict[str, str]
) -> None:
    csv_only = {"Accept": "text/csv"}
    record = http.get("/api/v1/schools/138180", headers={**enterprise, **csv_only})
    assert record.status_code == 200 and record.json()["data"]["urn"] == 138180
    refused = http.get("/api/v1/schools?per_page=0", headers={**enterprise, **csv_only})
    assert refused.status_code == 400
    assert refused.headers["content-type"].startswith("application/json")
    assert refused.json()["error"]["code"] == "invalid_parameter"


def test_the_csv_representation_has_its_own_strong_etag(http: httpx.Client) -> None:
    url = "/api/v1/search?query=primary&limit=25"
    identity = {"Accept-Encoding": "identity"}
    as_json = http.get(url, headers=identity)
    as_csv = http.get(url, headers={**identity, "Accept": "text/csv"})
    assert as_json.headers["etag"] != as_csv.headers["etag"]
    assert not as_csv.headers["etag"].startswith("W/")
    again = http.get(
        url, headers={**identity, "Accept": "text/csv", "If-None-Match": as_json.headers["etag"]}
    )
    assert again.status_code == 200, "a JSON validator never revalidates the CSV"
    same = http.get(
        url, headers={**identity, "Accept": "text/csv", "If-None-Match": as_csv.headers["etag"]}
    )
    assert same.status_code == 304


# ---------------------------------------------------------------------------- brotli


def raw(http: httpx.Client, url: str, headers: dict[str, str]) -> tuple[httpx.Headers, bytes]:
    with http.stream("GET", url, headers=headers) as response:
        return response.headers, b"".join(response.iter_raw())


@pytest.mark.parametrize("accept", ["application/json", "text/csv"])
def test_a_brotli_body_decodes_to_the_identity_body(http: httpx.Client, accept: str) -> None:
    url = "/api/v1/search?query=primary&limit=25"
    plain_headers, plain = raw(http, url, {"Accept": accept, "Accept-Encoding": "identity"})
    coded_headers, coded = raw(http, url, {"Accept": accept, "Accept-Encoding": "br"})
    assert len(plain) >= 1024 and "content-encoding" not in plain_headers
    assert coded_headers["content-encoding"] == "br"
    assert brotli.decompress(coded) == plain
    assert coded_headers["etag"] == plain_headers["etag"][:-1] + '-br"'
    assert "accept-encoding" in coded_headers["vary"].lower()


def test_a_keyed_csv_page_in_brotli_decodes_to_its_identity_form(
    http: httpx.Client, enterprise: dict[str, str]
) -> None:
    url = f"/api/v1/schools?local_authority={AUTHORITY}&per_page=30"
    csv_accept = {**enterprise, "Accept": "text/csv"}
    _, plain = raw(http, url, {**csv_accept, "Accept-Encoding": "identity"})
    headers, coded = raw(http, url, {**csv_accept, "Accept-Encoding": "gzip;q=0.5, br"})
    assert headers["content-encoding"] == "br" and "etag" not in headers
    assert brotli.decompress(coded) == plain


# ---------------------------------------------------------------------------- bulk lookup


def lookup(http: httpx.Client, headers: dict[str, str], body: Any) -> httpx.Response:
    return http.post("/api/v1/schools/lookup", json=body, headers=headers)


def test_a_lookup_answers_the_profiles_in_order_and_lists_what_it_did_not_find(
    http: httpx.Client, demo: Application
) -> None:
    headers = key_on(demo, "developer", "looker")
    asked = [OPEN[2], UNKNOWN, int(OPEN[0]), CLOSED, OPEN[1], PROPOSED]
    response = lookup(http, headers, {"urns": asked})
    assert response.status_code == 200, response.text
    body = response.json()
    assert [p["urn"] for p in body["data"]] == [int(OPEN[2]), int(OPEN[0]), int(OPEN[1])]
    assert body["meta"]["not_found"] == [UNKNOWN, CLOSED, PROPOSED]
    single = http.get(f"/api/v1/schools/{OPEN[2]}", headers=headers).json()["data"]
    assert body["data"][0] == single, "each profile exactly as GET /schools/{urn} gives it"
    assert body["meta"]["pagination"] == {
        "page": 1,
        "per_page": 6,
        "total": 3,
        "total_pages": 1,
        "next": None,
        "prev": None,
    }
    assert body["meta"]["request_id"] == response.headers["x-request-id"]
    assert "link" not in response.headers


def test_a_lookup_that_finds_nothing_is_answered_not_refused(
    http: httpx.Client, enterprise: dict[str, str]
) -> None:
    response = lookup(http, enterprise, {"urns": [UNKNOWN, CLOSED]})
    assert response.status_code == 200
    assert response.json()["data"] == [] and response.json()["meta"]["not_found"] == [
        UNKNOWN,
        CLOSED,
    ]


def test_one_lookup_lowers_the_quota_by_exactly_one(http: httpx.Client, demo: Application) -> None:
    headers = key_on(demo, "developer", "counted")
    before = int(http.get("/api/v1/meta", headers=headers).headers["x-quota-remaining"])
    response = lookup(http, headers, {"urns": [*OPEN, UNKNOWN]})
    assert response.status_code == 200
    assert int(response.headers["x-quota-remaining"]) == before - 1
    after = int(http.get("/api/v1/meta", headers=headers).headers["x-quota-remaining"])
    assert after == before - 2  # the lookup and this request: one each


def test_more_urns_than_the_plans_per_page_maximum_are_refused(
    http: httpx.Client, demo: Application
) -> None:
    headers = key_on(demo, "developer", "greedy")
    urns = [str(100_000 + i) for i in range(26)]
    response = lookup(http, headers, {"urns": urns})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "limit_exceeds_plan"
    assert error["details"] == {"parameter": "urns", "max": 25}
    assert lookup(http, headers, {"urns": urns[:25]}).status_code == 200


@pytest.mark.parametrize(
    ("body", "code", "parameter"),
    [
        ({"urns": []}, "invalid_parameter", "urns"),
        ({"urns": ["138180", "140122", "138180"]}, "invalid_parameter", "urns"),
        ({"urns": ["138180", 138180]}, "invalid_parameter", "urns"),
        ({"urns": ["13818"]}, "invalid_urn", "urns"),
        ({"urns": [138180.5]}, "invalid_urn", "urns"),
        ({"urns": "138180"}, "invalid_parameter", "urns"),
        ({}, "invalid_parameter", "urns"),
        (["138180"], "invalid_parameter", "body"),
    ],
)
def test_bad_lookups_are_refused_with_their_code(
    http: httpx.Client, enterprise: dict[str, str], body: Any, code: str, parameter: str
) -> None:
    response = lookup(http, enterprise, body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == code
    assert error["details"]["parameter"] == parameter


def test_a_lookup_with_other_members_or_a_body_that_is_not_json_is_refused(
    http: httpx.Client, enterprise: dict[str, str]
) -> None:
    extra = lookup(http, enterprise, {"urns": ["138180"], "fields": ["name"]})
    assert extra.status_code == 400
    assert extra.json()["error"]["code"] == "unknown_parameter"
    broken = http.post(
        "/api/v1/schools/lookup",
        content=b'{"urns": [',
        headers={**enterprise, "Content-Type": "application/json"},
    )
    assert broken.status_code == 400
    assert broken.json()["error"]["details"] == {"parameter": "body"}


def test_a_lookup_needs_a_key_with_the_profile_feature(http: httpx.Client) -> None:
    response = lookup(http, {}, {"urns": ["138180"]})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "missing_api_key"


# ---------------------------------------------------------------------------- described


def test_the_served_document_describes_the_lookup_csv_links_and_406(http: httpx.Client) -> None:
    paths = http.get("/api/v1/openapi.json").json()["paths"]
    lookup_op = paths["/api/v1/schools/lookup"]["post"]
    assert lookup_op["operationId"] == "lookupSchools"
    assert lookup_op["x-feature"] == "school_profile"
    urns = lookup_op["requestBody"]["content"]["application/json"]["schema"]["properties"]["urns"]
    assert (urns["minItems"], urns["maxItems"]) == (1, 100)
    assert "404" not in lookup_op["responses"], "a lookup lists what it did not find"
    for path in ("/api/v1/schools", "/api/v1/search", "/api/v1/data-freshness"):
        responses = paths[path]["get"]["responses"]
        assert set(responses["200"]["content"]) == {"application/json", "text/csv"}, path
        assert "406" in responses, path
    assert "Link" in paths["/api/v1/rankings"]["get"]["responses"]["200"]["headers"]
    single = paths["/api/v1/schools/{urn}"]["get"]["responses"]
    assert set(single["200"]["content"]) == {"application/json"} and "406" not in single


def test_no_mcp_tool_runs_the_lookup() -> None:
    from schooldata.entrypoints.mcp_server.tools import COMMERCIAL_TOOLS, PUBLIC_TOOLS

    assert len(COMMERCIAL_TOOLS) == 10
    assert all(t.operation.name != "lookupSchools" for t in (*PUBLIC_TOOLS, *COMMERCIAL_TOOLS))
