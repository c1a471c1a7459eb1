"""One tools/call, whichever road it came in by (the SDK's handler or the direct path): the
caller's tool, run on the event loop when all it reads answers from memory, else on a worker
thread, and counted for the metrics."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import anyio.to_thread
from attrs import field, frozen

from schooldata.application.access import Caller
from schooldata.application.pipeline import Pipeline
from schooldata.entrypoints.mcp_server.invoke import ToolAnswer, invoke
from schooldata.entrypoints.mcp_server.state import McpRequest
from schooldata.entrypoints.mcp_server.tools import ToolCatalogue, ToolSpec
from schooldata.ports.keys import WouldBlock


@frozen
class ToolCalls:
    pipeline: Pipeline
    on_tool_call: Callable[[str, str], None] = lambda _tool, _outcome: None
    catalogue: ToolCatalogue = field(factory=ToolCatalogue)

    def find(self, name: str, caller: Caller | None) -> ToolSpec | None:
        return self.catalogue.find(name, caller)

    def rejected(self) -> None:
        """Count a call of a tool the caller does not have."""
        self.on_tool_call("unknown", "rejected")

    async def run(self, tool: ToolSpec, request: McpRequest, arguments: object) -> ToolAnswer:
        call = partial(invoke, self.pipeline, tool, request, arguments)
        try:
            answer = call(wait=False)
        except WouldBlock:  # (nothing was counted) on a worker thread, as it may wait
            answer = await anyio.to_thread.run_sync(call)
        self.on_tool_call(tool.name, "error" if answer.is_error else "ok")
        return answer
