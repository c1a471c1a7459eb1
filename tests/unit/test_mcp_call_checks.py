"""The call road judges Accept, Content-Type and the header list as the SDK's transports do,
remembering a bounded number of each."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.server.streamable_http import StreamableHTTPServerTransport, check_accept_headers
from mcp.shared.inbound import find_duplicated_routing_header
from starlette.requests import Request

from schooldata.entrypoints.mcp_server import call_checks
from schooldata.entrypoints.mcp_server.call_checks import AcceptsJson, HeaderChecks, names_json

_media = st.sampled_from(
    [
        "application/json",
        "APPLICATION/JSON",
        "application/*",
        "text/event-stream",
        "text/*",
        "*/*",
        "text/html",
        "application/jsonx",
        "",
    ]
)
_item = st.builds(
    lambda media, params, space: f"{space}{media}{params}{space}",
    _media,
    st.sampled_from(["", ";q=0.5", "; charset=utf-8", ";q=0"]),
    st.sampled_from(["", " ", "  "]),
)
_accepts = st.lists(_item, max_size=4).map(",".join) | st.text(max_size=40)


def _sdk_accepts_json(accept: str) -> bool:
    scope: dict[str, Any] = {"type": "http", "headers": [(b"accept", accept.encode("latin-1"))]}
    return check_accept_headers(Request(scope))[0]


REMEMBERING = AcceptsJson()  # one across every example: values seen earlier are remembered


@settings(max_examples=400, deadline=None)
@given(_accepts.filter(lambda text: all(ord(c) < 256 for c in text)))
def test_an_accept_value_is_judged_as_the_sdk_judges_it_the_first_time_and_after(
    accept: str,
) -> None:
    expected = _sdk_accepts_json(accept)
    assert REMEMBERING(accept) is expected
    assert REMEMBERING(accept) is expected


def test_remembered_accept_values_stay_within_their_bound() -> None:
    accepts_json = AcceptsJson()
    for n in range(call_checks.MAX_ACCEPTS * 3):
        assert accepts_json(f"application/json, text/x-{n}") is True
        assert len(accepts_json.known) <= call_checks.MAX_ACCEPTS
    long_value = "text/html, " + "x" * call_checks.MAX_ACCEPT_CHARS
    assert accepts_json(long_value) is False
    assert long_value not in accepts_json.known  # judged every time, never kept


_header_names = st.sampled_from(
    [
        b"accept",
        b"mcp-method",
        b"mcp-name",
        b"host",
        b"content-length",
        b"content-type",
    ]
)
_header_values = st.sampled_from(
    [
        b"application/json, text/event-stream",
        b"text/html",
        b"tools/call",
        b"search_schools",
        b"1",
        b"application/json; charset=utf-8",
        b"Application/JSON",
    ]
)
_raw_headers = st.lists(st.tuples(_header_names, _header_values), max_size=8)


def _sdk_reading(raw: list[tuple[bytes, bytes]]) -> tuple[dict[str, str], bool, bool]:
    """Each name's first value, and whether the 2026-07-28 transport (Accept, no duplicated
    routing header) and the handshake-era one (Accept, a JSON Content-Type) pass the list."""
    items = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in raw]
    first: dict[str, str] = {}
    for name, value in items:
        first.setdefault(name, value)
    accepts = _sdk_accepts_json(first.get("accept", ""))
    modern = accepts and find_duplicated_routing_header(items) is None
    scope: dict[str, Any] = {"type": "http", "headers": raw}
    transport = StreamableHTTPServerTransport(mcp_session_id=None)
    handshake = accepts and transport._check_content_type(Request(scope))
    return first, modern, handshake


HEADERS_REMEMBERING = HeaderChecks()


@settings(max_examples=400, deadline=None)
@given(_raw_headers)
def test_a_header_list_is_read_and_checked_as_the_sdk_does_the_first_time_and_after(
    raw: list[tuple[bytes, bytes]],
) -> None:
    expected = _sdk_reading(raw)
    first, again = HEADERS_REMEMBERING(raw), HEADERS_REMEMBERING(list(raw))
    assert (first.first, first.modern, first.handshake) == expected
    assert (again.first, again.modern, again.handshake) == expected
    assert first.serial == again.serial


_content_types = st.lists(_item, max_size=3).map(",".join) | st.text(max_size=30)


@settings(max_examples=300, deadline=None)
@given(_content_types.filter(lambda text: all(ord(c) < 256 for c in text)))
def test_a_content_type_names_json_as_the_handshake_transport_judges_it(content_type: str) -> None:
    scope: dict[str, Any] = {
        "type": "http",
        "headers": [(b"content-type", content_type.encode("latin-1"))],
    }
    transport = StreamableHTTPServerTransport(mcp_session_id=None)
    assert names_json(content_type) is transport._check_content_type(Request(scope))


def test_remembered_header_lists_stay_within_their_bound() -> None:
    checks = HeaderChecks()
    accept = (b"accept", b"application/json, text/event-stream")
    for n in range(call_checks.MAX_HEADER_LISTS * 3):
        assert checks([accept, (b"content-length", b"%d" % n)]).modern
        assert len(checks.known) <= call_checks.MAX_HEADER_LISTS
    large = [accept, (b"x-padding", b"x" * call_checks.MAX_HEADER_BYTES)]
    read = checks(large)
    assert read.modern and read.serial is None  # nothing is remembered under it
    assert tuple(large) not in checks.known  # checked every time, never kept


def test_each_remembered_header_list_has_a_serial_of_its_own_never_reused() -> None:
    checks = HeaderChecks()
    accept = (b"accept", b"application/json")
    seen = set()
    for n in range(call_checks.MAX_HEADER_LISTS * 2):  # (the memo is emptied once on the way)
        read = checks([accept, (b"content-length", b"%d" % n)])
        assert read.serial is not None and read.serial not in seen
        seen.add(read.serial)
        again = checks([accept, (b"content-length", b"%d" % n)])
        assert again.serial == read.serial
