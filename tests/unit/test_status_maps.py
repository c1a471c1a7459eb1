"""A `since` older than the changes kept is 410 wherever an error becomes a status: the
pipeline's refusals (REST routes, MCP), Litestar's fallback handlers, and the OpenAPI
document of the one operation that can answer it."""

from __future__ import annotations

import pytest
from litestar import Litestar, get
from litestar.testing import TestClient

from schooldata.application.operations.registry import REGISTRY
from schooldata.bootstrap import bootstrap_memory
from schooldata.domain.errors import SinceExpired
from schooldata.entrypoints import refusals
from schooldata.entrypoints.hosts import HostPolicy
from schooldata.entrypoints.http.route_table import RouteTable
from schooldata.entrypoints.observability.metrics import Metrics
from schooldata.entrypoints.rest import errors
from schooldata.entrypoints.rest.cors import Cors, cors_policy
from schooldata.entrypoints.rest.edge import HttpEdge
from schooldata.entrypoints.rest.routes import Routes
from schooldata.entrypoints.schemas.responses import entry_responses

EXPIRED = SinceExpired("20000101T000000Z-000001", oldest="20261207T060000Z-000001")


def test_the_one_status_table_answers_410() -> None:
    assert refusals.status_of(EXPIRED) == 410
    assert refusals.status_of_kind(SinceExpired) == 410


def test_litestars_fallback_answers_410_in_the_commercial_shape_with_credentials() -> None:
    @get("/boom", sync_to_thread=False)
    def boom() -> None:
        raise EXPIRED

    bare = Litestar([boom], exception_handlers={Exception: errors.unexpected_response})
    served = HttpEdge(
        bare,
        routes=Routes(bootstrap_memory().pipeline, base_url=None),
        table=RouteTable(),
        new_request_id=lambda: "req_" + "A" * 20,
        metrics=Metrics(),
        cors=Cors(cors_policy(())),
        allowed_hosts=HostPolicy.configured(base_url="http://testserver.local"),
    )
    with TestClient(app=served) as client:  # type: ignore[arg-type]
        answer = client.get("/boom", headers={"X-API-Key": "svc_live_whatever"})
    assert answer.status_code == 410
    assert answer.json()["error"]["code"] == "since_expired"
    assert answer.json()["error"]["details"]["oldest"] == "20261207T060000Z-000001"


@pytest.mark.parametrize("name", [op.name for op in REGISTRY.operations])
def test_only_the_changes_document_a_410(name: str) -> None:
    responses = entry_responses(REGISTRY.entry_of(name))
    assert ("410" in responses) is (name == "listChanges")
    if name == "listChanges":
        assert "since_expired" in responses["410"]["description"]
