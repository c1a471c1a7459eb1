"""The metrics' cost script keeps working (docs/performance.md, "Metrics"): a request's calls
and a scrape, timed, as JSON."""

from __future__ import annotations

import json
from pathlib import Path

from bench import metrics_cost


def test_the_metrics_cost_script_measures_a_request_and_a_scrape(tmp_path: Path) -> None:
    out = tmp_path / "metrics-cost.json"
    assert metrics_cost.main(["--calls", "200", "--batches", "2", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["ns_per_request"] > 0 and len(result["ns_per_request_batches"]) == 2
    assert result["ms_per_scrape"] > 0
