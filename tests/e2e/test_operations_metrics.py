"""Prometheus metrics: requests, latency, metering, limits and MCP calls; never a secret."""

from __future__ import annotations

import datetime as dt
import gc
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.e2e.test_mcp_support import McpHttp, served
from tests.support.dataset import build_store
from tests.support.exposition import samples, series

from schooldata.application.operations.declaration import Entry
from schooldata.application.operations.registry import REGISTRY
from schooldata.application.pipeline import MCP, Credentials
from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap_memory
from schooldata.entrypoints.observability.metrics import MAX_SERIES_PER_FAMILY, Metrics
from schooldata.entrypoints.rest.app import create_app

NOW = dt.datetime(2025, 6, 1, 12, 0, 0, tzinfo=dt.UTC)


class FixedClock:
    def now(self) -> dt.datetime:
        return NOW

    def timestamp(self) -> float:
        return self.now().timestamp()


@pytest.fixture
def fixed_app() -> Application:
    return bootstrap_memory(store=build_store(), clock=FixedClock())


@pytest.fixture
def metrics() -> Metrics:
    return Metrics()


@pytest.fixture
def observed(fixed_app: Application, metrics: Metrics) -> Iterator[TestClient]:  # type: ignore[type-arg]
    asgi = create_app(fixed_app, base_url="http://testserver.local", metrics=metrics)
    with TestClient(app=asgi) as client:  # type: ignore[arg-type]
        yield client


def test_metrics_are_prometheus_text(
    observed: TestClient, fixed_app: Application, metrics: Metrics
) -> None:
    observed.get("/api/v1/search?query=st%20mary")
    key = issue_key(fixed_app)  # developer: 5 requests per second; the clock stands still
    for _ in range(6):
        observed.get("/api/v1/meta", headers={"Authorization": f"Bearer {key}"})
    metrics.mcp_call("search_schools")
    response = observed.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    assert response.headers["cache-control"] == "no-store"
    text = response.text
    assert text.endswith("\n")
    for family, kind in (
        ("schooldata_http_requests_total", "counter"),
        ("schooldata_http_request_duration_seconds", "histogram"),
        ("schooldata_metered_calls_total", "counter"),
        ("schooldata_limit_rejections_total", "counter"),
        ("schooldata_mcp_calls_total", "counter"),
    ):
        assert f"# TYPE {family} {kind}\n" in text
    assert "# TYPE schooldata_http_requests_in_progress gauge\n" in text
    values = samples(text)
    assert values[series("schooldata_build_info", version="0.1.0")] == 1
    assert values[series("schooldata_http_requests_in_progress")] == 1, "the scrape itself"
    assert values[series("schooldata_dataset_rows", dataset="gias_establishments")] > 0
    # The standard process and Python families, of the process that answered.
    assert values[series("process_start_time_seconds")] > 0
    assert values[series("process_resident_memory_bytes")] > 0
    assert any(name == "python_info" for name, _ in values)
    assert any(name == "python_gc_collections_total" for name, _ in values)


def test_a_family_appears_once_it_has_a_series(metrics: Metrics) -> None:
    """As in prometheus_client's multiprocess mode: the files hold series, not families."""
    assert "schooldata_mcp_calls_total" not in metrics.render()
    metrics.mcp_call("search_schools")
    assert "# TYPE schooldata_mcp_calls_total counter" in metrics.render()


def test_requests_are_counted_by_route_template_status_and_tier(
    observed: TestClient, fixed_app: Application
) -> None:
    key = issue_key(fixed_app)
    observed.get("/api/v1/schools/100001")
    observed.get("/api/v1/schools/100002")
    observed.get("/api/v1/schools/999999")
    observed.get("/api/v1/schools/100001", headers={"Authorization": f"Bearer {key}"})
    observed.get("/api/v1/meta")
    observed.get("/no/such/route")
    values = samples(observed.get("/metrics").text)
    requests = "schooldata_http_requests_total"
    record = {"route": "/api/v1/schools/{urn}", "method": "GET"}
    assert values[series(requests, **record, status="200", tier="public")] == 2
    assert values[series(requests, **record, status="404", tier="public")] == 1
    assert values[series(requests, **record, status="200", tier="commercial")] == 1
    meta = {"route": "/api/v1/meta", "method": "GET", "status": "401", "tier": "commercial"}
    assert values[series(requests, **meta)] == 1
    unmatched = {"route": "(unmatched)", "method": "GET", "status": "404", "tier": "public"}
    assert values[series(requests, **unmatched)] == 1
    latency = "schooldata_http_request_duration_seconds"
    public = {"route": "/api/v1/schools/{urn}", "tier": "public"}
    assert values[series(f"{latency}_count", **public)] == 3
    assert values[series(f"{latency}_bucket", **public, le="+Inf")] == 3


def test_metered_calls_and_rate_limit_rejections_are_counted(
    observed: TestClient, fixed_app: Application, metrics: Metrics
) -> None:
    key = issue_key(fixed_app)  # developer: 5 requests per second; the clock stands still
    statuses = [
        observed.get("/api/v1/meta", headers={"Authorization": f"Bearer {key}"}).status_code
        for _ in range(7)
    ]
    assert statuses == [200] * 5 + [429] * 2
    finance = observed.get(
        "/api/v1/schools/100001/finance", headers={"Authorization": f"Bearer {key}"}
    )
    assert finance.status_code == 403, "not in the developer plan: refused before the limiter"
    assert metrics.value("schooldata_metered_calls_total", face="rest", feature="meta") == 5
    assert metrics.value("schooldata_metered_calls_total", face="rest", feature="finance") == 0
    rejected = metrics.value(
        "schooldata_limit_rejections_total", face="rest", reason="rate_limit_exceeded"
    )
    assert rejected == 2


def test_a_public_call_with_a_key_is_not_metered(
    observed: TestClient, fixed_app: Application, metrics: Metrics
) -> None:
    key = issue_key(fixed_app)
    observed.get("/api/v1/search?query=st%20mary", headers={"Authorization": f"Bearer {key}"})
    assert "schooldata_metered_calls_total{" not in observed.get("/metrics").text
    assert metrics.value("schooldata_metered_calls_total", face="rest", feature="meta") == 0


def test_metrics_never_expose_keys_prefixes_or_organisations(
    observed: TestClient, fixed_app: Application
) -> None:
    created = fixed_app.keys.create_key(organisation="secret-org", name="ci", plan="developer")
    observed.get("/api/v1/meta", headers={"Authorization": f"Bearer {created.key}"})
    observed.get("/api/v1/meta", headers={"Authorization": f"Bearer {created.key}x"})
    observed.get(f"/api/v1/search?query=st&api_key={created.key}")
    text = observed.get("/metrics").text
    assert created.key not in text
    assert created.key[9:] not in text
    assert created.record.display_prefix not in text
    assert "secret-org" not in text


def test_the_mcp_face_api(metrics: Metrics) -> None:
    metrics.mcp_call("search_schools")
    metrics.mcp_call("search_schools")
    metrics.mcp_call("get_school_finances", outcome="error")
    metrics.mcp_call('bad"tool\nname', outcome="ok")
    assert metrics.value("schooldata_mcp_calls_total", tool="search_schools", outcome="ok") == 2
    assert (
        metrics.value("schooldata_mcp_calls_total", tool="get_school_finances", outcome="error")
        == 1
    )
    assert metrics.value("schooldata_mcp_calls_total", tool="other", outcome="ok") == 1
    samples(metrics.render())


def test_the_pipeline_reports_each_face_under_its_own_label(fixed_app: Application) -> None:
    metrics = Metrics()
    pipeline = fixed_app.pipeline.observed_by(metrics)
    assert fixed_app.pipeline.observer is not metrics, "the original pipeline is unchanged"
    key = issue_key(fixed_app)
    entry = Entry(None, REGISTRY["getMeta"])
    pipeline.call(entry, {}, credentials=Credentials(authorization=f"Bearer {key}"), face=MCP)
    assert metrics.value("schooldata_metered_calls_total", face="mcp", feature="meta") == 1
    assert metrics.value("schooldata_metered_calls_total", face="rest", feature="meta") == 0


def test_label_sets_are_bounded(metrics: Metrics) -> None:
    for n in range(MAX_SERIES_PER_FAMILY + 50):
        metrics.http_request(route=f"/r{n}", method="GET", status=200, tier="public", seconds=0.01)
    metrics.http_request(route="/x", method="BREW", status=200, tier="public", seconds=0.01)
    values = samples(metrics.render())
    requests = [key for key in values if key[0] == "schooldata_http_requests_total"]
    assert len(requests) == MAX_SERIES_PER_FAMILY + 1
    other = dict.fromkeys(("route", "method", "status", "tier"), "other")
    assert values[series("schooldata_http_requests_total", **other)] == 51


def test_every_mcp_tool_call_is_counted_by_tool_and_outcome_replayed_ones_too(
    tmp_path: Path,
) -> None:
    app = bootstrap_memory(store=build_store())
    for client in served(app, tmp_path):
        mcp = McpHttp(client)
        mcp.call("search_schools", {"query": "st mary"})
        time.sleep(0.2)  # the data version is known: the same question is now replayed
        for _ in range(3):
            mcp.call("search_schools", {"query": "st mary"})
        assert mcp.call("get_school", {"urn": "12"})["isError"] is True
        assert mcp.modern("tools/call", {"name": "no_such_tool", "arguments": {}}).status_code
        text = client.get("/metrics").text
    found = samples(text)
    calls = "schooldata_mcp_calls_total"
    assert found[series(calls, tool="search_schools", outcome="ok")] == 4
    assert found[series(calls, tool="get_school", outcome="error")] == 1
    assert found[series(calls, tool="unknown", outcome="rejected")] == 1


def test_a_process_counting_alone_keeps_its_files_in_a_directory_removed_with_them() -> None:
    metrics = Metrics()
    directory = metrics.directory
    metrics.http_request(route="/x", method="GET", status=200, tier="public", seconds=0.01)
    assert sorted(p.name.split("_")[0] for p in directory.iterdir()) == [
        "counter",
        "gauge",
        "histogram",
    ]
    del metrics
    gc.collect()
    assert not directory.exists()


def test_every_call_of_every_thread_is_counted(metrics: Metrics) -> None:
    def work() -> None:
        for _ in range(500):
            metrics.metered(face="rest", feature="meta")
            metrics.request_started()
            metrics.http_request(route="/r", method="GET", status=200, tier="public", seconds=0.02)
            metrics.request_finished()

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert metrics.value("schooldata_metered_calls_total", face="rest", feature="meta") == 4000
    requests = {"route": "/r", "method": "GET", "status": "200", "tier": "public"}
    assert metrics.value("schooldata_http_requests_total", **requests) == 4000
    assert metrics.value("schooldata_http_requests_in_progress") == 0
