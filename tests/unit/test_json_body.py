"""JSON bodies name each member once (`entrypoints/json_body.py`): the quick screen agrees with
a full parse whatever the body, escapes and nesting included."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schooldata.entrypoints.json_body import (
    INVALID,
    DuplicateMember,
    decoded_or_invalid,
    duplicate_member,
    loads,
)

NAMES = st.sampled_from(["a", "b", "urns", 'q"x', "a\\", "é", ":", ", ", "name"])
SCALARS = st.one_of(st.none(), st.integers(), st.sampled_from(["a", ":", '":"', "b\\"]))


def _object(pairs: list[tuple[str, Any]]) -> str:
    """An object written member by member, so it may name one twice."""
    return "{" + ",".join(f"{json.dumps(k)}: {v}" for k, v in pairs) + "}"


documents = st.recursive(
    SCALARS.map(json.dumps),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda items: "[" + ",".join(items) + "]"),
        st.lists(st.tuples(NAMES, inner), max_size=4).map(_object),
    ),
    max_leaves=10,
)


def _exact(text: str) -> str | None:
    try:
        loads(text)
    except DuplicateMember as duplicate:
        return duplicate.name
    return None


@given(documents)
def test_the_screen_finds_exactly_the_duplicates_a_full_parse_finds(text: str) -> None:
    assert duplicate_member(text.encode()) == _exact(text)


def test_a_name_repeated_in_different_objects_is_no_duplicate() -> None:
    body = b'{"params": {"name": "x", "arguments": {"name": "y"}}}'
    assert duplicate_member(body) is None


@pytest.mark.parametrize(
    "body",
    [
        b'{"urns": ["100001"], "urns": ["100002"]}',
        b'{"a": {"b": 1, "b": 2}}',
        b'[{"x": 1}, {"y": 1, "y": 1}]',
        b'{"na\\u006de": 1, "name": 2}',  # the same name, escaped once
    ],
)
def test_a_duplicated_member_is_found_wherever_it_is(body: bytes) -> None:
    assert duplicate_member(body) is not None
    with pytest.raises(DuplicateMember):
        loads(body)


def test_what_is_not_json_is_left_to_its_reader() -> None:
    assert duplicate_member(b'{"a": 1, "a"') is None
    assert duplicate_member(b"not json") is None
    deep = b'{"a":' * 100_000 + b"1" + b"}" * 100_000  # deeper than either reader goes
    assert decoded_or_invalid(deep) is INVALID
    assert duplicate_member(deep) is None
