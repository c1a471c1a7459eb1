"""Limits that hold across processes: two server processes (uvicorn, the production factory)
share PostgreSQL and Redis; many clients hammer them with one developer key.

- Admitted requests per second (per server-side rate window, read from each answer's
  `X-RateLimit-Reset`) never exceed the plan's rate (developer: 5/s), across both processes.
- The quota used equals the metered (200) answers exactly, and each metered answer got its own
  quota count (no two answers saw the same `X-Quota-Remaining`).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import text

from schooldata.bootstrap import bootstrap
from schooldata.settings import load_settings
from tests.reliability.load import Load, Target
from tests.reliability.support import (
    KEY_SECRET,
    load_fixture,
    record_figures,
    server_processes,
    sql_store,
)

pytestmark = [pytest.mark.postgres, pytest.mark.redis]
RATE = 5  # developer plan, DECISIONS: Plans
QUOTA = 1_000
SECONDS = 3.0


def test_two_processes_sharing_postgres_and_redis_keep_the_rate_and_meter_exactly(
    pg_url: str, redis_direct_url: str, tmp_path: Path
) -> None:
    store = sql_store(pg_url)
    load_fixture(store)
    app = bootstrap(load_settings({}, database_url=pg_url, key_secret=KEY_SECRET, home=tmp_path))
    key = app.keys.create_key(organisation="limits", name="t", plan="developer").key
    app.ports.store.close()  # type: ignore[attr-defined]
    env = {
        "SCHOOLDATA_DATABASE_URL": pg_url,
        "SCHOOLDATA_REDIS_URL": redis_direct_url,
        "SCHOOLDATA_KEY_SECRET": KEY_SECRET,
        "SCHOOLDATA_HOME": str(tmp_path / "home"),
    }
    target = (("Authorization", f"Bearer {key}"),)
    with server_processes(2, env, tmp_path) as servers:
        loads = [
            Load(server.base, [Target(f"server-{i}", "GET", "/api/v1/meta", target)], clients=6)
            for i, server in enumerate(servers)
        ]
        for load in loads:
            load.start()
        time.sleep(SECONDS)
        for load in loads:
            assert not load.stop(join_timeout=30)
        logs = [server.output() for server in servers]

    samples = [s for load in loads for s in load.samples]
    statuses = Counter(s.status for s in samples)
    assert set(statuses) <= {200, 429}, statuses
    admitted = [s for s in samples if s.status == 200]
    refused = [s for s in samples if s.status == 429]
    assert len(admitted) >= RATE * 2 and refused, statuses  # the load did saturate the limit

    per_window = Counter(int(s.header("x-ratelimit-reset") or 0) - 1 for s in admitted)
    assert max(per_window.values()) <= RATE, per_window
    assert sum(1 for n in per_window.values() if n == RATE) >= 2, per_window
    for sample in refused:
        assert sample.code == "rate_limit_exceeded"
        assert int(sample.header("retry-after") or 0) >= 1

    with store.engine.connect() as conn:
        used = conn.execute(
            text("SELECT sum(used) FROM usage_quota WHERE organisation = 'limits'")
        ).scalar_one()
    store.close()
    assert used == len(admitted)
    remaining = sorted(int(s.header("x-quota-remaining") or -1) for s in admitted)
    assert remaining == list(range(QUOTA - len(admitted), QUOTA))  # one count per answer
    for sample in admitted:
        assert json.loads(sample.body)["data"]
    for log in logs:
        assert "Traceback" not in log
        assert key[9:] not in log
    record_figures(
        "limits-two-processes",
        {
            "seconds": SECONDS,
            "clients": 12,
            "requests": len(samples),
            "admitted": len(admitted),
            "refused_429": len(refused),
            "admitted_per_window": dict(sorted(per_window.items())),
            "quota_used": int(used),
        },
    )
