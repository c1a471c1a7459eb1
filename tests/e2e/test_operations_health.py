"""Liveness, readiness and the landing page: public, unmetered, outside the commercial gate."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import attrs
import pytest
from litestar.testing import TestClient
from tests.conftest import issue_key

from schooldata.adapters.memory.access import InMemoryRateLimiter
from schooldata.adapters.memory.store import InMemoryStore
from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap_memory
from schooldata.domain.dataset import DatasetRecord
from schooldata.entrypoints.rest.app import create_app

BASE_URL = "http://testserver.local"  # the test client's host, as a deployment configures it


@contextmanager
def serving(application: Application) -> Iterator[TestClient]:  # type: ignore[type-arg]
    with TestClient(app=create_app(application, base_url=BASE_URL)) as client:  # type: ignore[arg-type]
        yield client


def with_ports(app: Application, **ports: object) -> Application:
    return attrs.evolve(app, ports=attrs.evolve(app.ports, **ports))


def test_health_is_live(client: TestClient) -> None:
    response = client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["x-request-id"].startswith("req_")


def test_ready_reports_database_dataset_and_metering(client: TestClient) -> None:
    response = client.get("/ready")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ready"
    assert body["checks"]["database"] == {"status": "ok"}
    assert body["checks"]["dataset"]["status"] == "ok"
    assert body["checks"]["dataset"]["name"] == "gias_establishments"
    assert body["checks"]["dataset"]["rows"] > 0
    assert body["checks"]["metering"] == {"status": "ok", "backend": "memory"}
    assert response.headers["cache-control"] == "no-store"


def test_not_ready_before_the_register_is_imported() -> None:
    with serving(bootstrap_memory(store=InMemoryStore())) as client:
        response = client.get("/ready")
        assert response.status_code == 503
        body = response.json()
        assert body["status"] == "unavailable"
        assert body["checks"]["dataset"] == {"status": "missing", "name": "gias_establishments"}
        assert client.get("/health").status_code == 200, "alive all the same"


class BrokenRegistry:
    def current(self) -> list[DatasetRecord]:
        raise ConnectionError("connection to server at 10.0.0.9 failed: password=hunter2")


def test_not_ready_when_the_database_fails_and_no_internals_leak(app: Application) -> None:
    with serving(with_ports(app, datasets=BrokenRegistry())) as client:
        response = client.get("/ready")
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["database"] == {"status": "error", "error": "ConnectionError"}
    assert checks["dataset"]["status"] == "unknown"
    assert "hunter2" not in response.text and "10.0.0.9" not in response.text


def test_a_failed_readiness_check_logs_one_line_without_a_traceback(
    app: Application, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="schooldata.operations")
    with serving(with_ports(app, datasets=BrokenRegistry())) as client:
        client.get("/ready")
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    line = warnings[0].getMessage()
    assert line.startswith("readiness check failed: ConnectionError")
    assert "\n" not in line and warnings[0].exc_info is None
    debug = [r for r in caplog.records if r.levelno == logging.DEBUG]
    assert debug and debug[0].exc_info is not None  # the traceback, for whoever asks for it


class PingedLimiter(InMemoryRateLimiter):
    def __init__(self, healthy: bool) -> None:
        super().__init__()
        self._healthy = healthy
        self.pings = 0

    def ping(self) -> bool:
        self.pings += 1
        if not self._healthy:
            raise TimeoutError("redis timed out")
        return True


@pytest.mark.parametrize("healthy", [True, False])
def test_ready_pings_a_rate_limiter_that_can_be_pinged(app: Application, healthy: bool) -> None:
    limiter = PingedLimiter(healthy)
    with serving(with_ports(app, rate=limiter)) as client:
        response = client.get("/ready")
    assert limiter.pings == 1
    metering = response.json()["checks"]["metering"]
    if healthy:
        assert response.status_code == 200
        assert metering == {"status": "ok", "backend": "PingedLimiter"}
    else:
        assert response.status_code == 503
        assert metering == {"status": "error", "backend": "PingedLimiter", "error": "TimeoutError"}


class UnhealthyLimiter(InMemoryRateLimiter):
    def healthy(self) -> bool:
        return False


def test_a_limiter_reporting_itself_unhealthy_is_not_ready(app: Application) -> None:
    with serving(with_ports(app, rate=UnhealthyLimiter())) as client:
        assert client.get("/ready").status_code == 503


@pytest.mark.parametrize("path", ["/health", "/ready", "/metrics", "/", "/docs"])
def test_operational_routes_ignore_keys_and_are_never_metered(
    client: TestClient, app: Application, path: str
) -> None:
    key = issue_key(app)
    for headers in ({"Authorization": f"Bearer {key}"}, {"Authorization": "Bearer nonsense"}):
        response = client.get(path, headers=headers)
        assert response.status_code == 200, (path, response.text)
        assert "x-ratelimit-limit" not in response.headers
        assert "x-quota-remaining" not in response.headers
    meta = client.get("/api/v1/meta", headers={"Authorization": f"Bearer {key}"})
    assert meta.headers["x-quota-remaining"] == "999", "only the metered call counted"


def test_a_key_in_the_query_string_is_refused_on_operational_routes_too(
    client: TestClient,
) -> None:
    response = client.get("/health?api_key=svc_live_whatever")
    assert response.status_code == 400
    assert response.json()["code"] == "api_key_in_query"


def test_the_landing_page_links_docs_openapi_health_and_metrics(client: TestClient) -> None:
    response = client.get("/", headers={"Accept": "text/html"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    for href in ("/docs", "/api/v1/openapi.json", "/health", "/ready", "/metrics"):
        assert f'href="{href}"' in response.text
    as_json = client.get("/", headers={"Accept": "application/json"}).json()
    assert as_json["links"]["docs"] == "/docs"
    assert as_json["links"]["openapi"] == "/api/v1/openapi.json"
    assert "mcp" not in as_json["links"], "no MCP endpoint is mounted in this app"


def test_the_landing_page_links_the_mcp_endpoint_when_it_is_mounted(app: Application) -> None:
    from schooldata.entrypoints.mcp_server.mount import build_mount

    mount = build_mount(app)
    asgi = create_app(
        app,
        base_url=BASE_URL,
        extra_route_handlers=mount.route_handlers,
        lifespan=mount.lifespan,
    )
    with TestClient(app=asgi) as client:  # type: ignore[arg-type]
        assert "<code>/mcp</code>: the MCP endpoint" in client.get("/").text
        assert (
            client.get("/", headers={"Accept": "application/json"}).json()["links"]["mcp"] == "/mcp"
        )


class ReportingLimiter(InMemoryRateLimiter):
    """Like the Redis limiter: falls back to per-process windows and says so in `health()`."""

    def __init__(self, state: str) -> None:
        super().__init__()
        self._state = state

    def health(self) -> dict[str, str]:
        if self._state == "degraded":
            return {"rate_limiter": "degraded", "detail": "Redis unreachable: per-process windows"}
        return {"rate_limiter": "redis"}


def test_a_degraded_limiter_is_reported_but_stays_ready(app: Application) -> None:
    with serving(with_ports(app, rate=ReportingLimiter("degraded"))) as client:
        response = client.get("/ready")
        assert response.status_code == 200, "still serving: pulling every instance would be worse"
        body = response.json()
        assert body["status"] == "degraded"
        assert body["checks"]["metering"] == {
            "status": "degraded",
            "backend": "ReportingLimiter",
            "detail": "Redis unreachable: per-process windows",
        }
    with serving(with_ports(app, rate=ReportingLimiter("ok"))) as client:
        body = client.get("/ready").json()
        assert body["status"] == "ready"
        assert body["checks"]["metering"] == {"status": "ok", "backend": "ReportingLimiter"}
