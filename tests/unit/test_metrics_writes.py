"""How the edge's per-request series reach the files a scrape reads: every change counted
(whatever label sets share a series), and on an event loop written together, soon after."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from prometheus_client.multiprocess import MultiProcessCollector

from schooldata.entrypoints.observability.metrics import STALE_SECONDS, WRITE_AFTER_SECONDS, Metrics

LATENCY_COUNT = "schooldata_http_request_duration_seconds_count"
REQUESTS = "schooldata_http_requests_total"


def in_files(directory: Path, name: str, **labels: str) -> float:
    """A sample as another worker's scrape reads it: from the files alone."""
    for family in MultiProcessCollector(None, path=str(directory)).collect():  # type: ignore[no-untyped-call]
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return float(sample.value)
    return 0.0


def test_statuses_sharing_a_latency_series_each_count_in_it(tmp_path: Path) -> None:
    metrics = Metrics(tmp_path)
    for status in (200, 404, 200, 404, 200):
        metrics.http_request(route="/r", method="GET", status=status, tier="public", seconds=0.01)
    assert metrics.value(LATENCY_COUNT, route="/r", tier="public") == 5
    assert in_files(tmp_path, LATENCY_COUNT, route="/r", tier="public") == 5


def test_on_an_event_loop_the_series_are_written_soon_after_not_at_once(tmp_path: Path) -> None:
    metrics = Metrics(tmp_path)
    labels = {"method": "GET", "route": "/r", "status": "200", "tier": "public"}

    async def serve() -> tuple[float, float]:
        for _ in range(3):
            metrics.request_started()
            metrics.http_request(route="/r", method="GET", status=200, tier="public", seconds=0.0)
            metrics.request_finished()
        before = in_files(tmp_path, REQUESTS, **labels)
        await asyncio.sleep(WRITE_AFTER_SECONDS * 4)
        return before, in_files(tmp_path, REQUESTS, **labels)

    before, after = asyncio.run(serve())
    assert (before, after) == (0, 3)
    assert in_files(tmp_path, "schooldata_http_requests_in_progress") == 0


def test_a_scrape_writes_this_process_s_waiting_series_first(tmp_path: Path) -> None:
    metrics = Metrics(tmp_path)

    async def serve() -> float:
        metrics.http_request(route="/r", method="GET", status=200, tier="public", seconds=0.0)
        return metrics.value(REQUESTS, method="GET", route="/r", status="200", tier="public")

    assert asyncio.run(serve()) == 1


def test_a_write_whose_loop_closed_before_it_ran_is_set_again(tmp_path: Path) -> None:
    metrics = Metrics(tmp_path)
    labels = {"method": "GET", "route": "/r", "status": "200", "tier": "public"}

    async def one_request() -> None:
        metrics.http_request(route="/r", method="GET", status=200, tier="public", seconds=0.0)

    asyncio.run(one_request())  # the loop closes before its write runs
    time.sleep(STALE_SECONDS + 0.1)

    async def later() -> None:
        await one_request()
        await asyncio.sleep(WRITE_AFTER_SECONDS * 4)

    asyncio.run(later())
    assert in_files(tmp_path, REQUESTS, **labels) == 2


def test_a_request_recorded_as_finished_is_no_longer_in_progress(tmp_path: Path) -> None:
    metrics = Metrics(tmp_path)
    progress = "schooldata_http_requests_in_progress"

    async def serve() -> tuple[float, float, float]:
        metrics.request_started()
        metrics.request_started()
        during = metrics.value(progress)
        metrics.http_request(
            route="/r", method="GET", status=200, tier="public", seconds=0.0, finished=True
        )
        after_one = metrics.value(progress)
        metrics.http_request(route="/r", method="GET", status=200, tier="public", seconds=0.0)
        await asyncio.sleep(WRITE_AFTER_SECONDS * 4)
        return during, after_one, in_files(tmp_path, progress)

    # (a request recorded without `finished` is still in progress until request_finished())
    assert asyncio.run(serve()) == (2, 1, 1)
