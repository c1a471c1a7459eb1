"""The served ASGI app: REST and MCP on one server, traced when asked, quota blocks given back
at shutdown; and `asgi_from_environment`, the factory every server worker calls
(`schooldata.bootstrap:asgi_from_environment`). Apart from `server.py` because tests and any
ASGI server build the app without `serve`."""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import anyio.to_thread

from schooldata.application.service import Application
from schooldata.bootstrap.production import assemble
from schooldata.settings import Settings, load_settings

if TYPE_CHECKING:
    from schooldata.entrypoints.observability.otel import Tracing


def build_asgi(app: Application, settings: Settings, *, tracing: Tracing | None = None) -> Any:
    """REST and MCP on one server: the composition root mounts MCP into the REST app.
    With `tracing` (see `observability.tracing`) every HTTP request, database statement and
    Redis command is traced; without it nothing of OpenTelemetry is wrapped around anything."""
    from schooldata.entrypoints.hosts import HostPolicy
    from schooldata.entrypoints.mcp_server.mount import build_mount
    from schooldata.entrypoints.observability.metrics import Metrics
    from schooldata.entrypoints.rest.app import create_app

    metrics = Metrics()
    # One allow-list of hosts for every route: the edge judges each request's Host by it, and
    # the MCP endpoint each Origin.
    hosts = HostPolicy.configured(
        base_url=settings.base_url,
        allowed_hosts=settings.allowed_hosts,
        served_host=settings.host,
        served_port=settings.port,
    )
    mount = build_mount(
        app,
        base_url=settings.base_url,
        hosts=hosts,
        max_body_bytes=settings.max_body_bytes,
        on_tool_call=lambda tool, outcome: metrics.mcp_call(tool, outcome=outcome),
        observer=metrics,
    )
    lifespan = [*mount.lifespan, _quota_given_back_at_shutdown(app)]
    if tracing is not None:
        lifespan.append(tracing.lifespan)
    asgi = create_app(
        app,
        base_url=settings.base_url,
        extra_route_handlers=mount.route_handlers,
        mounted=mount.endpoints,
        lifespan=lifespan,
        max_body_bytes=settings.max_body_bytes,
        metrics=metrics,
        cors_origins=settings.cors_origins,
        allowed_hosts=hosts,
        body_timeout_seconds=settings.body_timeout_seconds,
    )
    if tracing is None:
        return asgi
    return _traced(asgi, app, settings, tracing)


def _traced(asgi: Any, app: Application, settings: Settings, tracing: Tracing) -> Any:
    from schooldata.adapters.sql.store import SqlStore
    from schooldata.entrypoints.http.request import request_id_in

    store = app.ports.store
    if isinstance(store, SqlStore):  # (the composition root's own store: memory has no SQL)
        tracing.database(store.engine)
    if settings.redis_url:
        tracing.redis()
    return tracing.asgi(asgi, request_id=request_id_in)


def _quota_given_back_at_shutdown(app: Application) -> Any:
    """A lifespan that, as the server stops, gives back the quota uses this process reserved
    and did not answer (SQLite reserves them in blocks). Server workers leave through
    lifespan shutdown, not interpreter exit, so `atexit` alone would not run there."""

    @contextlib.asynccontextmanager
    async def lifespan(_server: Any) -> AsyncIterator[None]:
        try:
            yield
        finally:
            with contextlib.suppress(Exception):  # the database may be gone: kept then
                await anyio.to_thread.run_sync(app.ports.quota.give_back)

    return lifespan


# A worker collects its young objects every 10,000 net allocations, not CPython's 700: its
# long-lived objects (the per-school wire shapes, the index's memos; the snapshot itself is
# frozen out of the collector's way) are then walked by a full collection ~14 times less
# often, each ~10-30 ms at national scale (docs/performance.md).
WORKER_GC_THRESHOLDS = (10_000, 10, 10)
# Set by `schooldata serve` for its workers (granian's, listening on the settings' port).
SERVED_VARIABLE = "SCHOOLDATA_SERVED"


def asgi_from_environment() -> Any:
    """Factory for ASGI servers (`granian --interface asgi --factory ...`, `uvicorn --factory ...`);
    every worker process builds its own application from the same environment, without
    touching the database (see `assemble`: migrate first, `schooldata db upgrade`), and its
    own tracing when the OTEL_* variables ask for it (after the fork: exporters run threads)."""
    from schooldata.adapters.server import raise_open_file_limit, time_out_unread_answers
    from schooldata.entrypoints.observability.logs import configure_logging
    from schooldata.entrypoints.observability.tracing import start_tracing

    settings = load_settings()
    configure_logging(settings.log_format)
    raise_open_file_limit()
    if os.environ.get(SERVED_VARIABLE):  # a worker of `schooldata serve`: its listener
        time_out_unread_answers(settings.port, settings.answer_timeout_seconds)
    gc.set_threshold(*WORKER_GC_THRESHOLDS)
    return build_asgi(assemble(settings), settings, tracing=start_tracing(os.environ))
