"""The benchmark harness keeps working: `python -m bench --quick` with very short runs produces
its JSON with every scenario and every target (bench/README.md).

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
from bench.scenarios import TARGETS
from tests.conftest import services_required

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = (
    "ceiling_search",
    "search_name",
    "mcp_search",
    "ceiling_mcp",
    "peer_search_name",
    "ceiling_school",
    "get_school",
    "get_school_keyed",
    "search_postcode",
    "peer_search_postcode",
    "list_anonymous",
    "list_keyed",
    "list_keyed_paged",
    "nearby_keyed",
)


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

    assert set(results["scenarios"]) == set(SCENARIOS)
    for name, scenario in results["scenarios"].items():
        if scenario["server"] == "peer" and not services_required():
            assert scenario["status"] in ("ok", "skipped", "no completed requests"), name
            continue
        assert scenario["status"] == "ok", (name, scenario)
        assert scenario["requests"] > 0 and scenario["rps"] > 0, name
        assert 0 < scenario["p50_ms"] <= scenario["p99_ms"], name
    keyed = {n for n, s in results["scenarios"].items() if s["keyed"]}
    assert keyed == {"get_school_keyed", "list_keyed", "list_keyed_paged", "nearby_keyed"}

    assert set(results["targets"]) == {t.name for t in TARGETS}
    for name, target in results["targets"].items():
        assert {"title", "limit", "met"} <= set(target), name
    for op in ("search", "postcode_search", "nearby", "nearby_latlong"):
        assert results["inprocess"][op]["p50_ms"] > 0
    assert results["memory"]["peak_mb_per_worker"] > 0
    assert results["imports"]["gias"]["rows_imported"] > 0
