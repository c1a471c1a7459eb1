"""The MCP replay key: a tools/call body with its JSON-RPC id cut out (replay.IdCut).

The rule the replay layer relies on: once `is_the_id_of` has accepted a cut of one body, any
body with the same bytes around any other id token is the same call with that token as its
id, so the remembered answer with that token spliced in is the answer to it."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.entrypoints.rest.replay import IdCut, json_id, tools_call

ids = st.one_of(
    st.integers(min_value=-(10**14), max_value=10**15 - 1),
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12),
)
# Anything a client might put around the id, including lookalikes of it.
argument_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["id", "q", '"id":1', "x"]), inner, max_size=3),
    ),
    max_leaves=6,
)


def token(value: object) -> bytes | None:
    return json_id(value)


def write(members: list[tuple[str, Any]], *, spaced: bool) -> bytes:
    separators = (", ", ": ") if spaced else (",", ":")
    parts = [
        f"{json.dumps(k)}{separators[1]}{json.dumps(v, separators=separators)}" for k, v in members
    ]
    return ("{" + separators[0].join(parts) + "}").encode()


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    call = {"name": "search_schools", "arguments": draw(argument_values)}
    members: list[tuple[str, Any]] = [
        ("jsonrpc", "2.0"),
        ("method", "tools/call"),
        ("params", call),
    ]
    members.insert(draw(st.integers(0, len(members))), ("id", draw(ids)))
    if draw(st.booleans()):  # a duplicate id member: the last one counts in JSON parsers
        members.insert(draw(st.integers(0, len(members))), ("id", draw(ids)))
    return write(members, spaced=draw(st.booleans()))


@settings(max_examples=400, deadline=None)
@given(bodies(), ids)
def test_an_accepted_cut_stands_for_the_same_call_with_any_other_id(
    raw: bytes, other: object
) -> None:
    call = tools_call(raw)
    replaced = token(other)
    if call is None or replaced is None:
        return
    document = json.loads(raw)
    document["id"] = other
    for cut in IdCut.candidates(raw):
        if cut.is_the_id_of(raw, call[0]):
            assert json.loads(cut.before + replaced + cut.after) == document
            assert tools_call(cut.before + replaced + cut.after)[:2] == (replaced, call[1])


@settings(max_examples=200, deadline=None)
@given(ids, argument_values, st.booleans(), st.booleans())
def test_the_layouts_clients_write_are_cut(
    request_id: object, arguments: Any, id_first: bool, spaced: bool
) -> None:
    call = {"name": "search_schools", "arguments": arguments}
    members: list[tuple[str, Any]] = [("method", "tools/call"), ("params", call)]
    if id_first:
        members[:0] = [("jsonrpc", "2.0"), ("id", request_id)]
    else:
        members += [("jsonrpc", "2.0"), ("id", request_id)]
    raw = write(members, spaced=spaced)
    expected = token(request_id)
    if expected is None:
        return
    proven = [cut for cut in IdCut.candidates(raw) if cut.is_the_id_of(raw, expected)]
    assert proven and proven[0].token == expected


def test_a_lookalike_id_inside_the_arguments_is_never_taken_for_the_id() -> None:
    raw = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"id":1}}}'
    nested, first = IdCut.candidates(raw)
    assert nested.after == b"}}}" and not nested.is_the_id_of(raw, b"1")
    assert first.after.startswith(b',"method"') and first.is_the_id_of(raw, b"1")


def test_an_earlier_duplicate_id_is_never_taken_for_the_id() -> None:
    raw = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{},"id":2}'
    last, early = IdCut.candidates(raw)
    assert last.token == b"2" and last.is_the_id_of(raw, b"2")
    assert early.token == b"1" and not early.is_the_id_of(raw, b"1")


def test_ids_with_more_than_one_spelling_are_not_cut() -> None:
    for spelled in (b"-0", b"01", b"1.0", b"1e3", b'"\\u0041"', b"1234567890123456"):
        raw = b'{"method":"tools/call","params":{},"jsonrpc":"2.0","id":' + spelled + b"}"
        assert IdCut.candidates(raw) == [], spelled


def test_a_body_nested_too_deep_to_parse_is_not_a_replayable_call() -> None:
    deep = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"q":'
    deep += b"[" * 100_000 + b"]" * 100_000 + b"}}}"
    assert tools_call(deep) is None  # the full path answers it, with the parse error
    cut = IdCut(deep[:24], b"7", deep[25:])
    assert not cut.is_the_id_of(deep, b"7")
