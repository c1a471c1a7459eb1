"""Every answer's JSON is the value the hand-written renderers produced: same keys, same key
order, same nulls, same optional keys present or absent (`baseline/answers.json` was captured
from them on the rich dataset before the output shapes became declared Structs).

Additive v1 features since are named here, each checked where it appears: the page links
`meta.pagination.next`/`prev` (issue 23: last in `pagination`; null in these answers, which
have no request URL to page by), the cases of the bulk lookup, which had no renderer then, and
the open record's `"synthetic": true` (issue 24: its last key) when the data is invented, as
the rich dataset's register is.

Data through time (issue 54) changed answers on purpose, and the baseline was written again
(`python -m tests.contract.answers_calls`; docs/testing.md): `meta.data_version` last in
every commercial `meta`, each results key stage's `releases`, a profile link's `status`,
`opened` and `closed`, the `changes` feature in the professional and enterprise plans, and
the cases of `listChanges` and `include_predecessors`. Every other byte is as it was."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.contract.answers_calls import (
    ADDED_CASES,
    BASELINE_FILE,
    PAGE_LINKS,
    application,
    before_page_links,
    every_answer,
    every_encoded_answer,
)

BASELINE = json.loads(BASELINE_FILE.read_text("utf-8"))


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
    assert [case for case in rendered if case not in ADDED_CASES] == list(BASELINE)
    assert set(ADDED_CASES) <= set(rendered)


@pytest.mark.parametrize("case", list(BASELINE))
def test_every_answer_and_refusal_is_the_json_it_was(rendered: dict[str, Any], case: str) -> None:
    assert _exact(before_page_links(rendered[case])) == _exact(BASELINE[case])


def test_every_list_answer_carries_null_page_links_without_a_request_url(
    rendered: dict[str, Any],
) -> None:
    paged = [a for a in rendered.values() if "pagination" in a.get("meta", {})]
    assert len(paged) > 10
    for answer in paged:
        assert {answer["meta"]["pagination"][name] for name in PAGE_LINKS} == {None}


def test_the_encoded_bytes_are_the_same_json_as_the_plain_values(
    rendered: dict[str, Any], encoded: dict[str, Any]
) -> None:
    assert encoded, "no answers"
    for case, value in encoded.items():
        assert _exact(value) == _exact(rendered[case]), case
