"""A refused call in its tier's error shape, and its HTTP status: one table for every face.

Public: `{"error": "<text>", "code": "<code>"}`. Commercial: `{"error": {"code", "message",
"request_id", "details"}}`. The MCP face sends the same bodies inside its tool errors. Both are
the Structs `wire.public.Error` and `wire.envelope.CommercialError` (whose schemas the OpenAPI
document and the MCP tools show), given here as plain JSON values.
"""

from __future__ import annotations

from typing import Any

import msgspec

from schooldata.application.pipeline import Refused
from schooldata.domain.errors import (
    DataUnavailable,
    DomainError,
    FeatureNotInPlan,
    InvalidParameter,
    LimitExceedsPlan,
    NotAcceptable,
    SchoolNotFound,
    SearchUnavailable,
    SinceExpired,
    UnknownParameter,
)
from schooldata.domain.keys import AuthenticationFailed
from schooldata.domain.metering import LimitReached
from schooldata.entrypoints.wire import public

Json = dict[str, Any]

STATUS_BY_ERROR: tuple[tuple[type[DomainError], int], ...] = (
    (AuthenticationFailed, 401),
    (LimitReached, 429),
    (UnknownParameter, 400),
    (LimitExceedsPlan, 400),
    (InvalidParameter, 400),
    (SchoolNotFound, 404),
    (FeatureNotInPlan, 403),
    (NotAcceptable, 406),
    (SinceExpired, 410),
    (SearchUnavailable, 500),
    (DataUnavailable, 503),
)


def status_of(error: DomainError) -> int:
    return status_of_kind(type(error))


def status_of_kind(error: type[DomainError]) -> int:
    """The status of every error of this kind (the OpenAPI document states it from here)."""
    for kind, status in STATUS_BY_ERROR:
        if issubclass(error, kind):
            return status
    return 400


def public_error(message: str, code: str | None = None) -> Json:
    return msgspec.to_builtins(public.public_error(message, code))  # type: ignore[no-any-return]


def commercial_error(
    code: str, message: str, request_id: str, details: dict[str, Any] | None = None
) -> Json:
    """The commercial error body, as `wire.envelope.CommercialError` declares it (built here,
    and only here, for every face)."""
    error = {"code": code, "message": message, "request_id": request_id, "details": details or {}}
    return {"error": error}


def error_shape(
    code: str,
    message: str,
    *,
    request_id: str,
    public: bool,
    details: dict[str, Any] | None = None,
) -> Json:
    """A refusal no domain error names (no such endpoint, a method not allowed...) in the
    public or the commercial shape."""
    if public:
        return {"error": message, "code": code}
    return commercial_error(code, message, request_id, details)


# The refusals HTTP itself makes, whatever the face: (status, code, message).
NOT_FOUND = (404, "not_found", "No such endpoint.")
METHOD_NOT_ALLOWED = (405, "method_not_allowed", "This endpoint does not accept that method.")
PAYLOAD_TOO_LARGE = (413, "payload_too_large", "The request body is too large.")
INVALID_REQUEST = (400, "invalid_request", "The request could not be understood.")
INTERNAL_ERROR = (
    500,
    "internal_error",
    "The service failed to answer; please retry. Quote the request id to support.",
)


def error_body(refused: Refused, *, request_id: str, details: dict[str, Any] | None = None) -> Json:
    """The refusal in its tier's shape (`details` replaces the error's own when given)."""
    error = refused.error
    if not refused.keyed:
        return public_error(error.message, error.code)
    shown = error.details if details is None else details
    return commercial_error(error.code, error.message, request_id, shown)
