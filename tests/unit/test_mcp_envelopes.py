"""An envelope judged once per shape (and its ladder once per shape and header list) is judged
as the SDK's own ladder and models judge it every time."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.entrypoints.mcp_server import envelopes
from schooldata.entrypoints.mcp_server.envelopes import Envelopes, judged, judged_at, shape_of

Headers = tuple[tuple[str, str], ...]

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


@st.composite
def header_lists(draw: st.DrawFn) -> Headers:
    """The routing headers as a client sends them: agreeing with its body, or not."""
    headers = {
        "mcp-protocol-version": draw(st.sampled_from([MODERN, MODERN, "2025-11-25", "x"])),
        "mcp-method": draw(st.sampled_from(["tools/call", "tools/call", "tools/list"])),
        "mcp-name": draw(st.sampled_from(["search_schools", "get_school", "=?base64?Zm9v?="])),
    }
    dropped = draw(st.sampled_from([None, None, "mcp-protocol-version", "mcp-name"]))
    return tuple((k, v) for k, v in headers.items() if k != dropped)


REMEMBERING = Envelopes()  # one across every example: shapes seen earlier are remembered
SERIALS: dict[Headers, int] = {}  # a header list's serial, as `call_checks.HeaderChecks` gives it


@settings(max_examples=700, deadline=None)
@given(messages(), header_lists())
def test_a_remembered_shape_is_judged_as_the_sdk_judges_the_request_itself(
    message: dict[str, Any], sent: Headers
) -> None:
    headers = dict(sent)
    expected = judged(message, headers)
    serial = SERIALS.setdefault(sent, len(SERIALS) + 1)
    assert REMEMBERING.checked(message, headers, serial) == expected
    assert REMEMBERING.checked(message, headers, serial) == expected  # the second time remembered
    assert REMEMBERING.checked(message, headers, None) == expected  # a list not remembered


HANDSHAKE_REMEMBERING = Envelopes()


@settings(max_examples=500, deadline=None)
@given(messages(), st.sampled_from(["2025-11-25", "2025-06-18", "2025-03-26"]))
def test_a_remembered_handshake_era_shape_is_judged_as_the_sdk_judges_the_message_itself(
    message: dict[str, Any], version: str
) -> None:
    expected = judged_at(message, version, modern=False)
    assert HANDSHAKE_REMEMBERING.checked_at(message, version) == expected
    assert HANDSHAKE_REMEMBERING.checked_at(message, version) == expected


def test_params_the_method_refuses_make_an_envelope_that_is_not_valid() -> None:
    message = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": 5}}
    for _ in range(2):  # (judged, then remembered)
        invalid = HANDSHAKE_REMEMBERING.checked_at(message, "2025-06-18")
        assert invalid is not None and not invalid.valid and invalid.request_id == 3
    notification = {"jsonrpc": "2.0", "id": 1.5, "method": "tools/call", "params": {"name": "a"}}
    assert HANDSHAKE_REMEMBERING.checked_at(notification, "2025-06-18") is None


def test_a_request_agreeing_with_its_headers_is_taken_and_one_disagreeing_is_not() -> None:
    message = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "search_schools", "arguments": {"query": "oak"}, "_meta": META},
    }
    agreeing = {
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/call",
        "mcp-name": "search_schools",
    }
    remembering = Envelopes()
    for _ in range(2):
        taken = remembering.checked(message, agreeing, 1)
        assert taken is not None and (taken.request_id, taken.name) == (7, "search_schools")
        assert remembering.checked(message, {**agreeing, "mcp-name": "get_school"}, 2) is None
        assert remembering.checked(message, {**agreeing, "mcp-protocol-version": "x"}, 3) is None


def test_calls_differing_only_in_id_and_arguments_share_one_shape() -> None:
    first = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a"}}
    second = {**first, "id": 99, "params": {"name": "a", "arguments": None}}
    with_arguments = {**first, "params": {"name": "a", "arguments": {"query": "oak"}}}
    empty_arguments = {**first, "params": {"name": "a", "arguments": {}}}
    assert shape_of(with_arguments) == shape_of(empty_arguments)
    assert shape_of(first) != shape_of(second)  # absent is not null
    assert shape_of({**first, "id": "1"}) != shape_of(first)
    assert shape_of({**first, "id": 1.0}) is None
    assert shape_of({**first, "id": True}) is None
    too_long_to_write = {**first, "params": {"name": "a", "_meta": {"n": 10**5000}}}
    assert shape_of(too_long_to_write) is None  # judged every time, never kept


def test_values_json_writes_alike_have_shapes_of_their_own() -> None:
    """JSON writes NaN, the infinities and null alike: such envelopes are told apart."""
    first = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a"}}
    shapes = {
        shape_of({**first, "params": {"name": "a", "_meta": {"x": value}}})
        for value in (None, float("nan"), float("inf"), float("-inf"), "null")
    }
    assert None not in shapes
    assert len(shapes) == 5
    one, other = ({**first, "params": {"name": "a", "_meta": {"x": v}}} for v in (1, 1.0))
    assert shape_of(one) != shape_of(other)
    assert shape_of({**first, "jsonrpc": True}) != shape_of({**first, "jsonrpc": 1})
    lone_surrogate = {**first, "params": {"name": "\ud800"}}
    assert shape_of(lone_surrogate) is None


def test_remembered_shapes_stay_within_their_bound() -> None:
    remembering = Envelopes()
    fullest = [0, 0]
    for n in range(envelopes.MAX_LADDERS + envelopes.MAX_SHAPES):
        params = {"name": f"t{n}", "_meta": META}
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
        headers = {"mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": f"t{n}"}
        assert remembering.checked(message, headers, n) is not None
        assert len(remembering._verdicts) <= envelopes.MAX_SHAPES
        assert len(remembering._versions) <= envelopes.MAX_LADDERS
        fullest = [
            max(fullest[0], len(remembering._verdicts)),
            max(fullest[1], len(remembering._versions)),
        ]
    assert fullest == [envelopes.MAX_SHAPES, envelopes.MAX_LADDERS]  # (each was full, emptied)
    huge = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "t", "_meta": {**META, "x": "y" * envelopes.MAX_SHAPE_CHARS}},
    }
    assert shape_of(huge) is None
