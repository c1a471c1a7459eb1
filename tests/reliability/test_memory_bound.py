"""Issue 22, probe 1: what requests carry never grows a worker past its bound.

`schooldata serve --workers 1` with answer reuse on and a small reuse bound
(`SCHOOLDATA_REPLAY_MB`), then thousands of requests that each carry something new: a
distinct 60 KB header on a public record, a distinct 15 KB public query, distinct 15 KB
parameters the public search ignores. Before the fix each became a cache key (4,000 97 KB
headers took a worker from 118 to 338 MiB); now headers and ignored parameters make no key,
and the keys that questions do make are counted in the bound. The worker's RSS may grow by the
reuse bound plus the allocator's slack, and must stop growing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.reliability.serving import ServeProcess, fixture_environment, serving
from tests.reliability.support import record_figures

REUSE_MB = 8
SLACK_MIB = 16  # the allocator's arenas and the interpreter's own caches after thousands of calls
FLAT_MIB = 6  # growth allowed over the second half of a probe, once every bound is reached
REQUESTS_PER_PROBE = 1_500
HEADER_BYTES = 60 * 1024
QUERY_BYTES = 15 * 1024  # under the query string's 16 KiB cap, so each is a real question


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    tmp_path = tmp_path_factory.mktemp("memory")
    env = fixture_environment(
        tmp_path, SCHOOLDATA_REPLAY_MB=str(REUSE_MB), SCHOOLDATA_LOG_LEVEL="warning"
    )
    with serving(env, tmp_path, workers=1) as running:
        yield running


def _padded(n: int, size: int) -> str:
    return f"{n:08d}" + "x" * (size - 8)


def _probes() -> dict[str, Iterator[tuple[str, dict[str, str]]]]:
    return {
        "distinct 60 KB headers": (
            ("/api/v1/schools/100001", {"X-Pad": _padded(n, HEADER_BYTES)})
            for n in range(REQUESTS_PER_PROBE)
        ),
        "distinct 15 KB queries": (
            (f"/api/v1/search?query={_padded(n, QUERY_BYTES)}", {})
            for n in range(REQUESTS_PER_PROBE)
        ),
        "distinct 15 KB ignored parameters": (
            (f"/api/v1/search?query=st&pad={_padded(n, QUERY_BYTES)}", {})
            for n in range(REQUESTS_PER_PROBE)
        ),
    }


def test_distinct_headers_and_queries_never_grow_a_worker_past_its_bound(
    server: ServeProcess,
) -> None:
    (worker,) = server.workers()
    with httpx.Client(base_url=server.base, timeout=30) as client:
        for _ in range(200):  # warm: the snapshot, the first answers, the allocator
            assert client.get("/api/v1/search?query=st").status_code == 200
        before = rss_mib(worker)
        figures: dict[str, object] = {"rss_before_mib": round(before, 1)}
        for label, requests in _probes().items():
            halfway = None
            for n, (path, headers) in enumerate(requests):
                response = client.get(path, headers=headers)
                assert response.status_code == 200, (label, response.status_code, response.text)
                if n == REQUESTS_PER_PROBE // 2:
                    halfway = rss_mib(worker)
            after = rss_mib(worker)
            assert halfway is not None
            figures[label] = {"halfway_mib": round(halfway, 1), "after_mib": round(after, 1)}
            assert after - halfway <= FLAT_MIB, (label, figures)
    grown = rss_mib(worker) - before
    figures["grown_mib"] = round(grown, 1)
    record_figures("memory-bound", figures)
    assert grown <= REUSE_MB + SLACK_MIB, figures
