"""Soak: a server process (uvicorn, the production factory, SQLite) under a steady mixed load:
zero errors, and a flat memory line (RSS sampled from /proc).

`make soak` runs the two-minute soak (marker `slow`); `make test` runs a ten-second slice of
it. SCHOOLDATA_SOAK_SECONDS overrides the long run's length. Each run writes its figures to
test-artifacts/soak-<seconds>s.json (quoted in docs/reliability.md).
"""

from __future__ import annotations

import json
import os
import statistics
import threading
import time
from pathlib import Path

import pytest

from schooldata.bootstrap import bootstrap
from schooldata.settings import load_settings
from tests.reliability.load import Load, Sample, Target
from tests.reliability.support import KEY_SECRET, ROOT, load_fixture, server_processes, sql_store

ARTIFACTS = ROOT / "test-artifacts"
PLANS = """
[plans.soak]
per_page_max = 100
compare_max = 25
rate_per_second = 1000000
monthly_quota = 100000000
features = ["meta", "data_freshness", "schools_list", "schools_search", "schools_nearby",
            "school_profile", "inspections", "local_authorities", "results", "admissions",
            "compare", "rankings", "finance"]
"""
MCP_CALL = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "search_schools",
            "arguments": {"query": "st"},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "soak", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
).encode()
MCP_HEADERS = (
    ("Content-Type", "application/json"),
    ("Accept", "application/json, text/event-stream"),
    ("MCP-Protocol-Version", "2026-07-28"),
    ("Mcp-Method", "tools/call"),
    ("Mcp-Name", "search_schools"),
)


def targets(key: str) -> list[Target]:
    keyed = (("Authorization", f"Bearer {key}"),)
    return [
        Target("public-search", "GET", "/api/v1/search?query=st%20mary&limit=25"),
        Target("public-postcode", "GET", "/api/v1/search?postcode=SW1A%201AA&radius_miles=5"),
        Target("public-get", "GET", "/api/v1/schools/100001"),
        Target("keyed-list", "GET", "/api/v1/schools?q=academy&per_page=50", keyed),
        Target("keyed-profile", "GET", "/api/v1/schools/100001", keyed),
        Target(
            "keyed-compare",
            "POST",
            "/api/v1/schools/compare",
            (*keyed, ("Content-Type", "application/json")),
            b'{"urns": ["100001", "100002", "100003"]}',
        ),
        Target("mcp-call", "POST", "/mcp", MCP_HEADERS, MCP_CALL),
    ]


def soak(seconds: float, tmp_path: Path) -> dict[str, object]:
    database = f"sqlite:///{tmp_path / 'soak.sqlite3'}"
    load_fixture(sql_store(database))
    (tmp_path / "plans.toml").write_text(PLANS)
    settings = load_settings(
        {},
        database_url=database,
        key_secret=KEY_SECRET,
        home=tmp_path,
        plans_file=tmp_path / "plans.toml",
    )
    key = bootstrap(settings).keys.create_key(organisation="soak", name="t", plan="soak").key
    env = {
        "SCHOOLDATA_DATABASE_URL": database,
        "SCHOOLDATA_KEY_SECRET": KEY_SECRET,
        "SCHOOLDATA_HOME": str(tmp_path / "home"),
        "SCHOOLDATA_PLANS_FILE": str(tmp_path / "plans.toml"),
    }
    rss: list[tuple[float, int]] = []
    with server_processes(1, env, tmp_path) as (server,):
        # A steady rate, not a flood: each client waits 50 ms between requests.
        load = Load(server.base, targets(key), clients=1, timeout=30, pause_between=0.05)
        done = threading.Event()

        def sample_rss() -> None:
            while not done.wait(0.25):
                rss.append((time.monotonic(), server.rss_kib()))

        sampler = threading.Thread(target=sample_rss, daemon=True)
        started = time.monotonic()
        load.start()
        sampler.start()
        time.sleep(seconds)
        hung = load.stop(join_timeout=30)
        done.set()
        sampler.join(timeout=5)
        elapsed = time.monotonic() - started
        log = server.output()
    assert not hung
    return figures(load.samples, rss, elapsed, log, key)


def figures(
    samples: list[Sample], rss: list[tuple[float, int]], elapsed: float, log: str, key: str
) -> dict[str, object]:
    latencies = sorted(s.seconds for s in samples)
    quarter = max(1, len(rss) // 4)
    warm = [kib for _, kib in rss[quarter : 2 * quarter]]  # after start-up and first caches
    last = [kib for _, kib in rss[-quarter:]]
    return {
        "seconds": round(elapsed, 1),
        "requests": len(samples),
        "requests_per_second": round(len(samples) / elapsed, 1),
        "errors": sum(1 for s in samples if _failed(s)),
        "statuses": sorted({s.status for s in samples}),
        "latency_ms": {
            "p50": round(1000 * latencies[len(latencies) // 2], 1),
            "p99": round(1000 * latencies[int(len(latencies) * 0.99)], 1),
            "max": round(1000 * latencies[-1], 1),
        },
        "rss_mib": {
            "first": round(rss[0][1] / 1024, 1),
            "warm_median": round(statistics.median(warm) / 1024, 1),
            "last_median": round(statistics.median(last) / 1024, 1),
            "max": round(max(kib for _, kib in rss) / 1024, 1),
            "samples": len(rss),
        },
        "log_lines": len(log.splitlines()),
        "log_lines_not_json": sum(1 for line in log.splitlines() if not _is_json(line)),
        "key_in_log": key[9:] in log,
    }


def _failed(sample: Sample) -> bool:
    """Not a 200, or a 200 whose MCP answer is an error."""
    if sample.status != 200:
        return True
    if sample.label != "mcp-call":
        return False
    document = json.loads(sample.body)
    return "error" in document or bool(document["result"].get("isError"))


def _is_json(line: str) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


def check(result: dict[str, object], growth_allowed_mib: float) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    name = f"soak-{round(float(result['seconds']))}s.json"  # type: ignore[arg-type]
    (ARTIFACTS / name).write_text(json.dumps(result, indent=2) + "\n")
    assert result["errors"] == 0, result
    assert result["key_in_log"] is False
    assert result["log_lines_not_json"] == 0, result
    rss = result["rss_mib"]
    assert isinstance(rss, dict)
    growth = rss["last_median"] - rss["warm_median"]
    assert growth < growth_allowed_mib, result


def test_a_ten_second_slice_of_the_soak(tmp_path: Path) -> None:
    result = soak(10.0, tmp_path)
    assert int(result["requests"]) > 100  # type: ignore[call-overload]
    check(result, growth_allowed_mib=8.0)


@pytest.mark.slow
def test_the_two_minute_soak(tmp_path: Path) -> None:
    seconds = float(os.environ.get("SCHOOLDATA_SOAK_SECONDS", "120"))
    result = soak(seconds, tmp_path)
    assert int(result["requests"]) > 10 * seconds  # type: ignore[call-overload]
    check(result, growth_allowed_mib=8.0)
