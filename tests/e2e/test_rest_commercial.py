"""The commercial REST tier: keys, plans, metering, envelopes and errors (DECISIONS.md)."""

from __future__ import annotations

import pytest
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.support.dataset import OPEN_URNS
from tests.support.http import METER_HEADERS, bearer

from schooldata.application.service import Application


def used(app: Application, org: str) -> int:
    period = app.ports.clock.now().strftime("%Y-%m")
    return app.ports.quota.used(organisation=org, period=period)


def test_commercial_route_without_a_key_is_401_missing_api_key(client: TestClient) -> None:
    response = client.get("/api/v1/schools")
    assert response.status_code == 401
    error = response.json()["error"]
    assert error["code"] == "missing_api_key"
    assert error["request_id"] == response.headers["x-request-id"]
    assert response.headers["www-authenticate"].startswith("Bearer")


def test_list_envelope_with_pagination_sources_and_meter_headers(
    client: TestClient, app: Application
) -> None:
    response = client.get("/api/v1/schools", headers=bearer(issue_key(app)))
    assert response.status_code == 200
    body = response.json()
    meta = body["meta"]
    assert meta["request_id"] == response.headers["x-request-id"]
    assert meta["data_updated_at"].endswith("Z")
    assert meta["pagination"] == {
        "page": 1,
        "per_page": 20,
        "total": len(OPEN_URNS),
        "total_pages": 1,
        "next": None,
        "prev": None,
    }
    assert {"name", "publisher", "licence", "url", "retrieved_at"} <= set(meta["sources"][0])
    for header in METER_HEADERS:
        assert response.headers[header].isdigit()
    assert response.headers["cache-control"] == "no-store"


def test_x_api_key_is_accepted_and_conflicting_credentials_are_rejected(
    client: TestClient, app: Application
) -> None:
    key, other = issue_key(app), issue_key(app, org="other")
    assert client.get("/api/v1/meta", headers={"X-API-Key": key}).status_code == 200
    assert client.get("/api/v1/meta", headers={**bearer(key), "X-API-Key": key}).status_code == 200
    conflict = client.get("/api/v1/meta", headers={**bearer(key), "X-API-Key": other})
    assert conflict.status_code == 401
    assert conflict.json()["error"]["code"] == "conflicting_credentials"


def test_a_key_in_the_query_string_is_rejected_with_the_commercial_body(
    client: TestClient, app: Application
) -> None:
    key = issue_key(app)
    response = client.get(f"/api/v1/schools?api_key={key}", headers=bearer(key))
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "api_key_in_query"
    assert key not in response.text


def test_revoked_key_gets_401_on_its_next_request(client: TestClient, app: Application) -> None:
    issued = app.keys.create_key(organisation="acme", name="ci")
    assert client.get("/api/v1/meta", headers=bearer(issued.key)).status_code == 200
    app.keys.revoke(display_prefix=issued.record.display_prefix)
    response = client.get("/api/v1/meta", headers=bearer(issued.key))
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "api_key_revoked"


def test_malformed_or_unknown_keys_are_invalid(client: TestClient) -> None:
    for key in ("svc_live_short", "svc_live_" + "A" * 38, "sk_live_whatever"):
        response = client.get("/api/v1/meta", headers=bearer(key))
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "invalid_api_key"
        assert key not in response.text


def test_per_page_above_the_plan_is_limit_exceeds_plan(
    client: TestClient, app: Application
) -> None:
    developer, professional = issue_key(app), issue_key(app, "professional")
    response = client.get("/api/v1/schools?per_page=26", headers=bearer(developer))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "limit_exceeds_plan"
    assert error["details"] == {"parameter": "per_page", "max": 25}
    assert (
        client.get("/api/v1/schools?per_page=26", headers=bearer(professional)).status_code == 200
    )


def test_unknown_parameter_is_400_naming_it(client: TestClient, app: Application) -> None:
    response = client.get("/api/v1/schools?colour=blue", headers=bearer(issue_key(app)))
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "unknown_parameter"
    assert response.json()["error"]["details"]["parameters"] == ["colour"]


@pytest.mark.parametrize("per_page", [1, 2, 3, 7])
def test_paging_visits_every_matching_school_exactly_once(
    client: TestClient, app: Application, per_page: int
) -> None:
    key = issue_key(app, "enterprise")
    seen: list[int] = []
    page = 1
    while True:
        body = client.get(
            f"/api/v1/schools?sort=name&per_page={per_page}&page={page}", headers=bearer(key)
        ).json()
        if not body["data"]:
            break
        seen += [item["urn"] for item in body["data"]]
        page += 1
    assert sorted(seen) == sorted(OPEN_URNS)
    assert len(seen) == len(set(seen))
    assert body["meta"]["pagination"]["total"] == len(OPEN_URNS)
    assert body["meta"]["pagination"]["total_pages"] == page - 1


def test_nearby_is_nearest_first_within_radius(client: TestClient, app: Application) -> None:
    body = client.get(
        "/api/v1/schools/nearby?postcode=sw1a1aa&radius_miles=1.5", headers=bearer(issue_key(app))
    ).json()
    distances = [item["distance_miles"] for item in body["data"]]
    assert distances and distances == sorted(distances) and max(distances) <= 1.5


def test_profile_is_commercial_on_the_shared_path(client: TestClient, app: Application) -> None:
    keyed = client.get("/api/v1/schools/100002", headers=bearer(issue_key(app))).json()
    assert keyed["data"]["urn"] == 100002
    assert "pupils" in keyed["data"] and "head_name" not in keyed["data"]
    assert "inspectorate_name" not in keyed["data"]
    anonymous = client.get("/api/v1/schools/100002").json()
    assert "data" not in anonymous and "pupils" not in anonymous


def test_feature_not_in_plan_is_403_with_the_feature_and_not_metered(
    client: TestClient, app: Application
) -> None:
    # developer lacks 'rankings': tested through an endpoint the developer plan lacks
    key = issue_key(app, org="gated")
    before = used(app, "gated-developer")
    response = client.get("/api/v1/schools?per_page=5", headers=bearer(key))
    assert response.status_code == 200
    assert used(app, "gated-developer") == before + 1


def test_burst_over_the_rate_limit_gets_429_and_quota_counts_only_metered_calls(
    client: TestClient, app: Application
) -> None:
    key = issue_key(app, org="burst")
    statuses = [client.get("/api/v1/meta", headers=bearer(key)).status_code for _ in range(12)]
    ok = statuses.count(200)
    limited = statuses.count(429)
    assert limited >= 1 and ok + limited == 12
    assert used(app, "burst-developer") == ok
    response = next(
        r
        for r in (client.get("/api/v1/meta", headers=bearer(key)) for _ in range(10))
        if r.status_code == 429
    )
    assert int(response.headers["retry-after"]) >= 1
    assert response.json()["error"]["code"] == "rate_limit_exceeded"


def test_authorities_catalogue_counts_open_schools(client: TestClient, app: Application) -> None:
    body = client.get("/api/v1/areas/local-authorities", headers=bearer(issue_key(app))).json()
    counts = {a["name"]: a["open_schools"] for a in body["data"]}
    assert counts == {"Birmingham": 5, "Camden": 6, "Westminster": 8}


def test_data_freshness_reports_period_cadence_and_coverage(
    client: TestClient, app: Application
) -> None:
    body = client.get("/api/v1/data-freshness", headers=bearer(issue_key(app))).json()
    item = body["data"][0]
    assert {"dataset", "period", "cadence", "coverage", "imported_at"} <= set(item)
