"""Every `tools/call`, in every protocol era, by one road: the SDK's transport checks it must
pass (`call_checks`, `envelopes`: the SDK's own functions, remembered), then the caller's tool
run through the pipeline (`invoke`), then the reply in the era's wire form (`replies`).

A request the SDK's transport would refuse before dispatching it (a wrong Accept, a header
ladder rung, an envelope that is no JSON-RPC request...) is not taken: the SDK answers it, as
it answers every other method. The SDK registers no tools/call handler, so nothing else runs
a tool. Why not the SDK's handler: its per-request dispatch (a connection, a session, a
middleware chain, pydantic results dumped twice) costs more than the whole search it carries
(docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import anyio.to_thread
import pydantic_core
from attrs import frozen
from mcp_types import INVALID_PARAMS

from schooldata.application.access import Caller
from schooldata.application.pipeline import Pipeline
from schooldata.entrypoints.mcp_server import replies
from schooldata.entrypoints.mcp_server.call_checks import HeaderChecks
from schooldata.entrypoints.mcp_server.envelopes import Envelope, Envelopes
from schooldata.entrypoints.mcp_server.invoke import ToolAnswer, invoke
from schooldata.entrypoints.mcp_server.routing import Checked
from schooldata.entrypoints.mcp_server.state import McpRequest
from schooldata.entrypoints.mcp_server.tools import ToolCatalogue, ToolSpec
from schooldata.ports.keys import WouldBlock

INVALID_PARAMS_MESSAGE = "Invalid request parameters"  # (the SDK's, with empty data)


@frozen
class ToolCall:
    envelope: Envelope
    tool: ToolSpec | None  # None: the caller has no tool of that name
    version: str | None  # the handshake era's (None: 2026-07-28)


class ToolCallRoad:
    def __init__(
        self,
        pipeline: Pipeline,
        server_info: Mapping[str, Any],
        *,
        on_tool_call: Callable[[str, str], None] = lambda _tool, _outcome: None,
        catalogue: ToolCatalogue | None = None,
    ) -> None:
        """`on_tool_call(tool, outcome)` hears of every call: `ok`, `error` (a result with
        `isError`), or `rejected` for a tool the caller does not have (named `unknown`)."""
        self._pipeline = pipeline
        self._on_tool_call = on_tool_call
        self.catalogue = catalogue or ToolCatalogue()
        self._headers = HeaderChecks()
        self._envelopes = Envelopes()
        self._replies = replies.Replies(server_info)

    def match(
        self, scope: Mapping[str, Any], checked: Checked, caller: Caller | None
    ) -> ToolCall | None:
        """The call, when the request is a tools/call the SDK's transport would dispatch;
        else None (nothing was counted: the SDK answers)."""
        if checked.modern:
            message = checked.message
        elif checked.version is not None and checked.body is not None:
            message = _read_as_the_sdk(checked.body)
        else:
            return None
        if message is None or message.get("method") != "tools/call" or "id" not in message:
            return None
        headers = self._headers(scope["headers"])
        if checked.modern:
            if not headers.modern:
                return None
            envelope = self._envelopes.checked(message, headers.first, headers.serial)
        else:
            if not headers.handshake or checked.version is None:
                return None
            envelope = self._envelopes.checked_at(message, checked.version)
        if envelope is None:
            return None
        tool = self.catalogue.find(envelope.name, caller) if envelope.valid else None
        return ToolCall(envelope, tool, None if checked.modern else checked.version)

    async def answer(self, call: ToolCall, request: McpRequest) -> tuple[int, bytes]:
        """(HTTP status, JSON-RPC reply) of the call, run through the pipeline."""
        envelope = call.envelope
        if not envelope.valid:
            return replies.error(
                envelope.request_id, INVALID_PARAMS, INVALID_PARAMS_MESSAGE, "", call.version
            )
        if call.tool is None:
            self._on_tool_call("unknown", "rejected")
            return self._unknown(envelope, request, call.version)
        answer = await self.run(call.tool, request, envelope.arguments)
        return 200, self._replies.result(envelope.request_id, answer, call.version)

    async def run(self, tool: ToolSpec, request: McpRequest, arguments: object) -> ToolAnswer:
        """The tool, on the event loop when all it reads answers from memory, else on a worker
        thread; counted for the metrics."""
        call = partial(invoke, self._pipeline, tool, request, arguments)
        try:
            answer = call(wait=False)
        except WouldBlock:  # (nothing was counted) on a worker thread, as it may wait
            answer = await anyio.to_thread.run_sync(call)
        self._on_tool_call(tool.name, "error" if answer.is_error else "ok")
        return answer

    def _unknown(
        self, envelope: Envelope, request: McpRequest, version: str | None
    ) -> tuple[int, bytes]:
        """-32602 naming the tools the caller has (a protocol error, not a tool's failure)."""
        name = envelope.name
        offered = [t.name for t in self.catalogue.tools_for(request.caller)]
        hint = "" if request.keyed else " Commercial tools need 'Authorization: Bearer <key>'."
        message = f"Unknown tool: {name!r}. Tools: {', '.join(offered)}.{hint}"
        data = {"tool": name, "tools": offered}
        return replies.error(envelope.request_id, INVALID_PARAMS, message, data, version)


def _read_as_the_sdk(body: bytes) -> dict[str, Any] | None:
    """The body as the handshake-era transport reads it (its own JSON reader, which differs
    from `json.loads` at the edges: lone surrogates, nesting depth, encodings); None where it
    is no JSON object (the SDK answers)."""
    try:
        value = pydantic_core.from_json(body)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
