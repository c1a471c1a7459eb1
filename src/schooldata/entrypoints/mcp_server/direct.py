"""A well-formed 2026-07-28 `tools/call` of a tool the caller has, answered without the SDK's
per-request machinery; everything else (other methods, eras, any request the SDK would refuse
or treat specially) goes on to the SDK.

The request is judged by the SDK's own checks (Accept, duplicated routing headers, the
header/`_meta` ladder, the JSON-RPC envelope and the method's params: `envelopes`), so the
two roads accept the same requests; the answer is the JSON the SDK would send
(`tests/e2e/test_mcp_direct.py` compares them). Why not the SDK alone: its per-request
dispatch (a connection, a session, a middleware chain, pydantic results dumped twice) costs
more than the whole search it carries (docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
from attrs import frozen
from mcp.server.streamable_http import check_accept_headers
from mcp.shared.inbound import find_duplicated_routing_header
from mypy_extensions import mypyc_attr
from starlette.requests import Request

from schooldata.application.access import Caller
from schooldata.entrypoints.mcp_server.calls import ToolCalls
from schooldata.entrypoints.mcp_server.envelopes import Envelopes
from schooldata.entrypoints.mcp_server.invoke import ToolAnswer
from schooldata.entrypoints.mcp_server.state import McpRequest
from schooldata.entrypoints.mcp_server.tools import ToolSpec

SERVER_INFO = "io.modelcontextprotocol/serverInfo"
_encode = msgspec.json.encode
MAX_ACCEPTS = 64  # remembered Accept values, each at most MAX_ACCEPT_CHARS long
MAX_ACCEPT_CHARS = 256
MAX_HEADER_LISTS = 256  # remembered raw header lists, each at most MAX_HEADER_BYTES long
MAX_HEADER_BYTES = 4096


@frozen
class DirectCall:
    request_id: int | str
    tool: ToolSpec
    arguments: Mapping[str, Any]


class AcceptsJson:
    """The SDK's Accept check (`check_accept_headers`), remembered per header value: a client
    sends one or two, and the check costs more than the rest of the headers' checks."""

    def __init__(self) -> None:
        self.known: dict[str, bool] = {}

    def __call__(self, accept: str) -> bool:
        known = self.known.get(accept)
        if known is None:
            headers = [(b"accept", accept.encode("latin-1"))]
            known = check_accept_headers(Request({"type": "http", "headers": headers}))[0]
            if len(accept) <= MAX_ACCEPT_CHARS:
                if len(self.known) >= MAX_ACCEPTS:
                    self.known.clear()
                self.known[accept] = known
        return known


@frozen
class SentHeaders:
    """A request's headers as the SDK's checks read them (each name's first value), and the
    serial of the remembered header list they were read from (None: not remembered)."""

    first: dict[str, str]
    serial: int | None = None


class HeaderChecks:
    """The request's headers as the SDK's checks read them, and whether they pass the checks
    that read nothing else (Accept, no duplicated routing header), remembered per raw header
    list: a client sends the same few lists, differing at most in Content-Length."""

    def __init__(self) -> None:
        self._accepts_json = AcceptsJson()
        self.known: dict[tuple[tuple[bytes, bytes], ...], SentHeaders | None] = {}
        self._serials = 0  # (never reused, so a verdict kept under one never meets another list)

    def __call__(self, raw: list[tuple[bytes, bytes]]) -> SentHeaders | None:
        """The headers read, or None when they fail those checks."""
        key = tuple(raw)
        if key in self.known:
            return self.known[key]
        first = self._checked(raw)
        if sum(len(name) + len(value) for name, value in raw) > MAX_HEADER_BYTES:
            return None if first is None else SentHeaders(first)
        self._serials += 1
        found = None if first is None else SentHeaders(first, self._serials)
        if len(self.known) >= MAX_HEADER_LISTS:
            self.known.clear()
        self.known[key] = found
        return found

    def _checked(self, raw: list[tuple[bytes, bytes]]) -> dict[str, str] | None:
        # (as Starlette's `Headers.items()` and `dict(request.headers)`: a name's first value)
        items = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in raw]
        first: dict[str, str] = {}
        for name, value in items:
            first.setdefault(name, value)
        if not self._accepts_json(first.get("accept", "")):
            return None
        if find_duplicated_routing_header(items) is not None:
            return None
        return first


# Not a compiled (native) class: the twin tests send one app's calls through the SDK by
# replacing its `match`, which a compiled caller would not see on a native class.
@mypyc_attr(native_class=False)
class DirectCalls:
    def __init__(self, calls: ToolCalls, server_info: Mapping[str, Any]) -> None:
        self._calls = calls
        self._envelopes = Envelopes()
        self._headers = HeaderChecks()
        # The constant tail of every result: its type and the server's identity (spec #3002).
        self._tail = b',"resultType":"complete","_meta":' + _encode({SERVER_INFO: server_info})

    def match(
        self, scope: Mapping[str, Any], message: Mapping[str, Any] | None, caller: Caller | None
    ) -> DirectCall | None:
        """The call, when this request may skip the SDK; else None (nothing was counted)."""
        if message is None or message.get("method") != "tools/call" or "id" not in message:
            return None
        headers = self._headers(scope["headers"])
        if headers is None:
            return None
        envelope = self._envelopes.checked(message, headers.first, headers.serial)
        if envelope is None:
            return None
        tool = self._calls.find(envelope.name, caller)
        if tool is None:
            return None
        return DirectCall(envelope.request_id, tool, envelope.arguments)

    async def answer(self, call: DirectCall, request: McpRequest) -> bytes:
        """The JSON-RPC response body for the call, run through the pipeline."""
        answer = await self._calls.run(call.tool, request, call.arguments)
        return self._response(call.request_id, answer)

    def _response(self, request_id: int | str, answer: ToolAnswer) -> bytes:
        payload = answer.json()
        content = b"".join(
            (
                b'[{"text":',
                _encode(answer.summary),
                b',"type":"text"},{"text":',
                json_string_of(payload),
                b',"type":"text"}]',
            )
        )
        return b"".join(
            (
                b'{"jsonrpc":"2.0","id":',
                _encode(request_id),
                b',"result":{"content":',
                content,
                b',"isError":',
                b"true" if answer.is_error else b"false",
                b',"structuredContent":',
                payload,
                self._tail,
                b"}}",
            )
        )


def json_string_of(json_text: bytes) -> bytes:
    """Compact JSON as msgspec writes it, as a JSON string (quotes included): the same bytes as
    encoding its decoded text, since such JSON holds no raw control character and only its
    backslashes and quotes need escaping."""
    return b'"' + json_text.replace(b"\\", b"\\\\").replace(b'"', b'\\"') + b'"'
