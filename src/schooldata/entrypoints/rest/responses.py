"""The pipeline's answers and refusals as Litestar responses: statuses, headers, bodies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from litestar import MediaType, Response

from schooldata.application.pipeline import Outcome, Refused
from schooldata.domain.keys import AuthenticationFailed
from schooldata.entrypoints.refusals import error_body, status_of

# A list answer as CSV: RFC 4180 rows in UTF-8 (Litestar adds `; charset=utf-8` to text/*).
CSV_MEDIA_TYPE = "text/csv"
NO_STORE = {"Cache-Control": "no-store"}
AUTHENTICATE = {"WWW-Authenticate": 'Bearer realm="schooldata"'}


def success_response(
    outcome: Outcome,
    body: bytes,
    headers: Mapping[str, str] | None = None,
    *,
    media_type: str = MediaType.JSON,
) -> Response[bytes]:
    """`body` is the answer already encoded (JSON, or a list's CSV)."""
    extra = dict(headers or {})
    if outcome.keyed:
        if outcome.reading is not None:
            extra.update(outcome.reading.headers())
        extra.update(NO_STORE)
    return Response(body, media_type=media_type, headers=extra or None)


def refusal_response(
    refused: Refused, *, request_id: str, headers: Mapping[str, str] | None = None
) -> Response[Any]:
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
    body = error_body(refused, request_id=request_id, details=details)
    return Response(body, status_code=status_of(error), headers=extra or None)
