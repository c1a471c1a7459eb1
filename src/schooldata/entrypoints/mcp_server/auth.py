"""Credentials on an MCP HTTP request -> the caller, once, before the SDK sees the request.

DECISIONS (Authentication 6): no credentials -> anonymous (the public tools); a valid key ->
the commercial tools; bad credentials -> HTTP 401 with the commercial error body, never a silent
downgrade. Discovery, ping, initialize and tools/list authenticate like tools/call does.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import anyio.to_thread

from schooldata.application.access import Caller
from schooldata.application.pipeline import Pipeline, Refused
from schooldata.domain.errors import DomainError
from schooldata.entrypoints.http.request import HttpRequest, request_id_in
from schooldata.entrypoints.refusals import commercial_error, status_of

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]

NO_STORE = (b"cache-control", b"no-store")


async def authenticate(pipeline: Pipeline, request: HttpRequest) -> Caller | None:
    """None when the request carries no credentials. Raises Refused (401 or 503, commercial).
    The credentials are the ones the edge read (`HttpRequest`: a header sent twice with
    different keys is a conflict, as on REST). The key store may do I/O, so a keyed lookup
    runs on a worker thread."""
    if request.conflict is not None:
        raise Refused(request.conflict, keyed=True)
    credentials = request.credentials
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
