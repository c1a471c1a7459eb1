"""The MCP server, on the SDK's low-level `Server`: exact control over what is advertised.

- Capabilities: tools, and prompts and resources that are empty. What is advertised is
  answered: `prompts/list`, `resources/list` and `resources/templates/list` return empty lists
  with their cache hints (SEP-2549 asks every list for them), and `prompts/get` or
  `resources/read` name nothing that exists, so they answer -32602 (Invalid params, with the
  name or URI in `data`, as SEP-2164 has it). No logging, completions or subscriptions.
- `server/discover` (2026-07-28) lists every version the endpoint serves, the handshake ones
  included, with cache hints: discovery and the empty lists are the same for everyone
  (`public`), a tool list depends on the credentials (`private`).
- `initialize` (2025-03-26, 2025-06-18, 2025-11-25): a client asking for a version we do not
  serve (2024-11-05) is offered our newest handshake version, as the lifecycle rules say.
- `tools/list`: the caller's tools. `tools/call` is not the SDK's to run: the endpoint's call
  road (`call_road`) answers every one the SDK's transport would dispatch, in every era, so
  no handler is registered for it here (the `tools` capability follows `tools/list`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import mcp_types as types
from mcp.server import CacheHint, Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

import schooldata
from schooldata.application.about import PROTOCOL_VERSIONS
from schooldata.application.access import Caller
from schooldata.application.service import Application
from schooldata.entrypoints.mcp_server import state
from schooldata.entrypoints.mcp_server.tools import ToolCatalogue, ToolSpec

SUPPORTED_VERSIONS: tuple[str, ...] = PROTOCOL_VERSIONS  # newest first
HANDSHAKE_VERSIONS: tuple[str, ...] = tuple(v for v in SUPPORTED_VERSIONS if v != "2026-07-28")
LATEST_HANDSHAKE = HANDSHAKE_VERSIONS[0]
DISCOVERY_TTL_MS = 3_600_000
TOOLS_TTL_MS = 300_000

INSTRUCTIONS = (
    "Read-only data on open UK schools, keyed by six-digit URN. Without an API key: "
    "search_schools and get_school with public fields. With 'Authorization: Bearer <key>': ten "
    "commercial tools, each included in some plans (a tool outside the caller's plan answers "
    "feature_not_in_plan). null means unavailable or suppressed, never zero. Single-word Ofsted "
    "grades are historic after 2025-11-10 and not comparable with report cards."
)
ANNOTATIONS = types.ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


def describe(tool: ToolSpec, caller: Caller | None, app: Application) -> types.Tool:
    """A tool as the caller sees it: their plan's bounds in the schema, the plans it is in."""
    description = tool.description
    meta: dict[str, Any] = {}
    if tool.feature is not None:
        plans = ToolCatalogue.plans_with(tool.feature, app)
        description += f" Plans: {', '.join(plans) or 'none'} (feature '{tool.feature.value}')."
        meta = {"schooldata/feature": tool.feature.value, "schooldata/plans": plans}
    return types.Tool(
        name=tool.name,
        title=tool.title,
        description=description,
        input_schema=tool.input_schema(None if caller is None else caller.plan),
        output_schema=tool.output_schema,
        annotations=ANNOTATIONS.model_copy(update={"title": tool.title}),
        _meta=meta or None,
    )


class OfferServedVersion:
    """Server middleware: answer `initialize` for an unserved version with our newest one.

    Stateless HTTP keeps no connection state, so rewriting the params the result is built from
    is the whole negotiation."""

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        params = ctx.params
        if ctx.method == "initialize" and params is not None:
            asked = params.get("protocolVersion")
            if isinstance(asked, str) and asked not in HANDSHAKE_VERSIONS:
                ctx = replace(ctx, params={**params, "protocolVersion": LATEST_HANDSHAKE})
        return await call_next(ctx)


def build_server(
    app: Application,
    *,
    fallback_base_url: str = "http://localhost",
    catalogue: ToolCatalogue | None = None,
) -> Server[Any]:
    catalogue = catalogue or ToolCatalogue()

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        caller = state.current(fallback_base_url=fallback_base_url).caller
        return types.ListToolsResult(
            tools=[describe(t, caller, app) for t in catalogue.tools_for(caller)]
        )

    async def list_prompts(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[])

    async def get_prompt(
        ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        raise MCPError(
            code=INVALID_PARAMS,
            message=f"Unknown prompt: {params.name!r}. This server has no prompts.",
            data={"name": params.name},
        )

    async def list_resources(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[])

    async def list_resource_templates(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[])

    async def read_resource(
        ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        raise MCPError(
            code=INVALID_PARAMS,
            message="Resource not found. This server has no resources.",
            data={"uri": params.uri},
        )

    server: Server[Any] = Server(
        "schooldata",
        version=schooldata.__version__,
        title="School Data Service",
        description="Read-only records of open UK schools: public and commercial tools.",
        instructions=INSTRUCTIONS,
        cache_hints={
            "server/discover": CacheHint(ttl_ms=DISCOVERY_TTL_MS, scope="public"),
            "tools/list": CacheHint(ttl_ms=TOOLS_TTL_MS, scope="private"),
            "prompts/list": CacheHint(ttl_ms=DISCOVERY_TTL_MS, scope="public"),
            "resources/list": CacheHint(ttl_ms=DISCOVERY_TTL_MS, scope="public"),
            "resources/templates/list": CacheHint(ttl_ms=DISCOVERY_TTL_MS, scope="public"),
        },
        # No tool declares `x-mcp-header`, so there are no Mcp-Param-* headers to check; without
        # this the SDK would run tools/list for every tools/call to find out.
        get_tool_input_schema=lambda _name: None,
        on_list_tools=list_tools,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_list_resources=list_resources,
        on_list_resource_templates=list_resource_templates,
        on_read_resource=read_resource,
    )

    async def discover(
        ctx: ServerRequestContext[Any, Any], params: types.RequestParams | None
    ) -> types.DiscoverResult:
        return types.DiscoverResult(
            supported_versions=list(SUPPORTED_VERSIONS),
            capabilities=server.get_capabilities(protocol_version=ctx.protocol_version),
            instructions=INSTRUCTIONS,
        )

    server.add_request_handler("server/discover", types.RequestParams, discover)
    server.middleware.append(OfferServedVersion())
    return server
