"""The pipeline's answers and refusals as Litestar responses: statuses, headers, bodies.

Both are Litestar's low-level `ASGIResponse`, built from bytes and encoded headers: a route
returns it as it is, where a `Response` would be converted to one on every request (about half
of a small answer's cost in Litestar, measured in docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec
from litestar import Response
from litestar.response.base import ASGIResponse

from schooldata.application.pipeline import Outcome, Refused
from schooldata.domain.keys import AuthenticationFailed
from schooldata.entrypoints.refusals import error_body, status_of

# A list answer as CSV: RFC 4180 rows in UTF-8 (Litestar adds `; charset=utf-8` to text/*).
CSV_MEDIA_TYPE = "text/csv"
NO_STORE = {"Cache-Control": "no-store"}
AUTHENTICATE = {"WWW-Authenticate": 'Bearer realm="schooldata"'}
JSON = "application/json"


def success_response(
    outcome: Outcome,
    body: bytes,
    headers: Mapping[str, str] | None = None,
    *,
    media_type: str = JSON,
) -> ASGIResponse:
    """`body` is the answer already encoded (JSON, or a list's CSV)."""
    extra = dict(headers or {})
    if outcome.keyed:
        if outcome.reading is not None:
            extra.update(outcome.reading.headers())
        extra.update(NO_STORE)
    return ASGIResponse(body=body, media_type=media_type, status_code=200, headers=extra or None)


def refusal_response(
    refused: Refused, *, request_id: str, headers: Mapping[str, str] | None = None
) -> ASGIResponse:
    status, body, extra = _refusal(refused, request_id=request_id, headers=headers)
    return ASGIResponse(body=body, media_type=JSON, status_code=status, headers=extra or None)


def refusal_as_response(refused: Refused, *, request_id: str) -> Response[bytes]:
    """The same refusal as a `Response`, for Litestar's exception handlers (which must
    answer with one)."""
    status, body, extra = _refusal(refused, request_id=request_id, headers=None)
    return Response(body, media_type=JSON, status_code=status, headers=extra or None)


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
    body = msgspec.json.encode(error_body(refused, request_id=request_id, details=details))
    return status_of(error), body, extra
