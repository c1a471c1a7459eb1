"""The base URL every answer's links start from: as Litestar derives it, remembered per
(scheme, Host, server, root path) within a bound, since the Host header is the client's."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from litestar import Request

from schooldata.entrypoints.http import request as scopes

hosts = st.one_of(
    st.none(),
    st.just(""),
    st.from_regex(r"[a-z0-9.-]{1,20}(:[0-9]{1,4})?", fullmatch=True),
)


def _scope(scheme: str, host: str | None, port: int, root: str) -> dict[str, Any]:
    headers = [] if host is None else [(b"host", host.encode())]
    return {
        "type": "http",
        "scheme": scheme,
        "server": ("10.0.0.1", port),
        "root_path": root,
        "path": root + "/api/v1/search",
        "headers": [(b"accept", b"*/*"), *headers],
        "query_string": b"",
        "method": "GET",
    }


@given(
    scheme=st.sampled_from(["http", "https"]),
    host=hosts,
    port=st.sampled_from([80, 443, 8000]),
    root=st.sampled_from(["", "/schooldata"]),
)
def test_the_base_url_is_litestars_whether_remembered_or_not(
    scheme: str, host: str | None, port: int, root: str
) -> None:
    scope = _scope(scheme, host, port, root)
    expected = str(Request(scope).base_url).rstrip("/")  # type: ignore[arg-type]
    assert scopes.base_url_of(scope) == expected
    assert scopes.base_url_of(scope) == expected  # the second time, remembered


def test_distinct_host_headers_never_grow_what_is_remembered_past_its_bound() -> None:
    for n in range(3 * scopes.MAX_KNOWN):
        scope = _scope("http", f"host-{n}.example", 80, "")
        assert scopes.base_url_of(scope) == f"http://host-{n}.example"
        assert len(scopes._KNOWN) <= scopes.MAX_KNOWN
