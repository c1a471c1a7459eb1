"""The keyed replay's fast parts say exactly what their plain counterparts say."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.domain.metering import MeterReading
from schooldata.entrypoints.rest.replay import (
    SESSION_ONLY,
    keyed_request,
    meter_headers,
    request_key,
)
from schooldata.entrypoints.rest.transport import header_of, with_request_id

counts = st.integers(min_value=-5, max_value=10**12)


@settings(max_examples=300)
@given(counts, counts, counts, counts, counts, counts)
def test_meter_headers_are_the_readings_headers_in_asgi_form(
    rate_limit: int,
    rate_remaining: int,
    rate_reset: int,
    quota_limit: int,
    quota_remaining: int,
    quota_reset: int,
) -> None:
    reading = MeterReading(
        rate_limit=rate_limit,
        rate_remaining=rate_remaining,
        rate_reset=rate_reset,
        quota_limit=quota_limit,
        quota_remaining=quota_remaining,
        quota_reset=quota_reset,
    )
    expected = tuple((k.lower().encode(), v.encode()) for k, v in reading.headers().items())
    assert meter_headers(reading) == expected


header_names = st.sampled_from(
    [b"Authorization", b"authorization", b"X-API-Key", b"x-api-key", b"Mcp-Session-Id",
     b"Accept", b"Host", b"User-Agent", b"Connection", b"X-Request-Id", b"If-None-Match"]
)  # fmt: skip
header_values = st.binary(max_size=12)


@settings(max_examples=500)
@given(st.lists(st.tuples(header_names, header_values), max_size=8), st.binary(max_size=20))
def test_one_pass_finds_the_key_and_credentials_the_separate_scans_find(
    headers: list[tuple[bytes, bytes]], query: bytes
) -> None:
    scope = {
        "type": "http",
        "method": "GET",
        "scheme": "http",
        "server": ("127.0.0.1", 8000),
        "path": "/api/v1/schools",
        "query_string": query,
        "headers": headers,
    }
    base = request_key(scope, credentials=SESSION_ONLY)

    def text(name: bytes) -> str | None:
        raw = header_of(headers, name)
        return None if raw is None else raw.decode("latin-1")

    def values(name: bytes) -> list[bytes]:
        return [value for key, value in headers if key.lower() == name]

    # Two keys in one credential header (repeated lines that differ, or a comma-joined list)
    # are left to the full path, which refuses them.
    credentials = values(b"authorization"), values(b"x-api-key")
    listed = any(len(set(v)) > 1 or any(b"," in one for one in v) for v in credentials)
    authorization, x_api_key = text(b"authorization"), text(b"x-api-key")
    if base is None or (authorization is None and x_api_key is None) or listed:
        assert keyed_request(scope) is None
    else:
        assert keyed_request(scope) == (base, authorization, x_api_key)


header_names = st.sampled_from(
    [b"x-request-id", b"X-Request-ID", b"x-request-iD", b"content-type", b"x-request-ie", b"etag"]
) | st.binary(max_size=14)
header_lists = st.lists(st.tuples(header_names, st.binary(max_size=8)), max_size=8)


@settings(max_examples=300)
@given(header_lists, st.booleans())
def test_the_request_id_header_replaces_any_other_whatever_its_case(
    headers: list[tuple[bytes, bytes]], as_tuple: bool
) -> None:
    """`with_request_id` is the plain filter: every X-Request-Id dropped, ours appended."""
    ours = (b"x-request-id", b"req_0123456789abcdefghij")
    given_headers = tuple(headers) if as_tuple else list(headers)
    expected = [h for h in headers if h[0].lower() != b"x-request-id"] + [ours]
    assert with_request_id(given_headers, ours) == expected
    assert with_request_id(iter(headers), ours) == expected
