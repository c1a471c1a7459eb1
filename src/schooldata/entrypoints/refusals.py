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
from schooldata.entrypoints.wire import envelope, public

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
    shape = envelope.commercial_error(code, message, request_id, details)
    return msgspec.to_builtins(shape)  # type: ignore[no-any-return]


def error_body(refused: Refused, *, request_id: str, details: dict[str, Any] | None = None) -> Json:
    """The refusal in its tier's shape (`details` replaces the error's own when given)."""
    error = refused.error
    if not refused.keyed:
        return public_error(error.message, error.code)
    shown = error.details if details is None else details
    return commercial_error(error.code, error.message, request_id, shown)
