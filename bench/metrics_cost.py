"""What the metrics cost one request, in process: the HTTP edge's calls (`request_started`,
`request_finished`, `http_request`) timed in a loop over a few label sets, as a server worker
makes them; then one scrape of `/metrics` (`render`) after them.

    .venv/bin/python -m bench.metrics_cost [--calls N] [--json PATH]

The metrics are written where a worker of `schooldata serve` writes them (files of
prometheus_client's multiprocess mode, here in a temporary directory), so this is the cost
each request pays in production. Prints one JSON object: nanoseconds per request (the best of
5 batches, and each batch) and milliseconds per scrape. For a figure that does not move with
the machine's load, count instructions instead (docs/performance.md, "Metrics"):

    valgrind --tool=callgrind --callgrind-out-file=/dev/null .venv/bin/python -m bench.metrics_cost --calls N --batches 1

at two values of N; the difference over the difference of N is the count per request.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.figures import emit

ROUTES = (
    "/api/v1/search",
    "/api/v1/schools/{urn}",
    "/api/v1/schools",
    "/api/v1/meta",
    "/mcp",
    "(unmatched)",
)
STATUSES = (200, 200, 200, 404)


def measure(calls: int, batches: int) -> dict[str, Any]:
    from schooldata.entrypoints.observability.metrics import Metrics

    labels = [
        (route, status, "commercial" if n % 3 == 0 else "public")
        for n, route in enumerate(ROUTES)
        for status in STATUSES
    ]
    with tempfile.TemporaryDirectory(prefix="bench-metrics-") as directory:
        metrics = Metrics(Path(directory))
        times: list[float] = []
        for _ in range(batches):
            started = time.perf_counter_ns()
            for n in range(calls):
                route, status, tier = labels[n % len(labels)]
                metrics.request_started()
                metrics.request_finished()
                metrics.http_request(
                    route=route, method="GET", status=status, tier=tier, seconds=0.0004
                )
            times.append((time.perf_counter_ns() - started) / calls)
        scrapes = 20
        started = time.perf_counter_ns()
        for _ in range(scrapes):
            metrics.render()
        scrape_ms = (time.perf_counter_ns() - started) / scrapes / 1e6
    return {
        "ns_per_request": round(min(times)),
        "ns_per_request_batches": [round(t) for t in times],
        "ms_per_scrape": round(scrape_ms, 3),
        "label_sets": len(labels),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200_000, help="requests per batch")
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the result here")
    args = parser.parse_args(argv)
    return emit(measure(args.calls, args.batches), args.json)


if __name__ == "__main__":
    sys.exit(main())
