"""OpenTelemetry for the served app: the `otel` extra, imported only when `tracing` finds the
environment asking for traces.

- One tracer provider per worker process, made the global one, so the MCP SDK's own spans
  (one per JSON-RPC message, through opentelemetry-api) go where the app's go. Its resource
  comes from `OTEL_RESOURCE_ATTRIBUTES`/`OTEL_SERVICE_NAME` (`service.name` defaults to
  `schooldata`), its sampler from `OTEL_TRACES_SAMPLER`, its exporters from
  `OTEL_TRACES_EXPORTER` (default `otlp`: gRPC, or HTTP when `OTEL_EXPORTER_OTLP_PROTOCOL`
  or `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` is `http/protobuf`; also `console`), each batched;
  the exporters read their own `OTEL_EXPORTER_OTLP_*` settings (endpoint, headers, ...).
- A server span per HTTP request, MCP included (the ASGI instrumentation, outside the HTTP
  edge; an MCP call's carries the method and tool its `Mcp-Method`/`Mcp-Name` headers name,
  as `mcp.method.name`/`gen_ai.tool.name`), continuing the incoming `traceparent` (the propagators of `OTEL_PROPAGATORS`, W3C
  trace context and baggage by default), renamed after its route template once routed and
  carrying the request id the client gets (`schooldata.request_id`). URLs in
  `OTEL_PYTHON_ASGI_EXCLUDED_URLS` (or `OTEL_PYTHON_EXCLUDED_URLS`) get none. Keys never
  reach a span: key-shaped text in its attributes is masked as in the logs, and the
  credential headers are sanitized even when header capture is asked for.
- A child span per database statement (the SQLAlchemy engine's events) and Redis command,
  recorded only inside a trace: a worker's own background work (the snapshot's version check
  every second) starts none.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, MutableMapping, Sequence
from importlib.metadata import entry_points
from typing import Any

import anyio.to_thread
from opentelemetry import trace
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ParentBased

from schooldata.entrypoints.observability.logs import redact

log = logging.getLogger("schooldata.tracing")

SERVICE = "schooldata"
EXPORTER_GROUP = "opentelemetry_traces_exporter"
OTLP_BY_PROTOCOL = {"grpc": "otlp_proto_grpc", "http/protobuf": "otlp_proto_http"}
SQL_SCOPE = "opentelemetry.instrumentation.sqlalchemy"  # (the name its instrumentor uses)
CREDENTIAL_HEADERS = ("authorization", "x-api-key")
# The request headers that name an MCP call, and the attributes the MCP SDK gives its spans.
MCP_HEADERS = {b"mcp-method": "mcp.method.name", b"mcp-name": "gen_ai.tool.name"}
MAX_SHOWN = 128

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Any, Any], Awaitable[None]]
RequestIdOf = Callable[[Mapping[str, Any]], str]


class Tracing:
    """This process's tracing: the providers, and what the composition root instruments."""

    def __init__(self, processors: Sequence[SpanProcessor], *, resource: Resource) -> None:
        self.provider = TracerProvider(resource=resource)
        # Spans of statements and commands, recorded only under a span already sampled.
        self._children = TracerProvider(
            resource=resource, sampler=ParentBased(ALWAYS_OFF), shutdown_on_exit=False
        )
        for processor in processors:
            self.provider.add_span_processor(processor)
            self._children.add_span_processor(processor)
        trace.set_tracer_provider(self.provider)  # (the first of a process stays global)
        self._instrumented: list[Any] = []
        self._engines = False

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> Tracing:
        processors = [BatchSpanProcessor(exporter) for exporter in _exporters(environ)]
        return cls(processors, resource=service_resource())

    def asgi(self, app: ASGIApp, *, request_id: RequestIdOf | None = None) -> ASGIApp:
        """`app` inside a server span per HTTP request (see the module docstring);
        `request_id(scope)`: the id the app gave the request, once it answers."""
        from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware
        from opentelemetry.util.http import (
            OTEL_INSTRUMENTATION_HTTP_CAPTURE_HEADERS_SANITIZE_FIELDS,
            get_custom_headers,
            get_excluded_urls,
        )

        sanitized = get_custom_headers(OTEL_INSTRUMENTATION_HTTP_CAPTURE_HEADERS_SANITIZE_FIELDS)
        return OpenTelemetryMiddleware(
            _named(app, request_id),
            excluded_urls=get_excluded_urls("ASGI"),
            default_span_details=_span_details,
            server_request_hook=_redacted,
            tracer_provider=self.provider,
            # Credential headers are never recorded as sent, whatever capture is asked for.
            http_capture_headers_sanitize_fields=[*sanitized, *CREDENTIAL_HEADERS],
            exclude_spans=["receive", "send"],
        )

    def database(self, engine: Any) -> None:
        """A child span per statement this SQLAlchemy engine runs: the SQLAlchemy
        instrumentation's engine tracer, on this engine's events only. (Its instrumentor
        would also patch engine creation process-wide, and refuses SQLAlchemy 2.1, whose
        events are those it hooks: tests/integration/test_tracing.py reads the spans.)"""
        from opentelemetry import metrics
        from opentelemetry.instrumentation.sqlalchemy.engine import EngineTracer

        tracer = trace.get_tracer(SQL_SCOPE, tracer_provider=self._children)
        usage = metrics.get_meter(SQL_SCOPE).create_up_down_counter(
            "db.client.connections.usage", unit="connections"
        )
        EngineTracer(tracer, engine, usage)  # type: ignore[no-untyped-call]
        self._engines = True

    def redis(self) -> None:
        """A child span per Redis command."""
        from opentelemetry.instrumentation.redis import RedisInstrumentor

        instrumentor = RedisInstrumentor()
        instrumentor.instrument(tracer_provider=self._children)
        self._instrumented.append(instrumentor)

    def lifespan(self, _app: Any = None) -> contextlib.AbstractAsyncContextManager[None]:
        """Sends what is still batched when the app stops (a worker leaving)."""
        return self._flushed_at_shutdown()

    @contextlib.asynccontextmanager
    async def _flushed_at_shutdown(self) -> AsyncIterator[None]:
        try:
            yield
        finally:  # (an exporter may wait on the network: not on the loop)
            await anyio.to_thread.run_sync(self.provider.force_flush)

    def close(self) -> None:
        """Undo the instrumentations and stop exporting (tests; a process exits anyway)."""
        for instrumentor in self._instrumented:
            instrumentor.uninstrument()
        self._instrumented.clear()
        if self._engines:
            from opentelemetry.instrumentation.sqlalchemy.engine import EngineTracer

            EngineTracer.remove_all_event_listeners()  # type: ignore[no-untyped-call]
        self.provider.shutdown()


def service_resource() -> Resource:
    """The process's resource from the environment, named `schooldata` unless it says."""
    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: SERVICE}))
    return resource


def _exporters(environ: Mapping[str, str]) -> list[SpanExporter]:
    names = [n.strip() for n in environ.get("OTEL_TRACES_EXPORTER", "otlp").split(",")]
    protocol = (
        environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        or environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
        or "grpc"
    ).strip()
    exporters: list[SpanExporter] = []
    for name in names:
        if name in ("", "none"):
            continue
        if name == "otlp":
            name = OTLP_BY_PROTOCOL.get(protocol, "")
        found = entry_points(group=EXPORTER_GROUP, name=name)
        if not found:
            log.warning(
                "no trace exporter %r (OTEL_TRACES_EXPORTER, protocol %r): its spans are dropped",
                name,
                protocol,
            )
            continue
        exporters.append(next(iter(found)).load()())
    return exporters


def _redacted(span: Any, _scope: Scope) -> None:
    """The logs' safety net on the request's span: a key in the URL (a refused query-string
    key, a key pasted into a path) is masked in every attribute, as in an access-log line."""
    for name, value in dict(getattr(span, "attributes", None) or {}).items():
        if isinstance(value, str) and (shown := redact(value)) != value:
            span.set_attribute(name, shown)


def _span_details(scope: Scope) -> tuple[str, dict[str, Any]]:
    """The method alone until the route is known (a path would name one span per URL)."""
    return str(scope.get("method") or "HTTP"), {}


def _named(app: ASGIApp, request_id: RequestIdOf | None) -> ASGIApp:
    """`app` with its server span named after the route as the answer starts (routing is
    done by then; the span ends with the answer's last byte)."""

    async def named(scope: Scope, receive: Any, send: Any) -> None:
        span = trace.get_current_span()
        if scope.get("type") != "http" or not span.is_recording():
            await app(scope, receive, send)
            return
        method = scope.get("method")
        for name, value in scope.get("headers", ()):
            attribute = MCP_HEADERS.get(bytes(name).lower())
            if attribute is not None:  # the MCP call this request is (2026-07-28 headers)
                span.set_attribute(attribute, bytes(value)[:MAX_SHOWN].decode("latin-1"))

        async def naming_send(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                route = scope.get("path_template")
                if route:
                    span.update_name(f"{method} {route}")
                    span.set_attribute("http.route", str(route))
                if request_id is not None and (shown := request_id(scope)):
                    span.set_attribute("schooldata.request_id", shown)
            await send(message)

        await app(scope, receive, naming_send)

    return named
