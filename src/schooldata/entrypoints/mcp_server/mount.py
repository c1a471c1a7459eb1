"""Mount the MCP endpoint in the Litestar app: one ASGI route at `/mcp` and one lifespan.

`bootstrap.build_asgi` calls `build_mount(app)` and hands `.route_handlers` and `.lifespan` to
the REST app factory, so REST never imports this package.

DNS-rebinding protection stays on, by the server's one allow-list of hosts (`hosts`, the
same `entrypoints.hosts.HostPolicy` the HTTP edge judges every request by; by default the
loopback names on any port and the base URL's host): a `Host` outside it is refused, and an
`Origin` that is not one of those names. A public deployment sets its public base URL
(`SCHOOLDATA_BASE_URL`) and, if it is reached by other names, `SCHOOLDATA_ALLOWED_HOSTS`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, cast

from attrs import frozen
from litestar import asgi
from litestar.types import Receive, Scope, Send
from mcp.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from schooldata.application.service import Application
from schooldata.entrypoints.hosts import HostPolicy
from schooldata.entrypoints.mcp_server import endpoint
from schooldata.entrypoints.mcp_server.call_road import ToolCallRoad
from schooldata.entrypoints.mcp_server.server import build_server
from schooldata.entrypoints.mcp_server.tools import ToolCatalogue
from schooldata.ports.observer import CallObserver

MCP_PATH = "/mcp"
MAX_BODY_BYTES = 64 * 1024
# The SDK's own Host/Origin check is off: `guard.HostGuard` judges both, by the server's list.
NO_SDK_CHECK = TransportSecuritySettings(enable_dns_rebinding_protection=False)


@frozen(kw_only=True)
class McpMount:
    route_handlers: list[Any]
    lifespan: list[Callable[[Any], AbstractAsyncContextManager[None]]]
    # The endpoint by its exact path, for a host that answers it before its router (the
    # route handlers serve the same endpoint to everything else).
    endpoints: dict[str, Any]


class SessionSlot:
    """Runs the SDK's stateless JSON session manager for the length of one app lifespan.

    A manager can run only once, so each lifespan gets a new one (an app may be started again,
    as tests do)."""

    def __init__(
        self, server: Server[Any], *, security: TransportSecuritySettings, max_body_bytes: int
    ) -> None:
        self._server = server
        self._security = security
        self._max_body_bytes = max_body_bytes
        self._manager: StreamableHTTPSessionManager | None = None

    @property
    def manager(self) -> StreamableHTTPSessionManager | None:
        return self._manager

    @asynccontextmanager
    async def run(self, _app: Any = None) -> AsyncIterator[None]:
        manager = StreamableHTTPSessionManager(
            app=self._server,
            json_response=True,
            stateless=True,
            security_settings=self._security,
            max_request_body_size=self._max_body_bytes,
        )
        async with manager.run():
            self._manager = manager
            try:
                yield
            finally:
                self._manager = None


def build_mount(
    app: Application,
    *,
    base_url: str | None = None,
    hosts: HostPolicy | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    on_tool_call: Callable[[str, str], None] = lambda _tool, _outcome: None,
    observer: CallObserver | None = None,
) -> McpMount:
    """`on_tool_call(tool, outcome)`: see `ToolCallRoad`; `observer` hears what the pipeline
    meters and refuses (the composition root counts both)."""
    hosts = hosts or HostPolicy.configured(base_url=base_url)
    pipeline = app.pipeline if observer is None else app.pipeline.observed_by(observer)
    catalogue = ToolCatalogue()
    server = build_server(
        app, fallback_base_url=base_url or "http://localhost", catalogue=catalogue
    )
    road = ToolCallRoad(
        pipeline, server.server_info_stamp, on_tool_call=on_tool_call, catalogue=catalogue
    )
    slot = SessionSlot(server, security=NO_SDK_CHECK, max_body_bytes=max_body_bytes)
    handler = endpoint.McpEndpoint(
        pipeline,
        sessions=slot,
        hosts=hosts,
        base_url=base_url,
        max_body_bytes=max_body_bytes,
        road=road,
    )

    @asgi(MCP_PATH, copy_scope=True)
    async def mcp(scope: Scope, receive: Receive, send: Send) -> None:
        await handler(
            cast(endpoint.Scope, scope), cast(endpoint.Receive, receive), cast(endpoint.Send, send)
        )

    return McpMount(route_handlers=[mcp], lifespan=[slot.run], endpoints={MCP_PATH: handler})
