"""One tools/call, in the order DECISIONS.md meters it, on a worker thread.

1. Entitlement: a keyed caller's plan must include the tool's feature (else
   `feature_not_in_plan`, not metered).
2. Arguments, every rule, in the order REST reports them: unknown and missing names, then
   the use case's own `prepare` (each value in turn, the plan's bounds, and the rules a schema
   cannot say: "a postcode or a point, not both", "sort=distance needs an origin", duplicate
   URNs...), then the tool's input schema for anything left. Any failure is the parameter
   error, not metered.
3. Rate limit and quota: one use consumed atomically (else `rate_limit_exceeded` /
   `quota_exceeded` with `retry_after`, not metered).
4. The prepared use case runs; whatever it finds (a school, "not found", "unknown postcode")
   the call was metered.

Every failure the model can act on is a result with `isError: true` whose text and
`structuredContent` carry the error body of the caller's tier (public: `{"error", "code"}`;
commercial: `{"error": {"code", "message", "request_id", "details"}}`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

import mcp_types as types

from schooldata.application.service import Application
from schooldata.domain.errors import DomainError
from schooldata.domain.metering import LimitReached
from schooldata.entrypoints import wire
from schooldata.entrypoints.mcp_server.state import McpRequest
from schooldata.entrypoints.mcp_server.tools import ToolCall, ToolSpec
from schooldata.entrypoints.mcp_server.validation import check_names, validate_arguments

log = logging.getLogger("schooldata.mcp")

INTERNAL_MESSAGE = "The service failed to answer; please retry. Quote the request id to support."


def invoke(
    app: Application, tool: ToolSpec, request: McpRequest, arguments: Mapping[str, Any]
) -> types.CallToolResult:
    """Blocking: call it on a worker thread. Fills `request.reading` when a use is consumed."""
    caller = request.caller
    try:
        plan = None if caller is None else caller.plan
        if plan is not None and tool.feature is not None:
            plan.require(tool.feature)
        schema = tool.input_schema(plan)
        check_names(schema, arguments)
        run = tool.prepare(
            ToolCall(
                app=app,
                caller=caller,
                arguments=arguments,
                base_url=request.base_url,
                request_id=request.request_id,
            )
        )
        validate_arguments(schema, arguments, plan)
        if caller is not None and tool.feature is not None:
            request.reading = app.meter.admit(caller, tool.feature)
        payload = run()
    except LimitReached as limited:
        request.reading, request.retry_after = limited.reading, limited.retry_after
        details = {**limited.details, "retry_after": limited.retry_after}
        message = f"{limited.message} Retry after {limited.retry_after} s."
        return failure(request, limited.code, message, details)
    except DomainError as error:
        return failure(request, error.code, error.message, error.details)
    except Exception:
        log.exception("MCP tool %s failed", tool.name, extra={"request_id": request.request_id})
        return failure(request, "internal_error", INTERNAL_MESSAGE, {})
    return success(payload, tool.summary(payload))


def success(payload: dict[str, Any], summary: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=summary), types.TextContent(text=_json(payload))],
        structured_content=payload,
    )


def failure(
    request: McpRequest, code: str, message: str, details: Mapping[str, Any]
) -> types.CallToolResult:
    body: dict[str, Any]
    if request.keyed:
        body = {
            "error": {
                "code": code,
                "message": message,
                "request_id": request.request_id,
                "details": dict(details),
            }
        }
    else:
        body = wire.public_error(message, code)
    return types.CallToolResult(
        content=[types.TextContent(text=f"{code}: {message}"), types.TextContent(text=_json(body))],
        structured_content=body,
        is_error=True,
    )


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
