"""The benchmark harness keeps working: `python -m bench --quick` with very short runs produces
its JSON with every scenario of both tables (the computed path, reuse off, over distinct
questions; answer reuse on, over a Zipf mix) and every target measured (bench/README.md). It
asserts that the targets are measured, not that they are met: that is `make bench`'s report.

It starts the real server, the ceiling app and (when its venv exists, or always under
SCHOOLDATA_REQUIRE_SERVICES=1) Datasette on loopback ports, and drives them with wrk. Without
wrk, and with no way to install it, the test is skipped, except in CI where that is a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from bench.load import ensure_wrk
from bench.targets import TARGETS
from tests.conftest import services_required

ROOT = Path(__file__).resolve().parents[2]
COMPUTED = {
    "ceiling_search": "ceiling",
    "search_name": "app",
    "mcp_search": "app",
    "ceiling_mcp": "ceiling",
    "peer_search_name": "peer",
    "list_anonymous": "app",
    "list_keyed": "app",
    "list_keyed_paged": "app",
    "ceiling_school": "ceiling",
    "get_school": "app",
    "get_school_keyed": "app",
    "ceiling_postcode": "ceiling",
    "search_postcode": "app",
    "peer_search_postcode": "peer",
    "nearby_keyed": "app",
}
REUSE = {
    "ceiling_reuse_search": "ceiling",
    "reuse_search_name": "app_reuse",
    "ceiling_reuse_postcode": "ceiling",
    "reuse_search_postcode": "app_reuse",
    "ceiling_reuse_school": "ceiling",
    "reuse_get_school": "app_reuse",
}
DISTINCT = 1000  # the quick mode's distinct name queries and postcodes
# What each headline scenario asks once per cycle: every name query, postcode or served URN.
ASKS = {
    "name_queries": {
        "search_name",
        "mcp_search",
        "ceiling_mcp",
        "peer_search_name",
        "list_anonymous",
        "list_keyed",
    },
    "postcodes": {"search_postcode", "peer_search_postcode", "nearby_keyed"},
    "urns": {"get_school", "get_school_keyed"},
}


def run_bench_module(module: str, *args: str, timeout: int) -> str:
    """`python -m <module> <args>` from the project root; its stdout, after it succeeded."""
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout


def run_quick_bench(out: Path) -> dict:  # type: ignore[type-arg]
    peer = "install" if services_required() else "if-installed"
    run_bench_module(
        "bench",
        *("--quick", "--seconds", "1", "--warmup", "0", "--inprocess-seconds", "0.1"),
        *("--peer", peer, "--no-docs", "--out", str(out)),
        timeout=900,
    )
    return json.loads(out.read_text())  # type: ignore[no-any-return]


def test_the_quick_bench_measures_every_scenario_and_target(tmp_path: Path) -> None:
    # One test, so that parallel test workers never start two benches for one module.
    if ensure_wrk(lambda _message: None) is None:
        if services_required():
            pytest.fail("wrk is required (apt-get install -y wrk) and could not be installed")
        pytest.skip("wrk is not installed and apt-get could not install it")
    results = run_quick_bench(tmp_path / "quick.json")

    scenarios = results["scenarios"]
    assert {n: s["server"] for n, s in scenarios.items()} == COMPUTED | REUSE
    assert {n for n, s in scenarios.items() if s["table"] == "reuse"} == set(REUSE)
    for name, scenario in scenarios.items():
        if scenario["server"] == "peer" and not services_required():
            assert scenario["status"] in ("ok", "skipped", "no completed requests"), name
            continue
        assert scenario["status"] == "ok", (name, scenario)
        assert scenario["requests"] > 0 and scenario["rps"] > 0, name
        assert 0 < scenario["p50_ms"] <= scenario["p99_ms"], name
        assert scenario["mean_body_bytes"] > 0, name
    keyed = {n for n, s in scenarios.items() if s["keyed"]}
    assert keyed == {"get_school_keyed", "list_keyed", "list_keyed_paged", "nearby_keyed"}

    # The headline asks distinct questions: every name query and postcode once per cycle,
    # every served URN; each ceiling answers its subject's mean size.
    questions = results["questions"]
    assert questions == {
        "name_queries": DISTINCT,
        "postcodes": DISTINCT,
        "postcodes_drawn_from": questions["postcodes_drawn_from"],
        "urns": results["dataset"]["served_schools"],
    }
    assert questions["postcodes_drawn_from"] > DISTINCT
    for kind, names in ASKS.items():
        for name in names:
            assert scenarios[name]["distinct_requests"] == questions[kind], name
            assert scenarios[name]["requests_in_mix"] == questions[kind], name
    for scenario in scenarios.values():
        if "mirrors" in scenario:
            assert scenario["mean_body_bytes"] == scenarios[scenario["mirrors"]]["mean_body_bytes"]
    # The reuse table: a Zipf mix repeats some questions of the same distinct sets.
    for name in ("reuse_search_name", "reuse_search_postcode", "reuse_get_school"):
        mix = scenarios[name]
        assert mix["requests_in_mix"] == results["settings"]["mix_length"]
        assert 1 < mix["distinct_requests"] < mix["requests_in_mix"], name

    assert set(results["targets"]) == {t.name for t in TARGETS}
    for name, target in results["targets"].items():
        assert {"title", "limit", "met", "value"} <= set(target), name
        peer = "datasette" in name and not services_required()
        if target["kind"] in ("ratio", "context", "reuse") and not peer:
            assert target["value"] > 0, (name, target)  # measured, met or not
            assert isinstance(target["met"], bool) == (target["kind"] == "ratio"), name
    for op in ("search", "postcode_search", "nearby", "nearby_latlong"):
        assert results["inprocess"][op]["p50_ms"] > 0
    assert results["memory"]["peak_mb_per_worker"] > 0
    assert set(results["memory"]["processes_mb"]) == {"app", "app_reuse"}
    assert results["imports"]["gias"]["rows_imported"] > 0
    assert results["environment"]["loadavg_at_start"]
