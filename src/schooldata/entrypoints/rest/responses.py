"""The pipeline's answers and refusals as HTTP: statuses, headers, bodies.

An `Answer` is bytes and encoded headers, sent as they are by the edge (a Litestar
`Response` would be converted on every request: about half of a small answer's cost in
Litestar, measured in docs/performance.md). Content-Length is the edge's to add.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
from litestar import Response

from schooldata.application.pipeline import Outcome, Refused
from schooldata.domain.keys import AuthenticationFailed
from schooldata.domain.metering import METER_HEADERS, MeterReading
from schooldata.entrypoints.http.answer import COMMERCIAL, PUBLIC, Answer, Headers, encoded
from schooldata.entrypoints.refusals import error_body, error_shape, status_of

# A list answer as CSV: RFC 4180 rows in UTF-8.
CSV_MEDIA_TYPE = "text/csv; charset=utf-8"
NO_STORE = {"Cache-Control": "no-store"}
AUTHENTICATE = {"WWW-Authenticate": 'Bearer realm="schooldata"'}
JSON = "application/json"
_JSON_TYPE = (b"content-type", b"application/json")
_CSV_TYPE = (b"content-type", CSV_MEDIA_TYPE.encode())
_NO_STORE = (b"cache-control", b"no-store")
_METER_NAMES = tuple(name.lower().encode("latin-1") for name in METER_HEADERS)


def success_response(
    outcome: Outcome,
    body: bytes,
    headers: Mapping[str, str] | None = None,
    *,
    media_type: str = JSON,
    route: str | None = None,
) -> Answer:
    """`body` is the answer already encoded (JSON, or a list's CSV)."""
    sent: Headers = [_JSON_TYPE if media_type == JSON else _CSV_TYPE]
    if headers:
        sent += encoded(headers)
    caller = outcome.caller
    prefix = None if caller is None else caller.display_prefix
    if not outcome.keyed:
        return Answer(200, body, sent, tier=PUBLIC, key_prefix=prefix, route=route)
    reading = outcome.reading
    if reading is not None:
        sent += meter_headers(reading)
    sent.append(_NO_STORE)
    return Answer(200, body, sent, tier=COMMERCIAL, key_prefix=prefix, route=route)


def meter_headers(reading: MeterReading) -> Headers:
    """`reading.headers()` encoded, written here: every keyed answer sends them."""
    return [
        (name, b"%d" % (value if value > 0 else 0))
        for name, value in zip(_METER_NAMES, reading, strict=True)
    ]


def refusal_response(
    refused: Refused,
    *,
    request_id: str,
    headers: Mapping[str, str] | None = None,
    route: str | None = None,
    type_first: bool = True,
) -> Answer:
    """The refusal in its tier's shape. `type_first`: Content-Type before the other headers
    (a route's refusals), else after them (as Litestar orders a `Response`'s headers, which
    the refusals of its layer (405, 413, OPTIONS) keep)."""
    status, body, extra = _refusal(refused, request_id=request_id, headers=headers)
    sent = [_JSON_TYPE, *encoded(extra)] if type_first else [*encoded(extra), _JSON_TYPE]
    caller = refused.caller
    return Answer(
        status,
        body,
        sent,
        tier=COMMERCIAL if refused.keyed else PUBLIC,
        key_prefix=None if caller is None else caller.display_prefix,
        route=route,
    )


def refusal_as_response(refused: Refused, *, request_id: str) -> Response[bytes]:
    """The same refusal as a `Response`, for Litestar's exception handlers (which must
    answer with one)."""
    status, body, extra = _refusal(refused, request_id=request_id, headers=None)
    return Response(body, media_type=JSON, status_code=status, headers=extra or None)


def http_refusal(
    refusal: tuple[int, str, str],
    *,
    request_id: str,
    public: bool,
    headers: Headers,
    route: str | None = None,
) -> Answer:
    """A refusal HTTP itself makes (`refusals.METHOD_NOT_ALLOWED`...): `headers` first, as
    Litestar sent them."""
    status, code, message = refusal
    body = msgspec.json.encode(error_shape(code, message, request_id=request_id, public=public))
    return Answer(status, body, [*headers, _JSON_TYPE], route=route)


def _refusal(
    refused: Refused, *, request_id: str, headers: Mapping[str, str] | None
) -> tuple[int, bytes, dict[str, str]]:
    error = refused.error
    extra = dict(headers or {})
    if refused.keyed:
        if refused.reading is not None:
            extra.update(refused.reading.headers())
        if refused.retry_after is not None:
            extra["Retry-After"] = str(refused.retry_after)
        if isinstance(error, AuthenticationFailed):
            extra.update(AUTHENTICATE)
        extra.update(NO_STORE)
    details = {k: v for k, v in error.details.items() if k != "retry_after"}
    body: Any = error_body(refused, request_id=request_id, details=details)
    return status_of(error), msgspec.json.encode(body), extra
