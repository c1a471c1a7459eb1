"""One tools/call through the pipeline, and its answer as the SDK's result.

The pipeline decides in DECISIONS' order: entitlement (`feature_not_in_plan`, not metered),
every argument rule (not metered), then the rate limit and quota, then the run (metered,
whatever it finds). Every failure the model can act on is a result with `isError: true` whose
text and `structuredContent` carry the error body of the caller's tier (public:
`{"error", "code"}`; commercial: `{"error": {"code", "message", "request_id", "details"}}`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

import mcp_types as types
import msgspec
from attrs import frozen

from schooldata.application.pipeline import ANONYMOUS, MCP, Pipeline, Refused
from schooldata.entrypoints import answers
from schooldata.entrypoints.mcp_server.state import McpRequest
from schooldata.entrypoints.mcp_server.tools import ToolSpec
from schooldata.entrypoints.refusals import commercial_error, public_error
from schooldata.ports.keys import WouldBlock

log = logging.getLogger("schooldata.mcp")

INTERNAL_MESSAGE = "The service failed to answer; please retry. Quote the request id to support."


@frozen
class ToolAnswer:
    """What a call answers: a line for the model, the answer (its declared Struct, or a
    refusal's plain body), and whether it failed. `encoded`: the answer's JSON where it was
    made from fragments (`answers.public_json`); then `shape` is None."""

    summary: str
    shape: Any
    is_error: bool = False
    encoded: bytes | None = None

    @property
    def payload(self) -> dict[str, Any]:
        """The answer as plain JSON values (`structuredContent`)."""
        if self.encoded is not None:
            return msgspec.json.decode(self.encoded)  # type: ignore[no-any-return]
        return msgspec.to_builtins(self.shape)  # type: ignore[no-any-return]

    def json(self) -> bytes:
        """The payload's JSON (encoded from the Struct: the same bytes)."""
        if self.encoded is not None:
            return self.encoded
        return msgspec.json.encode(self.shape)

    def as_result(self) -> types.CallToolResult:
        """As the SDK sends it: the summary, the payload as text, and the payload itself."""
        payload = self.payload
        return types.CallToolResult(
            content=[
                types.TextContent(text=self.summary),
                types.TextContent(text=_json(payload)),
            ],
            structured_content=payload,
            is_error=self.is_error,
        )


def invoke(
    pipeline: Pipeline,
    tool: ToolSpec,
    request: McpRequest,
    arguments: object,
    *,
    wait: bool = True,
) -> ToolAnswer:
    """Fills `request.reading` with the reading of the use consumed (or, refused, the reading
    the refusal carries). With `wait` it may block (call it on a worker thread); without, it
    raises WouldBlock, having counted nothing, when the pipeline would have to wait."""
    if not isinstance(arguments, Mapping):
        return failure(request, "invalid_parameter", "Tool arguments must be a JSON object.", {})
    try:
        outcome = pipeline.call(
            tool.entry, arguments, credentials=request.caller or ANONYMOUS, face=MCP, wait=wait
        )
    except Refused as refused:
        error = refused.error
        request.reading = refused.reading
        details = dict(error.details)
        message = error.message
        if refused.retry_after is not None:
            request.retry_after = refused.retry_after
            details["retry_after"] = refused.retry_after
            message = f"{message} Retry after {refused.retry_after} s."
        return failure(request, error.code, message, details)
    except WouldBlock:
        raise
    except Exception:
        log.exception("MCP tool %s failed", tool.name, extra={"request_id": request.request_id})
        return failure(request, "internal_error", INTERNAL_MESSAGE, {})
    request.reading = outcome.reading
    if tool.result_summary is not None:
        encoded = answers.public_json(outcome, base_url=request.base_url)
        if encoded is not None:
            summary = tool.result_summary(outcome.result, request.base_url)
            return ToolAnswer(summary, None, encoded=encoded)
    shape = answers.shape(outcome, base_url=request.base_url, request_id=request.request_id)
    return ToolAnswer(tool.summary(shape), shape)


def failure(request: McpRequest, code: str, message: str, details: Mapping[str, Any]) -> ToolAnswer:
    body: dict[str, Any]
    if request.keyed:
        body = commercial_error(code, message, request.request_id, dict(details))
    else:
        body = public_error(message, code)
    return ToolAnswer(f"{code}: {message}", body, is_error=True)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
