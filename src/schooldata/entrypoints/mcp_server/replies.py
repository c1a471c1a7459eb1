"""A `tools/call`'s JSON-RPC reply as each era's transport writes it: status and body bytes.

2026-07-28: a result is the SDK's wire form (content, isError, structuredContent, then
`resultType` and the server's identity, spec #3002), written here from the answer's JSON
without the SDK's pydantic round trip (it costs more than the search it carries); an error
is the SDK's `json.dumps` of it (ASCII), with the HTTP status its code maps to.
Handshake eras: the SDK's own serialization of the result or error, always HTTP 200.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import msgspec
from mcp.shared.inbound import ERROR_CODE_HTTP_STATUS
from mcp_types import ErrorData, JSONRPCError, JSONRPCResponse
from mcp_types.methods import serialize_server_result

from schooldata.entrypoints.mcp_server.invoke import ToolAnswer

SERVER_INFO = "io.modelcontextprotocol/serverInfo"
TOOLS_CALL = "tools/call"
_encode = msgspec.json.encode


class Replies:
    def __init__(self, server_info: Mapping[str, Any]) -> None:
        # The constant tail of every 2026-07-28 result: its type and the server's identity.
        self._tail = b',"resultType":"complete","_meta":' + _encode({SERVER_INFO: server_info})

    def result(self, request_id: int | str, answer: ToolAnswer, version: str | None) -> bytes:
        """`version`: the handshake era's (None: 2026-07-28)."""
        if version is not None:
            return handshake_result(request_id, answer, version)
        payload = answer.json()
        return b"".join(
            (
                b'{"jsonrpc":"2.0","id":',
                _encode(request_id),
                b',"result":{"content":[{"text":',
                _encode(answer.summary),
                b',"type":"text"},{"text":',
                json_string_of(payload),
                b',"type":"text"}],"isError":',
                b"true" if answer.is_error else b"false",
                b',"structuredContent":',
                payload,
                self._tail,
                b"}}",
            )
        )


def handshake_result(request_id: int | str, answer: ToolAnswer, version: str) -> bytes:
    result = answer.as_result().model_dump(by_alias=True, mode="json", exclude_none=True)
    shown = serialize_server_result(TOOLS_CALL, version, result)
    reply = JSONRPCResponse(jsonrpc="2.0", id=request_id, result=shown)
    return reply.model_dump_json(by_alias=True, exclude_unset=True).encode()


def error(
    request_id: int | str, code: int, message: str, data: Any, version: str | None
) -> tuple[int, bytes]:
    """(HTTP status, body) of a JSON-RPC error; `version` as for `Replies.result`."""
    reply = JSONRPCError(
        jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message, data=data)
    )
    if version is not None:
        return 200, reply.model_dump_json(by_alias=True, exclude_unset=True).encode()
    shown = reply.model_dump(mode="json", by_alias=True, exclude_none=True)
    return ERROR_CODE_HTTP_STATUS.get(code, 200), json.dumps(shown, separators=(",", ":")).encode()


def json_string_of(json_text: bytes) -> bytes:
    """Compact JSON as msgspec writes it, as a JSON string (quotes included): the same bytes as
    encoding its decoded text, since such JSON holds no raw control character and only its
    backslashes and quotes need escaping."""
    return b'"' + json_text.replace(b"\\", b"\\\\").replace(b'"', b'\\"') + b'"'
