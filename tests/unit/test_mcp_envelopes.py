"""An envelope judged once per shape is judged as the SDK's own models judge it every time."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.entrypoints.mcp_server import envelopes
from schooldata.entrypoints.mcp_server.envelopes import Envelopes, judged, shape_of

MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
ABSENT = object()

_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=5,
)
_metas = st.sampled_from(
    [
        META,
        {**META, "io.modelcontextprotocol/clientInfo": 5},
        {**META, "progressToken": "p"},
        {},
        ABSENT,
        "meta",
    ]
)


@st.composite
def messages(draw: st.DrawFn) -> dict[str, Any]:
    params: dict[str, Any] = {
        "name": draw(st.sampled_from(["search_schools", "get_school", "", 5, None]))
    }
    arguments = draw(
        st.one_of(
            st.just(ABSENT), st.none(), st.dictionaries(st.text(max_size=6), _values), _values
        )
    )
    if arguments is not ABSENT:
        params["arguments"] = arguments
    meta = draw(_metas)
    if meta is not ABSENT:
        params["_meta"] = meta
    message: dict[str, Any] = {
        "jsonrpc": draw(st.sampled_from(["2.0", "2.0", "1.0"])),
        "method": draw(st.sampled_from(["tools/call", "tools/call", "tools/list"])),
        "params": draw(st.sampled_from([params, params, params, None, [1]])),
    }
    request_id = draw(
        st.one_of(st.integers(), st.text(max_size=4), st.none(), st.floats(), st.booleans())
    )
    if draw(st.booleans()) or request_id is not None:
        message["id"] = request_id
    return message


REMEMBERING = Envelopes()  # one across every example: shapes seen earlier are remembered


@settings(max_examples=500, deadline=None)
@given(messages(), st.sampled_from([MODERN, MODERN, "2025-11-25", "1999-01-01"]))
def test_a_remembered_shape_is_judged_as_the_sdk_judges_the_envelope_itself(
    message: dict[str, Any], version: str
) -> None:
    expected = judged(message, version)
    assert REMEMBERING.checked(message, version) == expected
    assert REMEMBERING.checked(message, version) == expected  # the second time remembered


def test_calls_differing_only_in_id_and_arguments_share_one_shape() -> None:
    first = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a"}}
    second = {**first, "id": 99, "params": {"name": "a", "arguments": None}}
    with_arguments = {**first, "params": {"name": "a", "arguments": {"query": "oak"}}}
    empty_arguments = {**first, "params": {"name": "a", "arguments": {}}}
    assert shape_of(with_arguments, MODERN) == shape_of(empty_arguments, MODERN)
    assert shape_of(first, MODERN) != shape_of(second, MODERN)  # absent is not null
    assert shape_of({**first, "id": "1"}, MODERN) != shape_of(first, MODERN)
    assert shape_of({**first, "id": 1.0}, MODERN) is None
    assert shape_of({**first, "id": True}, MODERN) is None
    too_long_to_write = {**first, "params": {"name": "a", "_meta": {"n": 10**5000}}}
    assert shape_of(too_long_to_write, MODERN) is None  # judged every time, never kept


def test_values_json_writes_alike_have_shapes_of_their_own() -> None:
    """JSON writes NaN, the infinities and null alike: such envelopes are told apart."""
    first = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a"}}
    shapes = {
        shape_of({**first, "params": {"name": "a", "_meta": {"x": value}}}, MODERN)
        for value in (None, float("nan"), float("inf"), float("-inf"), "null")
    }
    assert None not in shapes
    assert len(shapes) == 5
    one, other = ({**first, "params": {"name": "a", "_meta": {"x": v}}} for v in (1, 1.0))
    assert shape_of(one, MODERN) != shape_of(other, MODERN)
    assert shape_of({**first, "jsonrpc": True}, MODERN) != shape_of({**first, "jsonrpc": 1}, MODERN)
    lone_surrogate = {**first, "params": {"name": "\ud800"}}
    assert shape_of(lone_surrogate, MODERN) is None


def test_remembered_shapes_stay_within_their_bound() -> None:
    remembering = Envelopes()
    for n in range(envelopes.MAX_SHAPES * 3):
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": f"t{n}"}}
        remembering.checked(message, MODERN)
        assert len(remembering._accepted) <= envelopes.MAX_SHAPES
    huge = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "t", "_meta": {**META, "x": "y" * envelopes.MAX_SHAPE_CHARS}},
    }
    assert shape_of(huge, MODERN) is None
