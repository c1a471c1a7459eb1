"""Every answer's JSON is the value the hand-written renderers produced: same keys, same key
order, same nulls, same optional keys present or absent (`baseline/answers.json` was captured
from them on the rich dataset before the output shapes became declared Structs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.contract.answers_calls import application, every_answer, every_encoded_answer

BASELINE = json.loads((Path(__file__).parent / "baseline" / "answers.json").read_text("utf-8"))


@pytest.fixture(scope="module")
def rendered() -> dict[str, Any]:
    return every_answer(application())


@pytest.fixture(scope="module")
def encoded() -> dict[str, Any]:
    return every_encoded_answer(application())


def _exact(value: Any) -> str:
    """The JSON text, key order included (a dict's equality ignores order; a client may not)."""
    return json.dumps(value, ensure_ascii=False)


def test_the_same_cases_are_asked_as_when_the_baseline_was_captured(
    rendered: dict[str, Any],
) -> None:
    assert list(rendered) == list(BASELINE)


@pytest.mark.parametrize("case", list(BASELINE))
def test_every_answer_and_refusal_is_the_json_it_was(rendered: dict[str, Any], case: str) -> None:
    assert _exact(rendered[case]) == _exact(BASELINE[case])


def test_the_encoded_bytes_are_the_same_json_as_the_plain_values(
    rendered: dict[str, Any], encoded: dict[str, Any]
) -> None:
    assert encoded, "no answers"
    for case, value in encoded.items():
        assert _exact(value) == _exact(rendered[case]), case
