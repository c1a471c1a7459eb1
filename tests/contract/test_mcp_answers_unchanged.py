"""Every request of the MCP corpus (`mcp_corpus.py`) gets what it got when the baseline was
captured: status, every header in order, and body. A change of the MCP contract on purpose is
a new baseline, captured deliberately:

    .venv/bin/python -m tests.contract.test_mcp_answers_unchanged --capture
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.contract.mcp_corpus import ask_all

BASELINE_FILE = Path(__file__).parent / "baseline" / "mcp_answers.json"


@pytest.fixture(scope="module")
def answered() -> dict[str, Any]:
    return ask_all()


def test_the_corpus_asks_what_the_baseline_holds(answered: dict[str, Any]) -> None:
    baseline = json.loads(BASELINE_FILE.read_text("utf-8"))
    assert list(answered) == list(baseline)


def test_every_answer_over_mcp_is_unchanged(answered: dict[str, Any]) -> None:
    baseline = json.loads(BASELINE_FILE.read_text("utf-8"))
    changed = [name for name, seen in answered.items() if baseline.get(name) != seen]
    assert not changed, (
        f"{len(changed)} answers changed, first {changed[0]!r}:\n"
        f"was {json.dumps(baseline.get(changed[0]))[:1500]}\n"
        f"now {json.dumps(answered[changed[0]])[:1500]}"
    )


if __name__ == "__main__" and sys.argv[1:] == ["--capture"]:
    text = json.dumps(ask_all(), indent=1, ensure_ascii=False) + "\n"
    BASELINE_FILE.write_text(text, "utf-8")
    print(f"captured {BASELINE_FILE}")
