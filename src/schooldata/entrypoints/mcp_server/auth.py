"""Credentials on an MCP HTTP request -> the caller, once, before the SDK sees the request.

DECISIONS (Authentication 6): no credentials -> anonymous (the public tools); a valid key ->
the commercial tools; bad credentials -> HTTP 401 with the commercial error body, never a silent
downgrade. Discovery, ping, initialize and tools/list authenticate like tools/call does.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

import anyio.to_thread

from schooldata.application.access import Caller
from schooldata.application.pipeline import Credentials, Pipeline, Refused
from schooldata.domain.credentials import single_header_value
from schooldata.domain.errors import DomainError
from schooldata.domain.keys import AuthenticationFailed
from schooldata.entrypoints.http.request import request_id_in
from schooldata.entrypoints.refusals import commercial_error, status_of

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]

NO_STORE = (b"cache-control", b"no-store")


def header_values(scope: Scope, name: bytes) -> list[str]:
    """Every value of a request header, in order (a header may be sent more than once)."""
    headers: Iterable[tuple[bytes, bytes]] = scope.get("headers", ())
    return [value.decode("latin-1") for key, value in headers if key.lower() == name]


async def authenticate(pipeline: Pipeline, scope: Scope) -> Caller | None:
    """None when the request carries no credentials. Raises Refused (401 or 503, commercial).
    The key store may do I/O, so a keyed lookup runs on a worker thread."""
    # A credential header sent twice with different keys conflicts, as on REST (one rule:
    # domain/credentials.single_header_value); the first line is never silently chosen.
    try:
        credentials = Credentials(
            authorization=single_header_value(
                header_values(scope, b"authorization"), header="Authorization"
            ),
            x_api_key=single_header_value(header_values(scope, b"x-api-key"), header="X-API-Key"),
        )
    except AuthenticationFailed as error:
        raise Refused(error, keyed=True) from None
    if not credentials.present:
        return None
    return await anyio.to_thread.run_sync(pipeline.identify, credentials)


async def send_auth_failure(scope: Scope, send: Send, error: DomainError) -> None:
    """401 (with `WWW-Authenticate: Bearer`) or, the key store down, 503: the status of the
    error's kind (`entrypoints/refusals.py`, every face's one table), in the commercial shape."""
    status = status_of(error)
    body = json.dumps(commercial_error(error.code, error.message, request_id_in(scope))).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        NO_STORE,
    ]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="schooldata"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
