"""The refusal-cost script keeps working (docs/reliability.md, "Parsing a request"): each
query size refused with its documented code, timed, as JSON."""

from __future__ import annotations

import json
from pathlib import Path

from bench import refusal_cost


def test_the_refusal_cost_script_refuses_every_size_with_its_code(tmp_path: Path) -> None:
    out = tmp_path / "refusal-cost.json"
    assert refusal_cost.main(["--repeat", "2", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    codes = {count: figures["code"] for count, figures in result.items()}
    assert codes == {
        "15": "unknown_parameter",
        "64": "unknown_parameter",
        "65": "too_many_parameters",
        "1000": "too_many_parameters",
        "15000": "query_too_long",
    }
    assert all(figures["status"] == 400 for figures in result.values())
    assert all(figures["body_bytes"] < 1_000 for figures in result.values())
