"""Every domain error answers with the same status and code on every road it can take: a REST
route (anonymous and keyed, on a public and on a commercial address), Litestar's fallback
handlers (an error a page raised), and MCP's tool errors. The one map is
`entrypoints/refusals.py`; a new error class without an example here fails, named.

Each error is raised by an in-memory store whose school lookup fails with it, so it travels
the whole way a real failure would (the pipeline, the face, the edge).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar import get
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.e2e.test_mcp_support import TEST_BASE_URL, McpHttp, bearer
from tests.support.dataset import build_store

from schooldata.adapters.memory.store import InMemoryStore
from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap_memory, build_asgi
from schooldata.domain import errors, keys, metering  # (every module declaring domain errors)
from schooldata.domain.errors import DomainError
from schooldata.domain.urn import Urn
from schooldata.entrypoints.refusals import status_of
from schooldata.entrypoints.rest.app import create_app
from schooldata.settings import load_settings

READING = metering.MeterReading(100, 0, 1_788_264_001, 2_000_000, 0, 1_790_812_800)

# An example of each error class (one that takes no arguments is made bare).
EXAMPLES: dict[type[DomainError], Callable[[], DomainError]] = {
    DomainError: lambda: DomainError("Something the domain refuses."),
    errors.InvalidParameter: lambda: errors.InvalidParameter("phase", "Not a phase."),
    errors.UnknownParameter: lambda: errors.UnknownParameter(["colour"]),
    errors.UnknownOperation: lambda: errors.UnknownOperation("nope"),
    errors.TooManyParameters: lambda: errors.TooManyParameters(10),
    errors.QueryTooLong: lambda: errors.QueryTooLong(100),
    errors.InvalidUrn: lambda: errors.InvalidUrn("12"),
    errors.UnknownPostcode: lambda: errors.UnknownPostcode("ZZ1 1ZZ"),
    errors.SchoolNotFound: lambda: errors.SchoolNotFound("100001"),
    errors.OrganisationNotFound: lambda: errors.OrganisationNotFound("acme"),
    errors.KeyNotFound: lambda: errors.KeyNotFound("svc_live_abcd"),
    errors.FeatureNotInPlan: lambda: errors.FeatureNotInPlan("inspections", "developer"),
    errors.LimitExceedsPlan: lambda: errors.LimitExceedsPlan("per_page", 100, "developer"),
    errors.SinceExpired: lambda: errors.SinceExpired("x", oldest="20261207T060000Z-000001"),
    errors.NotAcceptable: lambda: errors.NotAcceptable(("application/json",)),
    errors.ImportRejected: lambda: errors.ImportRejected("The file is not the register."),
    errors.DownloadFailed: lambda: errors.DownloadFailed("The publisher did not answer."),
    keys.AuthenticationFailed: lambda: keys.AuthenticationFailed("No."),
    metering.LimitReached: lambda: metering.LimitReached("Slow down.", READING, 1),
    metering.RateLimitExceeded: lambda: metering.RateLimitExceeded("Slow down.", READING, 1),
    metering.QuotaExceeded: lambda: metering.QuotaExceeded("Quota used.", READING, 60),
}


def _every_error_class() -> list[type[DomainError]]:
    found: list[type[DomainError]] = []
    waiting: list[type[DomainError]] = [DomainError]
    while waiting:
        kind = waiting.pop()
        found.append(kind)
        waiting.extend(kind.__subclasses__())
    return sorted(found, key=lambda kind: kind.__name__)


def _example(kind: type[DomainError]) -> DomainError:
    made = EXAMPLES.get(kind)
    if made is not None:
        return made()
    try:
        return kind()  # type: ignore[call-arg]
    except TypeError:
        pytest.fail(f"no example of {kind.__name__}: add one to EXAMPLES")


class FailingStore(InMemoryStore):
    """The demo's store, whose school lookup raises `failure` while one is set."""

    failure: DomainError | None = None

    def get(self, *, urn: Urn) -> Any:
        if self.failure is not None:
            raise self.failure
        return super().get(urn=urn)


class Served:
    def __init__(self, app: Application, store: FailingStore, rest: Any, mcp: Any) -> None:
        self.app, self.store, self.rest, self.mcp = app, store, rest, mcp
        self.key = issue_key(app, "enterprise")


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    store = build_store()
    store.__class__ = FailingStore
    assert isinstance(store, FailingStore)
    app = bootstrap_memory(store=store)

    @get("/boom", sync_to_thread=False)
    def boom() -> None:  # a page raising: Litestar's fallback handlers answer
        raise store.failure or RuntimeError("no failure set")

    rest = create_app(app, base_url=TEST_BASE_URL, extra_route_handlers=[boom])
    settings = load_settings(environ={}, home=Path(tempfile.mkdtemp()), base_url=TEST_BASE_URL)
    with (
        TestClient(app=rest, base_url=TEST_BASE_URL) as rest_client,  # type: ignore[arg-type]
        TestClient(app=build_asgi(app, settings), base_url=TEST_BASE_URL) as mcp_client,
    ):
        yield Served(app, store, rest_client, mcp_client)


def _http_code(body: Any) -> str:
    error = body["error"]
    return str(error["code"] if isinstance(error, dict) else body["code"])


@pytest.mark.parametrize("kind", _every_error_class(), ids=lambda kind: kind.__name__)
def test_every_domain_error_has_one_status_and_code_on_every_road(
    served: Served, kind: type[DomainError]
) -> None:
    error = _example(kind)
    expected = (status_of(error), error.code)
    served.store.failure = error
    keyed = bearer(served.key)
    roads = {
        "public route, anonymous": ("/api/v1/schools/100001", {}),
        "public route, keyed": ("/api/get-school?urn=100001", keyed),
        "route of both tiers, keyed": ("/api/v1/schools/100001", keyed),
        "commercial route, keyed": ("/api/v1/schools/100001/inspections", keyed),
        "Litestar's fallback, anonymous": ("/boom", {}),
        "Litestar's fallback, keyed": ("/boom", keyed),
    }
    try:
        answered = {}
        for road, (path, headers) in roads.items():
            response = served.rest.get(path, headers=headers)
            answered[road] = (response.status_code, _http_code(response.json()))
        for road, headers in (("MCP, anonymous", {}), ("MCP, keyed", keyed)):
            result = McpHttp(served.mcp, headers).call("get_school", {"urn": "100001"})
            assert result["isError"], result
            answered[road] = (expected[0], _http_code(result["structuredContent"]))
    finally:
        served.store.failure = None
    assert answered == dict.fromkeys(answered, expected)


def test_every_error_class_is_walked() -> None:
    names = {kind.__name__ for kind in _every_error_class()}
    assert {"SearchUnavailable", "ConflictingCredentials", "QuotaExceeded"} <= names
