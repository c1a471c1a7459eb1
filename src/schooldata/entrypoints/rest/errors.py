"""Errors no route answered, as HTTP: Litestar's exception handlers (its own refusals, and
anything a page or a mounted endpoint raised), in the tier's error shape.

Statuses and bodies come from the one map (`entrypoints/refusals.py`): a domain error answers
here exactly as a route answers it. Public: `{"error", "code"}`; commercial: `{"error":
{"code", "message", "request_id", "details"}}`. Never Litestar's default body, never a stack
trace.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, MethodNotAllowedException, NotFoundException

from schooldata.application.pipeline import Refused
from schooldata.domain.errors import DomainError
from schooldata.entrypoints.http.answer import Headers, encoded
from schooldata.entrypoints.http.request import HttpRequest, request_of
from schooldata.entrypoints.http.route_table import with_head
from schooldata.entrypoints.refusals import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_ALLOWED,
    NOT_FOUND,
    PAYLOAD_TOO_LARGE,
    error_shape,
)
from schooldata.entrypoints.rest.responses import JSON, refusal_response

log = logging.getLogger("schooldata.rest")


def error_of(
    request: HttpRequest | None, exc: Exception, *, commercial_route: bool = False
) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, JSON body) of an error: the commercial shape on a commercial
    address (`commercial_route`) or with credentials, else the public one."""
    request_id = "" if request is None else request.id
    public = not commercial_route and (request is None or not request.has_credentials)
    headers: dict[str, str] = {}
    if isinstance(exc, DomainError):
        answer = refusal_response(Refused(exc, keyed=not public), request_id=request_id)
        named = {k.decode(): v.decode("latin-1") for k, v in answer.headers}
        named.pop("content-type", None)
        return answer.status, named, answer.body
    if isinstance(exc, NotFoundException):
        refusal = NOT_FOUND
    elif isinstance(exc, MethodNotAllowedException):
        refusal = METHOD_NOT_ALLOWED
        if (allow := _allow_header(exc)) is not None:
            headers["Allow"] = allow
    elif isinstance(exc, HTTPException):
        if exc.status_code == 413:
            refusal = PAYLOAD_TOO_LARGE
        else:
            status = exc.status_code if 400 <= exc.status_code < 500 else 400
            refusal = (status, *INVALID_REQUEST[1:])
    else:
        # Logged with the request id so support can find it; the client sees no internals.
        log.exception("unhandled error", extra={"request_id": request_id})
        refusal = INTERNAL_ERROR
    status, code, message = refusal
    body = error_shape(code, message, request_id=request_id, public=public)
    return status, headers, msgspec.json.encode(body)


def error_answer(request: HttpRequest | None, exc: Exception) -> tuple[int, Headers, bytes]:
    """`error_of` as an ASGI answer's status, headers and body."""
    status, headers, body = error_of(request, exc)
    sent = [*encoded(headers), (b"content-type", JSON.encode())]
    sent.append((b"content-length", b"%d" % len(body)))
    return status, sent, body


def error_response(
    request: Request[Any, Any, Any], exc: Exception, *, commercial_route: bool = False
) -> Response[bytes]:
    """`error_of` as Litestar's exception handlers answer."""
    status, headers, body = error_of(
        request_of(request.scope), exc, commercial_route=commercial_route
    )
    return Response(body, media_type=JSON, status_code=status, headers=headers or None)


def unexpected_response(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    return error_response(request, exc)


def _allow_header(exc: HTTPException) -> str | None:
    raw = next((v for k, v in (exc.headers or {}).items() if k.lower() == "allow"), None)
    return None if raw is None else with_head(raw.encode("latin-1")).decode("latin-1")


def exception_handlers(
    on_http_exception: Callable[[Request[Any, Any, Any], HTTPException], Response[Any]],
) -> dict[type[Exception] | int, Any]:
    """Litestar's handlers: `on_http_exception` answers its own refusals (the app factory
    authenticates any credentials there first), everything else is mapped here."""
    return {HTTPException: on_http_exception, Exception: unexpected_response}
