"""A `since` older than the changes kept is 410 wherever an error becomes a status: the
pipeline's refusals (REST routes, MCP), Litestar's fallback handlers, and the OpenAPI
document of the one operation that can answer it."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Litestar, get
from litestar.testing import TestClient

from schooldata.application.operations.registry import REGISTRY
from schooldata.domain.errors import DomainError, SinceExpired
from schooldata.entrypoints import refusals
from schooldata.entrypoints.rest import errors
from schooldata.entrypoints.schemas.responses import entry_responses

EXPIRED = SinceExpired("20000101T000000Z-000001", oldest="20261207T060000Z-000001")


def test_both_status_tables_answer_410() -> None:
    assert refusals.status_of(EXPIRED) == 410
    assert refusals.status_of_kind(SinceExpired) == 410
    assert errors.status_of(EXPIRED) == 410


def test_litestars_fallback_answers_410_in_the_commercial_shape() -> None:
    @get("/boom", sync_to_thread=False)
    def boom() -> None:
        raise EXPIRED

    def tiered(request: Any, exc: Exception) -> Any:
        request.scope[errors.COMMERCIAL_TIER_KEY] = True
        assert isinstance(exc, DomainError)
        return errors.domain_error_response(request, exc)

    app = Litestar([boom], exception_handlers={Exception: tiered})
    with TestClient(app=app) as client:
        answer = client.get("/boom")
    assert answer.status_code == 410
    assert answer.json()["error"]["code"] == "since_expired"
    assert answer.json()["error"]["details"]["oldest"] == "20261207T060000Z-000001"


@pytest.mark.parametrize("name", [op.name for op in REGISTRY.operations])
def test_only_the_changes_document_a_410(name: str) -> None:
    responses = entry_responses(REGISTRY.entry_of(name))
    assert ("410" in responses) is (name == "listChanges")
    if name == "listChanges":
        assert "since_expired" in responses["410"]["description"]
