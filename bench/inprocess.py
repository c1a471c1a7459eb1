"""In-process domain latencies: the bootstrapped application over the bench database, called
directly (no HTTP), one call at a time, with answer reuse off (every call computed), over the
bench's distinct questions. Run as its own process by the harness:

    echo '{"db": ..., "queries": [...], "postcodes": [...], "seconds": 2}' | python -m bench.inprocess

Prints one JSON object: p50/p99 in milliseconds per operation.
"""

from __future__ import annotations

import gc
import json
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any


def _percentiles(samples: list[int]) -> dict[str, float]:
    samples.sort()

    def at(q: float) -> float:
        return round(samples[min(len(samples) - 1, int(q * len(samples)))] / 1e6, 4)

    return {
        "calls": len(samples),
        "p50_ms": at(0.50),
        "p99_ms": at(0.99),
        "mean_ms": round(sum(samples) / len(samples) / 1e6, 4),
    }


def _measure(calls: list[Callable[[], Any]], seconds: float) -> dict[str, float]:
    for call in calls:  # warm: the snapshot, caches, the postcode lookup path
        call()
    samples: list[int] = []
    gc.collect()
    deadline = time.perf_counter() + seconds
    passes = 0
    while passes < 3 or time.perf_counter() < deadline:
        passes += 1
        for call in calls:
            started = time.perf_counter_ns()
            call()
            samples.append(time.perf_counter_ns() - started)
    return _percentiles(samples)


def measure(spec: dict[str, Any]) -> dict[str, Any]:
    from schooldata.application.operations.declaration import Entry
    from schooldata.application.operations.registry import REGISTRY
    from schooldata.application.pipeline import Trusted
    from schooldata.application.search_schools import PublicSearchRequest
    from schooldata.bootstrap import bootstrap
    from schooldata.settings import load_settings

    settings = load_settings(
        {},
        database_url=spec["db"],
        key_secret=spec["secret"],
        plans_file=spec["plans"],
        home=tempfile.mkdtemp(prefix="bench-home-"),
        replay_mb=0,  # every call computed, as on the bench's headline server
    )
    app = bootstrap(settings)
    plan = app.plans.get("enterprise")
    seconds = float(spec["seconds"])
    search = [
        (lambda q=q: app.search_schools.execute(PublicSearchRequest(query=q)))
        for q in spec["queries"]
    ]
    postcode_search = [
        (lambda pc=pc: app.search_schools.execute(PublicSearchRequest(postcode=pc, radius_miles=2)))
        for pc in spec["postcodes"]
    ]
    trusted = Trusted(plan)
    entry = Entry(None, REGISTRY["nearbySchools"])

    def nearby_of(arguments: dict[str, str]) -> Callable[[], object]:
        return lambda: app.pipeline.call(entry, arguments, credentials=trusted)

    nearby = [nearby_of({"postcode": pc, "radius_miles": "2"}) for pc in spec["postcodes"]]
    nearby_point = [
        nearby_of({"latitude": str(la), "longitude": str(lo), "radius_miles": "2"})
        for la, lo in spec["points"]
    ]
    return {
        "search": _measure(search, seconds),
        "postcode_search": _measure(postcode_search, seconds),
        "nearby": _measure(nearby, seconds),
        "nearby_latlong": _measure(nearby_point, seconds),
    }


def main() -> int:
    print(json.dumps(measure(json.load(sys.stdin))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
