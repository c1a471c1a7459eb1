"""What refusing a query string of many parameters costs, in process: a keyed
`GET /api/v1/schools?<N distinct names>` through the whole ASGI app (edge, routes, the
pipeline), for N from 15 to 15,000 (issue 22's probe: refusing 15,000 names took 2.1 s when
the query was read once per name). Each is timed over repeated calls; the ratio to N=15 is
the headline, since the query string is read once, in one pass, and refused at the cap.

    .venv/bin/python -m bench.refusal_cost [--repeat R] [--json PATH]

Prints one JSON object: per N, the status, the code, the body's size and the microseconds
per refusal (best of 5 batches), and each ratio to N=15.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from bench.figures import emit

COUNTS = (15, 64, 65, 1_000, 15_000)


def _query(count: int) -> bytes:
    return "&".join(f"name{n:05d}=1" for n in range(count)).encode()


async def _call(asgi: Any, query: bytes, key: str) -> tuple[int, bytes]:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": "/api/v1/schools",
        "raw_path": b"/api/v1/schools",
        "query_string": query,
        "root_path": "",
        "headers": [(b"host", b"bench"), (b"x-api-key", key.encode())],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await asgi(scope, receive, send)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, body


async def _measure(repeat: int) -> dict[str, Any]:
    from schooldata.bootstrap import bootstrap_memory
    from schooldata.domain.plans import Feature, Plan, PlanCatalogue
    from schooldata.entrypoints.rest.app import create_app

    unlimited = Plan(  # a refusal for the rate limit would hide what the query costs
        name="bench",
        per_page_max=100,
        compare_max=25,
        rate_per_second=10**9,
        monthly_quota=2**31 - 1,
        features=frozenset(Feature),
    )
    app = bootstrap_memory(plans=PlanCatalogue((unlimited,)))
    key = app.keys.create_key(organisation="bench", name="bench", plan="bench").key
    asgi = create_app(app, base_url="http://bench")
    results: dict[str, Any] = {}
    for count in COUNTS:
        query = _query(count)
        status, body = await _call(asgi, query, key)
        batches = []
        for _ in range(5):
            started = time.perf_counter_ns()
            for _ in range(repeat):
                await _call(asgi, query, key)
            batches.append((time.perf_counter_ns() - started) / repeat / 1000)
        results[str(count)] = {
            "query_bytes": len(query),
            "status": status,
            "code": json.loads(body)["error"]["code"],
            "body_bytes": len(body),
            "us_per_refusal": round(min(batches), 1),
        }
    base = results[str(COUNTS[0])]["us_per_refusal"]
    for figures in results.values():
        figures["ratio_to_15"] = round(figures["us_per_refusal"] / base, 2)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.refusal_cost")
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--json", type=Path, help="also write the result here")
    args = parser.parse_args(argv)
    return emit(asyncio.run(_measure(args.repeat)), args.json)


if __name__ == "__main__":
    sys.exit(main())
