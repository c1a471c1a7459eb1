"""Domain errors -> HTTP, in one place, in the tier's error shape.

Public: `{"error": "<text>", "code": "<code>"}`. Commercial: `{"error": {"code", "message",
"request_id", "details"}}`. Never Litestar's default body, never a stack trace.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from litestar import Request, Response
from litestar.exceptions import HTTPException, MethodNotAllowedException, NotFoundException

from schooldata.domain.errors import (
    DataUnavailable,
    DomainError,
    FeatureNotInPlan,
    InvalidParameter,
    LimitExceedsPlan,
    SchoolNotFound,
    SinceExpired,
    UnknownParameter,
)
from schooldata.entrypoints import wire
from schooldata.entrypoints.rest.transport import with_head
from schooldata.entrypoints.scope import request_id_in

log = logging.getLogger("schooldata.rest")

STATUS_BY_ERROR: tuple[tuple[type[DomainError], int], ...] = (
    (UnknownParameter, 400),
    (LimitExceedsPlan, 400),
    (InvalidParameter, 400),
    (SchoolNotFound, 404),
    (FeatureNotInPlan, 403),
    (SinceExpired, 410),
    (DataUnavailable, 503),
)

COMMERCIAL_TIER_KEY = "schooldata.commercial"


def status_of(error: DomainError) -> int:
    for kind, status in STATUS_BY_ERROR:
        if isinstance(error, kind):
            return status
    return 400


def request_id_of(request: Request[Any, Any, Any]) -> str:
    return request_id_in(request.scope)


def is_commercial(request: Request[Any, Any, Any]) -> bool:
    return bool(request.scope.get(COMMERCIAL_TIER_KEY, False))


def public_error(status: int, message: str, code: str) -> Response[Any]:
    return Response(wire.public_error(message, code), status_code=status)


def commercial_error(
    request: Request[Any, Any, Any],
    status: int,
    code: str,
    message: str,
    details: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> Response[Any]:
    body = {
        "error": {
            "code": code,
            "message": message,
            "request_id": request_id_of(request),
            "details": details or {},
        }
    }
    return Response(body, status_code=status, headers=headers)


def domain_error_response(
    request: Request[Any, Any, Any], error: DomainError, *, unavailable_status: int = 503
) -> Response[Any]:
    status = unavailable_status if isinstance(error, DataUnavailable) else status_of(error)
    if is_commercial(request):
        return commercial_error(request, status, error.code, error.message, error.details)
    return public_error(status, error.message, error.code)


def http_exception_response(
    request: Request[Any, Any, Any], exc: HTTPException, *, commercial_route: bool = False
) -> Response[Any]:
    """Litestar's own refusals (no route, wrong method, body too large, ...) in the tier's
    error shape: commercial on a commercial route (`commercial_route`) or with credentials. A 405 keeps the `Allow` header (RFC 9110 requires it), HEAD included
    wherever GET is allowed (the transport layer answers HEAD for every GET)."""
    headers: dict[str, str] = {}
    if isinstance(exc, NotFoundException):
        status, code, message = 404, "not_found", "No such endpoint."
    elif isinstance(exc, MethodNotAllowedException):
        status, code, message = (
            405,
            "method_not_allowed",
            "This endpoint does not accept that method.",
        )
        if (allow := _allow_header(exc)) is not None:
            headers["Allow"] = allow
    elif exc.status_code == 413:
        status, code, message = 413, "payload_too_large", "The request body is too large."
    else:
        status = exc.status_code if 400 <= exc.status_code < 500 else 400
        code, message = "invalid_request", "The request could not be understood."
    if commercial_route or is_commercial(request) or carries_credentials(request):
        response = commercial_error(request, status, code, message)
    else:
        response = public_error(status, message, code)
    response.headers.update(headers)
    return response


def _allow_header(exc: HTTPException) -> str | None:
    raw = next((v for k, v in (exc.headers or {}).items() if k.lower() == "allow"), None)
    return None if raw is None else with_head(raw.encode("latin-1")).decode("latin-1")


def carries_credentials(request: Request[Any, Any, Any]) -> bool:
    return any(name.lower() in ("authorization", "x-api-key") for name in request.headers)


def unexpected_response(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    if isinstance(exc, DomainError):
        return domain_error_response(request, exc)
    if isinstance(exc, HTTPException):
        return http_exception_response(request, exc)
    # Logged with the request id so support can find it; the client sees no internals.
    log.exception("unhandled error", extra={"request_id": request_id_of(request)})
    message = "The service failed to answer; please retry. Quote the request id to support."
    if is_commercial(request):
        return commercial_error(request, 500, "internal_error", message)
    return public_error(500, message, "internal_error")


def exception_handlers(
    on_http_exception: Callable[[Request[Any, Any, Any], HTTPException], Response[Any]],
) -> dict[type[Exception] | int, Any]:
    """Litestar's handlers: `on_http_exception` answers its own refusals (the app factory
    authenticates any credentials there first), everything else is mapped here."""
    return {HTTPException: on_http_exception, Exception: unexpected_response}
