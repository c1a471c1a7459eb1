"""Traces with the otel extra, read back from the SDK's in-memory exporter: the served app on a
SQLite store, as `build_asgi` wires it for a worker whose environment asks for traces.

- an HTTP request with a `traceparent` is a server span of that trace, its parent the caller's
  span, named after its route template; its database statements are spans under it;
- an MCP call's HTTP span names its method and tool, and the MCP SDK's own spans are under
  the request's;
- a worker's background statements (the snapshot's version checks) start no trace;
- Redis commands are spans under their request (with Redis);
- without OTEL_* settings nothing of the SDK is imported and nothing wraps the app.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")

import redis
from litestar.testing import TestClient
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind
from tests.conftest import services_required
from tests.e2e.test_mcp_support import McpHttp
from tests.reliability.support import KEY_SECRET, load_fixture, sql_store
from tests.support.http import bearer

from schooldata.bootstrap import bootstrap, build_asgi
from schooldata.entrypoints import observability
from schooldata.entrypoints.observability import otel
from schooldata.entrypoints.observability.otel import Tracing, service_resource
from schooldata.entrypoints.observability.tracing import requested, start_tracing
from schooldata.settings import Settings, load_settings

pytestmark = pytest.mark.integration

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_SPAN = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE}-{CALLER_SPAN}-01"
REDIS_URL = os.environ.get("SCHOOLDATA_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
ASGI_SCOPE = "opentelemetry.instrumentation.asgi"
SQL_SCOPE = "opentelemetry.instrumentation.sqlalchemy"
REDIS_SCOPE = "opentelemetry.instrumentation.redis"


@pytest.fixture(scope="module")
def traced() -> Iterator[tuple[Tracing, InMemorySpanExporter]]:
    """One tracing per process, as a worker has (the first is the global provider)."""
    exporter = InMemorySpanExporter()
    tracing = Tracing([SimpleSpanProcessor(exporter)], resource=service_resource())
    yield tracing, exporter
    tracing.close()


@pytest.fixture
def exporter(traced: tuple[Tracing, InMemorySpanExporter]) -> InMemorySpanExporter:
    traced[1].clear()
    return traced[1]


def settings_for(directory: Path, **extra: str) -> Settings:
    url = f"sqlite:///{directory / 'data.sqlite3'}"
    load_fixture(sql_store(url))
    return load_settings(
        {},
        database_url=url,
        key_secret=KEY_SECRET,
        home=str(directory / "home"),
        base_url="http://testserver.local",  # the test client's host, as a deployment sets it
        **extra,
    )


@pytest.fixture(scope="module")
def served(
    traced: tuple[Tracing, InMemorySpanExporter], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[TestClient, str]]:  # type: ignore[type-arg]
    settings = settings_for(tmp_path_factory.mktemp("tracing"))
    app = bootstrap(settings)
    key = app.keys.create_key(organisation="tracing", name="t", plan="enterprise").key
    asgi = build_asgi(app, settings, tracing=traced[0])
    with TestClient(app=asgi, base_url="http://testserver.local") as client:
        yield client, key


def of_trace(spans: Sequence[ReadableSpan], trace_id: str = TRACE) -> list[ReadableSpan]:
    return [s for s in spans if s.context is not None and s.context.trace_id == int(trace_id, 16)]


def scope_of(span: ReadableSpan) -> str:
    return span.instrumentation_scope.name if span.instrumentation_scope else ""


def ancestors(span: ReadableSpan, spans: Sequence[ReadableSpan]) -> list[ReadableSpan]:
    by_id = {s.context.span_id: s for s in spans if s.context is not None}
    chain = []
    parent = span.parent
    while parent is not None and parent.span_id in by_id:
        chain.append(by_id[parent.span_id])
        parent = chain[-1].parent
    return chain


def the_server_span(spans: Sequence[ReadableSpan]) -> ReadableSpan:
    servers = [s for s in spans if s.kind is SpanKind.SERVER and scope_of(s) == ASGI_SCOPE]
    assert len(servers) == 1, [s.name for s in spans]
    return servers[0]


def test_a_request_continues_the_caller_s_trace_with_its_queries_beneath(
    served: tuple[TestClient, str],  # type: ignore[type-arg]
    exporter: InMemorySpanExporter,
) -> None:
    client, key = served
    response = client.get(
        "/api/v1/schools/100001/results", headers={"traceparent": TRACEPARENT, **bearer(key)}
    )
    assert response.status_code == 200, response.text
    spans = of_trace(exporter.get_finished_spans())
    server = the_server_span(spans)
    assert server.parent is not None and server.parent.span_id == int(CALLER_SPAN, 16)
    assert server.parent.is_remote
    assert server.name == "GET /api/v1/schools/{urn}/results"
    assert server.attributes is not None
    assert server.attributes["http.route"] == "/api/v1/schools/{urn}/results"
    assert server.attributes["schooldata.request_id"] == response.headers["x-request-id"]
    queries = [s for s in spans if scope_of(s) == SQL_SCOPE and s.kind is SpanKind.CLIENT]
    assert queries, "the results are read from SQLite: at least that statement is a span"
    for query in queries:
        assert server in ancestors(query, spans), query.name


def test_an_mcp_call_is_a_server_span_naming_its_method_and_tool(
    served: tuple[TestClient, str],  # type: ignore[type-arg]
    exporter: InMemorySpanExporter,
) -> None:
    client, _ = served
    response = McpHttp(client).modern(
        "tools/call",
        {"name": "get_school", "arguments": {"urn": "100001"}},
        traceparent=TRACEPARENT,
    )
    assert response.status_code == 200, response.text
    spans = of_trace(exporter.get_finished_spans())
    server = the_server_span(spans)
    assert server.name == "POST /mcp"
    assert server.parent is not None and server.parent.span_id == int(CALLER_SPAN, 16)
    assert server.attributes is not None
    assert server.attributes["mcp.method.name"] == "tools/call"
    assert server.attributes["gen_ai.tool.name"] == "get_school"
    # (Whichever road answered it: the MCP SDK's own span of the call is under it when the
    # SDK did.)
    for call in (s for s in spans if s.name == "tools/call get_school"):
        assert server in ancestors(call, spans)


def test_the_mcp_sdk_s_own_spans_go_to_the_configured_provider(
    served: tuple[TestClient, str],  # type: ignore[type-arg]
    exporter: InMemorySpanExporter,
) -> None:
    client, _ = served
    response = McpHttp(client).modern("tools/list", traceparent=TRACEPARENT)
    assert response.status_code == 200, response.text
    spans = of_trace(exporter.get_finished_spans())
    server = the_server_span(spans)
    listed = [s for s in spans if scope_of(s) == "mcp-python-sdk"]
    assert [s.name for s in listed] == ["tools/list"], [(s.name, scope_of(s)) for s in spans]
    assert server in ancestors(listed[0], spans)


def test_a_request_without_a_traceparent_starts_its_own_trace(
    served: tuple[TestClient, str],  # type: ignore[type-arg]
    exporter: InMemorySpanExporter,
) -> None:
    client, _ = served
    assert client.get("/api/v1/search?query=st").status_code == 200
    server = the_server_span(exporter.get_finished_spans())
    assert server.parent is None
    assert server.name == "GET /api/v1/search"


def test_a_worker_s_background_statements_start_no_trace(
    served: tuple[TestClient, str],  # type: ignore[type-arg]
    exporter: InMemorySpanExporter,
) -> None:
    client, _ = served
    assert client.get("/health").status_code == 200
    time.sleep(2.5)  # the snapshot asks the store for its version every second
    spans = exporter.get_finished_spans()
    assert [s for s in spans if scope_of(s) == SQL_SCOPE and s.parent is None] == []


def test_redis_commands_are_spans_of_their_request(
    traced: tuple[Tracing, InMemorySpanExporter],
    exporter: InMemorySpanExporter,
    tmp_path: Path,
) -> None:
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=0.5).ping()
    except redis.RedisError:
        if services_required():
            pytest.fail(f"Redis is required but not reachable at {REDIS_URL}")
        pytest.skip(f"Redis not reachable at {REDIS_URL}")
    settings = settings_for(tmp_path, redis_url=REDIS_URL)
    app = bootstrap(settings)
    key = app.keys.create_key(
        organisation=f"tracing-{uuid.uuid4().hex}", name="t", plan="enterprise"
    )
    asgi = build_asgi(app, settings, tracing=traced[0])
    with TestClient(app=asgi, base_url="http://testserver.local") as client:
        headers = {"traceparent": TRACEPARENT, **bearer(key.key)}
        assert client.get("/api/v1/meta", headers=headers).status_code == 200
    spans = of_trace(exporter.get_finished_spans())
    server = the_server_span(spans)
    commands = [s for s in spans if scope_of(s) == REDIS_SCOPE]
    assert commands, "the key's rate window is counted in Redis"
    for command in commands:
        assert server in ancestors(command, spans), command.name


def every_value(spans: Sequence[ReadableSpan]) -> str:
    """Everything the spans would export, as text: names, attributes, events."""
    parts: list[str] = []
    for span in spans:
        parts.append(span.name)
        parts.extend(f"{k}={v}" for k, v in (span.attributes or {}).items())
        for event in span.events:
            parts.extend(f"{k}={v}" for k, v in (event.attributes or {}).items())
    return "\n".join(parts)


def test_no_key_reaches_a_span_even_with_every_header_captured(
    traced: tuple[Tracing, InMemorySpanExporter],
    exporter: InMemorySpanExporter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    capture = "authorization,x-api-key,user-agent"
    monkeypatch.setenv("OTEL_INSTRUMENTATION_HTTP_CAPTURE_HEADERS_SERVER_REQUEST", capture)
    settings = settings_for(tmp_path)
    app = bootstrap(settings)
    key = app.keys.create_key(organisation="tracing-keys", name="t", plan="enterprise").key
    asgi = build_asgi(app, settings, tracing=traced[0])
    with TestClient(app=asgi, base_url="http://testserver.local") as client:
        for headers in (bearer(key), {"X-API-Key": key}):
            answered = client.get("/api/v1/meta", headers={"traceparent": TRACEPARENT, **headers})
            assert answered.status_code == 200
        refused = client.get(
            f"/api/v1/search?query=st&api_key={key}", headers={"traceparent": TRACEPARENT}
        )
        assert refused.status_code == 400
        pasted = client.get(f"/api/v1/schools/{key}", headers={"traceparent": TRACEPARENT})
        assert pasted.status_code in (400, 404)
    spans = of_trace(exporter.get_finished_spans())
    assert len([s for s in spans if scope_of(s) == ASGI_SCOPE]) == 4
    text = every_value(spans)
    assert "testclient" in text.lower(), "headers were captured"
    assert key[len("svc_live_") + 4 :] not in text


# ---- asked for, or not -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("environ", "wanted"),
    [
        ({}, False),
        ({"OTEL_SERVICE_NAME": "x", "OTEL_PROPAGATORS": "tracecontext"}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317"}, True),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, True),
        ({"OTEL_TRACES_EXPORTER": "console"}, True),
        ({"OTEL_TRACES_EXPORTER": "otlp,console"}, True),
        ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c"}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_SDK_DISABLED": "true"}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": " "}, False),
    ],
)
def test_traces_are_on_only_when_the_environment_says_where_they_go(
    environ: dict[str, str], wanted: bool
) -> None:
    assert requested(environ) is wanted


@pytest.mark.parametrize(
    ("environ", "exporter"),
    [
        ({}, "opentelemetry.exporter.otlp.proto.grpc.trace_exporter.OTLPSpanExporter"),
        (
            {"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
            "opentelemetry.exporter.otlp.proto.http.trace_exporter.OTLPSpanExporter",
        ),
        (
            {"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"},
            "opentelemetry.exporter.otlp.proto.http.trace_exporter.OTLPSpanExporter",
        ),
        ({"OTEL_TRACES_EXPORTER": "console"}, "opentelemetry.sdk.trace.export.ConsoleSpanExporter"),
    ],
)
def test_the_exporter_is_the_one_the_environment_names(
    environ: dict[str, str], exporter: str
) -> None:
    (chosen,) = otel._exporters(environ)
    assert f"{type(chosen).__module__}.{type(chosen).__name__}" == exporter


def test_an_unknown_exporter_is_named_in_a_warning_and_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="schooldata.tracing"):
        assert otel._exporters({"OTEL_TRACES_EXPORTER": "zipkin_nowhere"}) == []
    assert "zipkin_nowhere" in caplog.text


def test_traces_asked_for_without_the_extra_are_a_warning_not_a_failure(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # As if the extra's packages were missing: importing the module that needs them fails.
    monkeypatch.setitem(sys.modules, "schooldata.entrypoints.observability.otel", None)
    monkeypatch.delattr(observability, "otel")
    with caplog.at_level(logging.WARNING, logger="schooldata.tracing"):
        assert start_tracing({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317"}) is None
    assert "schooldata[otel]" in caplog.text


OFF = """
import sys
from schooldata.bootstrap import asgi_from_environment
from schooldata.entrypoints.rest.edge import HttpEdge
app = asgi_from_environment()
assert type(app) is HttpEdge, type(app)
# (Litestar imports its own OpenTelemetry plugin, and so opentelemetry-instrumentation-asgi,
# whenever it is installed: a module, not a wrapper. The SDK, the exporters and the database
# and Redis instrumentations are ours to load.)
OURS = ("opentelemetry.sdk", "opentelemetry.exporter", "opentelemetry.instrumentation.sqlalchemy")
loaded = [m for m in sys.modules if m.startswith((*OURS, "opentelemetry.instrumentation.redis"))]
print(sorted(loaded))
"""


def worker(tmp_path: Path, code: str, **otel: str) -> str:
    """What `code` prints in a process with a worker's environment (and `otel`, nothing
    else of OTEL_*)."""
    settings = settings_for(tmp_path)
    env: dict[str, Any] = {
        k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "SCHOOLDATA_"))
    }
    env.update(
        SCHOOLDATA_DATABASE_URL=settings.effective_database_url,
        SCHOOLDATA_KEY_SECRET=KEY_SECRET,
        SCHOOLDATA_HOME=str(tmp_path / "home"),
        **otel,
    )
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_without_otel_settings_nothing_of_the_sdk_is_loaded_or_wrapped(tmp_path: Path) -> None:
    assert worker(tmp_path, OFF).strip() == "[]"


ON = """
from opentelemetry import trace
from schooldata.bootstrap import asgi_from_environment
app = asgi_from_environment()
print(type(app).__name__, type(trace.get_tracer_provider()).__module__)
"""


def test_a_worker_whose_environment_asks_for_traces_serves_them(tmp_path: Path) -> None:
    printed = worker(tmp_path, ON, OTEL_TRACES_EXPORTER="console")
    assert printed.split() == ["OpenTelemetryMiddleware", "opentelemetry.sdk.trace"]
