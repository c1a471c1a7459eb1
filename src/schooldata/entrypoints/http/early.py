"""Refusals given before any face reads a request (a `Host` this server does not answer to, a
request target that is no path, a body coding it does not decode, a body that never
finished), in the error shape of the tier the path belongs to:

- the MCP endpoint: a JSON-RPC error with a null id (the request was never read), code
  -32600, and `data: {"code", "request_id"}` (as its 413 already is);
- public paths and paths nothing serves, without credentials: the public body `{"error",
  "code"}`;
- everything else: the commercial body `{"error": {"code", "message", "request_id",
  "details"}}`.

Each carries `Cache-Control: no-store`; the caller adds `X-Request-Id`.
"""

from __future__ import annotations

import json
from typing import Any

from schooldata.entrypoints.refusals import error_shape

INVALID_REQUEST = -32600  # JSON-RPC's "Invalid Request"
Headers = list[tuple[bytes, bytes]]


def refusal(
    status: int,
    code: str,
    message: str,
    *,
    request_id: str,
    shape: str,
    close: bool = False,
) -> tuple[int, Headers, bytes]:
    """`shape`: "mcp", "public" or "commercial" (the module docstring). `close`: the
    connection is closed after this answer (a body left unread cannot be skipped)."""
    payload: dict[str, Any]
    if shape == "mcp":
        data = {"code": code, "request_id": request_id}
        error = {"code": INVALID_REQUEST, "message": message, "data": data}
        payload = {"jsonrpc": "2.0", "id": None, "error": error}
    else:
        payload = error_shape(code, message, request_id=request_id, public=shape == "public")
    body = json.dumps(payload, separators=(",", ":")).encode()
    headers: Headers = [
        (b"content-type", b"application/json"),
        (b"content-length", b"%d" % len(body)),
        (b"cache-control", b"no-store"),
    ]
    if close:
        headers.append((b"connection", b"close"))
    return status, headers, body
