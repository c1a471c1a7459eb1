"""A path nothing serves belongs to no tier: anonymous requests to it get the public error shape
(`{"error": "<message>", "code": ...}`, the public `Error` schema), requests with credentials
the commercial one (`{"error": {...}}`); so does its query-key refusal. Existing commercial
paths keep the commercial shape for everyone; the access log and metrics name the tier the
answer took."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.support.exposition import samples, series
from tests.support.http import METER_HEADERS, bearer

from schooldata.application.service import Application
from schooldata.entrypoints.observability.metrics import Metrics
from schooldata.entrypoints.rest.app import create_app
from schooldata.entrypoints.rest.openapi import build_document

UNKNOWN = ["/api/v1/", "/api/v1/nope", "/api/v1/schools/100001/nope", "/api", "/nope"]
DOCUMENT = build_document()
PUBLIC_ERROR = DOCUMENT["components"]["schemas"]["Error"]


@pytest.fixture
def metrics() -> Metrics:
    return Metrics()


@pytest.fixture
def client(app: Application, metrics: Metrics) -> Iterator[TestClient]:  # type: ignore[type-arg]
    with TestClient(
        app=create_app(app, metrics=metrics, base_url="http://testserver.local")
    ) as client:
        yield client


def assert_public(body: Any, code: str) -> None:
    errors = list(Draft202012Validator(PUBLIC_ERROR).iter_errors(body))
    assert not errors, (body, [e.message for e in errors])
    assert isinstance(body["error"], str) and body["code"] == code


def assert_commercial(body: Any, code: str, request_id: str) -> None:
    assert set(body) == {"error"}, body
    assert body["error"]["code"] == code
    assert body["error"]["request_id"] == request_id


@pytest.mark.parametrize("path", UNKNOWN)
@pytest.mark.parametrize("method", ["GET", "POST", "HEAD"])
def test_an_anonymous_request_to_an_unknown_path_gets_the_public_404(
    client: TestClient,  # type: ignore[type-arg]
    path: str,
    method: str,
) -> None:
    response = client.request(method, path)
    assert response.status_code == 404
    if method != "HEAD":
        assert_public(response.json(), "not_found")
    assert "x-quota-limit" not in response.headers


@pytest.mark.parametrize("path", UNKNOWN)
@pytest.mark.parametrize("header", ["Authorization", "X-API-Key"])
def test_a_keyed_request_to_an_unknown_path_gets_the_commercial_404_with_its_readings(
    client: TestClient,  # type: ignore[type-arg]
    app: Application,
    path: str,
    header: str,
) -> None:
    key = issue_key(app)
    value = f"Bearer {key}" if header == "Authorization" else key
    response = client.get(path, headers={header: value})
    assert response.status_code == 404
    assert_commercial(response.json(), "not_found", response.headers["x-request-id"])
    assert set(METER_HEADERS) <= set(response.headers), "a known caller's readings"
    assert response.headers["cache-control"] == "no-store"


@pytest.mark.parametrize("path", ["/api/v1/", "/api/v1/nope"])
def test_a_bad_key_to_an_unknown_path_is_refused_as_unauthenticated(
    client: TestClient,  # type: ignore[type-arg]
    path: str,
) -> None:
    response = client.get(path, headers=bearer("svc_live_" + "x" * 40))
    assert response.status_code == 401
    assert_commercial(response.json(), "invalid_api_key", response.headers["x-request-id"])


@pytest.mark.parametrize("path", ["/api/v1/nope", "/api/v1/", "/nope"])
def test_an_unknown_path_s_query_key_refusal_takes_the_shape_its_credentials_choose(
    client: TestClient,  # type: ignore[type-arg]
    app: Application,
    path: str,
) -> None:
    anonymous = client.get(f"{path}?api_key=svc_live_secret")
    assert anonymous.status_code == 400
    assert_public(anonymous.json(), "api_key_in_query")
    keyed = client.get(f"{path}?api_key=svc_live_secret", headers=bearer(issue_key(app)))
    assert keyed.status_code == 400
    assert_commercial(keyed.json(), "api_key_in_query", keyed.headers["x-request-id"])


@pytest.mark.parametrize("path", ["/api/v1/meta", "/api/v1/schools", "/mcp"])
def test_an_existing_commercial_path_keeps_the_commercial_shape_for_everyone(
    client: TestClient,  # type: ignore[type-arg]
    path: str,
) -> None:
    refused = client.get(f"{path}?api_key=svc_live_secret")
    assert refused.status_code == 400
    assert_commercial(refused.json(), "api_key_in_query", refused.headers["x-request-id"])


def test_the_metrics_count_each_answer_under_the_tier_it_took(
    client: TestClient,  # type: ignore[type-arg]
    app: Application,
    metrics: Metrics,
) -> None:
    client.get("/api/v1/nope")
    client.get("/api/v1/nope", headers=bearer(issue_key(app)))
    client.get("/api/v1/nope?api_key=svc_live_secret")
    client.get("/api/v1/meta?api_key=svc_live_secret")
    values = samples(metrics.render())
    requests = "schooldata_http_requests_total"
    unmatched = {"route": "(unmatched)", "method": "GET", "status": "404"}
    assert values[series(requests, **unmatched, tier="public")] == 1
    assert values[series(requests, **unmatched, tier="commercial")] == 1
    refused = {"route": "(api_key_in_query)", "method": "GET", "status": "400"}
    assert values[series(requests, **refused, tier="public")] == 1
    assert values[series(requests, **refused, tier="commercial")] == 1
