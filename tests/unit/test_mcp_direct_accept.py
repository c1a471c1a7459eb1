"""The direct road judges Accept as the SDK does, remembering a bounded number of values."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.server.streamable_http import check_accept_headers
from starlette.requests import Request

from schooldata.entrypoints.mcp_server import direct
from schooldata.entrypoints.mcp_server.direct import AcceptsJson

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
    for n in range(direct.MAX_ACCEPTS * 3):
        assert accepts_json(f"application/json, text/x-{n}") is True
        assert len(accepts_json.known) <= direct.MAX_ACCEPTS
    long_value = "text/html, " + "x" * direct.MAX_ACCEPT_CHARS
    assert accepts_json(long_value) is False
    assert long_value not in accepts_json.known  # judged every time, never kept
