"""One set of metrics for the whole server: `schooldata serve --workers 2` in a subprocess.

Requests on new connections land on either worker (the kernel spreads them over the workers'
sockets); one scrape of `/metrics`, answered by whichever worker, counts every one of them.
Each worker's own share is read from its file in the server's metrics directory, to show the
requests really were answered by both. A worker killed and replaced by granian leaves its
counts in the totals; its live gauge (requests in progress) is dropped at the next scrape.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.multiprocess import MultiProcessCollector

from tests.reliability.serving import ServeProcess, fixture_environment, serving
from tests.support.exposition import samples, series

ROUTE = "/api/v1/search"
MAX_REQUESTS = 400  # new connections until both workers have answered some (a handful is usual)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServeProcess]:
    with serving(fixture_environment(tmp_path), tmp_path, workers=2) as running:
        yield running
    assert not metrics_directory(running, tmp_path).exists(), "removed when the server stops"


def metrics_directory(server: ServeProcess, tmp_path: Path) -> Path:
    return tmp_path / "home" / "metrics" / f"serve-{server.pid}"


def searches_answered_by(directory: Path, pid: int) -> float:
    """The searches one worker counted, read from its own file."""
    path = directory / f"counter_{pid}.db"
    if not path.exists():
        return 0
    return sum(
        sample.value
        for family in MultiProcessCollector.merge([str(path)])
        for sample in family.samples
        if sample.name == "schooldata_http_requests_total" and sample.labels["route"] == ROUTE
    )


def settled(read: Callable[[], float], expected: float, seconds: float = 3.0) -> float:
    """`read()` once it gives `expected` (or after `seconds`): a worker counts a request just
    after sending its answer, so the client may see the answer a moment before the count."""
    deadline = time.monotonic() + seconds
    value = read()
    while value != expected and time.monotonic() < deadline:
        time.sleep(0.02)
        value = read()
    return value


def searches_counted(base: str) -> float:
    values = samples(httpx.get(f"{base}/metrics", timeout=10).text)
    return sum(
        value
        for (name, labels), value in values.items()
        if name == "schooldata_http_requests_total" and ("route", ROUTE) in labels
    )


def test_one_scrape_counts_the_requests_every_worker_answered(
    server: ServeProcess, tmp_path: Path
) -> None:
    directory = metrics_directory(server, tmp_path)
    assert directory.is_dir()
    workers = server.workers()
    assert len(workers) == 2
    sent = 0
    while sent < MAX_REQUESTS:
        for _ in range(10):  # each on a new connection
            assert httpx.get(f"{server.base}{ROUTE}?query=st", timeout=10).status_code == 200
            sent += 1
        shares = {pid: searches_answered_by(directory, pid) for pid in workers}
        if all(shares.values()):
            break
    assert all(shares.values()), f"{sent} requests all went to one worker: {shares}"
    total = settled(lambda: sum(searches_answered_by(directory, pid) for pid in workers), sent)
    assert total == sent

    assert searches_counted(server.base) == sent, "one scrape counts every worker's requests"
    assert searches_counted(server.base) == sent, "whichever worker answers it"


def test_a_replaced_worker_s_requests_stay_counted(server: ServeProcess, tmp_path: Path) -> None:
    directory = metrics_directory(server, tmp_path)
    for _ in range(40):
        assert httpx.get(f"{server.base}{ROUTE}?query=st", timeout=10).status_code == 200
    known = server.workers()
    settled(lambda: sum(searches_answered_by(directory, pid) for pid in known), 40)
    victim = max(known, key=lambda pid: searches_answered_by(directory, pid))
    counted_by_victim = searches_answered_by(directory, victim)
    assert counted_by_victim > 0
    os.kill(victim, signal.SIGKILL)
    server.wait_for_new_worker(known)
    assert (directory / f"gauge_livesum_{victim}.db").exists(), "granian tells the app nothing"

    text = httpx.get(f"{server.base}/metrics", timeout=10).text
    assert searches_counted(server.base) == 40
    assert not (directory / f"gauge_livesum_{victim}.db").exists(), "its live gauge dropped"
    in_progress = samples(text)[series("schooldata_http_requests_in_progress")]
    assert in_progress == 1, "only the scrape itself is being answered"
