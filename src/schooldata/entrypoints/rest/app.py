"""The Litestar app factory: routes, error handlers and the ASGI layers around them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from litestar import Litestar, Request, Response, get
from litestar.exceptions import HTTPException

from schooldata.application.service import Application
from schooldata.entrypoints.rest import operations
from schooldata.entrypoints.rest.errors import (
    carries_credentials,
    exception_handlers,
    http_exception_response,
)
from schooldata.entrypoints.rest.observability import (
    Metrics,
    ObservabilityLayer,
    instrument,
)
from schooldata.entrypoints.rest.openapi import build_document
from schooldata.entrypoints.rest.replay import (
    DEFAULT_MAX_BYTES,
    KeyedReplayLayer,
    ReplayLayer,
    VersionWatch,
)
from schooldata.entrypoints.rest.responses import NO_STORE
from schooldata.entrypoints.rest.routes import Routes
from schooldata.entrypoints.rest.transport import (
    EXTRA_HEADERS_KEY,
    ASGIApp,
    CachingLayer,
    CompressionLayer,
    CorsLayer,
    TransportLayer,
    cors_policy,
)

OPENAPI_PATH = operations.OPENAPI_PATH
PUBLIC_MAX_AGE = 300
PUBLIC_ROUTES = ("/api/v1/search", "/api/get-school")


# Commercial routes that share the public record's path shape (`/api/v1/schools/{urn}`).
COMMERCIAL_SCHOOL_PATHS = frozenset(
    {"/api/v1/schools/search", "/api/v1/schools/nearby", "/api/v1/schools/compare"}
)


def is_public_route(path: str) -> bool:
    if path in PUBLIC_ROUTES:
        return True
    return (
        path.startswith("/api/v1/schools/")
        and path.count("/") == 4
        and path not in COMMERCIAL_SCHOOL_PATHS
    )


def has_public_errors(path: str) -> bool:
    """Anonymous requests to these paths get the public error shape from the outer layers."""
    return is_public_route(path) or operations.is_operation_path(path)


def is_public_only(path: str) -> bool:
    """Routes whose answer is public whatever credentials the request carries."""
    return path in PUBLIC_ROUTES or operations.is_operation_path(path) or path == OPENAPI_PATH


def is_cross_origin_readable(path: str) -> bool:
    """The public GETs browsers of other origins may read (anonymous answers only)."""
    return is_public_route(path) or path == OPENAPI_PATH


def is_commercial_route(path: str) -> bool:
    """Paths of the commercial tier: its refusals take the commercial error shape even for an
    anonymous caller (the public record's path is public until a key says otherwise)."""
    return path.startswith("/api/v1/") and not is_public_only(path) and not is_public_route(path)


def is_keyed_replay_candidate(path: str) -> bool:
    """Commercial GET routes (public-only ones answer keyed callers publicly, unmetered)."""
    return path.startswith("/api/v1/") and not is_public_only(path)


def cache_max_age(path: str) -> int | None:
    """Anonymous GET answers that get validators and `Cache-Control: public`."""
    if is_public_route(path) or path == OPENAPI_PATH:
        return PUBLIC_MAX_AGE
    return operations.cache_max_age(path)


def create_litestar(
    app: Application,
    *,
    base_url: str | None = None,
    extra_route_handlers: Sequence[Any] = (),
    lifespan: Sequence[Any] = (),
    max_body_bytes: int = 64 * 1024,
    metrics: Metrics | None = None,
) -> Litestar:
    """`extra_route_handlers`/`lifespan` let the composition root mount other faces (MCP)
    on the same server without REST importing them."""
    document = build_document()
    metrics = metrics or Metrics()
    routes = Routes(app.pipeline.observed_by(metrics), base_url=base_url)

    @get(OPENAPI_PATH, sync_to_thread=True, include_in_schema=False)
    def openapi_document(request: Request[Any, Any, Any]) -> Response[Any]:
        # Public, but credentials sent with it are still checked (a bad key gets 401).
        identified = routes.identified(request)
        if isinstance(identified, Response):
            return identified
        return Response(document)

    def check_options(request: Request[Any, Any, Any]) -> Response[Any] | None:
        """Litestar's own OPTIONS answer, for a request that carries credentials: they are
        authenticated (a bad key gets 401) and a known caller's answer carries its meter
        readings (through the scope: the transport layer adds them), metering nothing."""
        if request.method != "OPTIONS" or not carries_credentials(request):
            return None
        identified = routes.identified(request)
        if isinstance(identified, Response):
            return identified
        if identified is not None:
            extra = [
                (k.lower().encode(), v.encode()) for k, v in routes.readings(identified).items()
            ]
            request.scope[EXTRA_HEADERS_KEY] = extra  # type: ignore[literal-required]
        return None

    def refusal(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
        """Litestar's own refusals (no such endpoint, method or body size), in the commercial
        shape on a commercial route. Credentials are still authenticated (DECISIONS: any
        request that carries them is): a bad key gets 401; a known caller's refusal carries
        its meter readings (nothing is metered)."""
        caller = None
        if carries_credentials(request):
            identified = routes.identified(request)
            if isinstance(identified, Response):
                return identified
            caller = identified
        commercial = is_commercial_route(request.url.path)
        response = http_exception_response(request, exc, commercial_route=commercial)
        if caller is not None:
            response.headers.update({**routes.readings(caller), **NO_STORE})
        return response

    return Litestar(
        route_handlers=[
            *routes.handlers(),
            openapi_document,
            *operations.operations_handlers(app, metrics),
            *extra_route_handlers,
        ],
        lifespan=list(lifespan),
        before_request=check_options,
        request_max_body_size=max_body_bytes,
        exception_handlers=exception_handlers(refusal),
        openapi_config=None,
        # The process's logging is configured once (observability.logging_config), not here.
        logging_config=None,
        debug=False,
    )


def create_app(
    app: Application,
    *,
    base_url: str | None = None,
    extra_route_handlers: Sequence[Any] = (),
    lifespan: Sequence[Any] = (),
    max_body_bytes: int = 64 * 1024,
    metrics: Metrics | None = None,
    cors_origins: Sequence[str] = (),
    replay_bytes: int = DEFAULT_MAX_BYTES,
    replay_keyed: bool = False,
) -> ASGIApp:
    """The served ASGI application: Litestar inside the HTTP layers, outermost first:
    access log and metrics, request id and query-key refusal, replay of anonymous answers
    already computed for the same data, gzip, HTTP caching, CORS.

    `metrics` is shared with other faces when the composition root passes one;
    `cors_origins` is `settings.cors_origins` (empty: any origin, public GETs only).
    `replay_bytes` bounds each replay store (0: no replay); `replay_keyed` also replays
    commercial GETs (metered each time), for key stores that answer in microseconds (the
    composition root enables it for SQLite without Redis; see replay.KeyedReplayLayer)."""
    metrics = metrics or Metrics()
    litestar = create_litestar(
        app,
        base_url=base_url,
        extra_route_handlers=extra_route_handlers,
        lifespan=lifespan,
        max_body_bytes=max_body_bytes,
        metrics=metrics,
    )
    routed: ASGIApp = CorsLayer(
        litestar,  # type: ignore[arg-type]
        origins=cors_policy(cors_origins),
        is_eligible=is_cross_origin_readable,
    )
    routed = CachingLayer(routed, max_age_for=cache_max_age)
    watch = VersionWatch(app.ports.schools.version)
    if replay_keyed:
        routed = KeyedReplayLayer(
            routed,
            application=instrument(app, metrics, face="rest"),
            watch=watch,
            is_candidate=is_keyed_replay_candidate,
            max_bytes=replay_bytes,
        )
    routed = CompressionLayer(routed)
    routed = ReplayLayer(
        routed,
        version=watch,
        is_replayable_get=is_public_route,
        max_bytes=replay_bytes,
        on_mcp_replay=metrics.mcp_call,
    )
    transport = TransportLayer(
        routed, new_request_id=app.ids.request_id, is_public_route=has_public_errors
    )
    return ObservabilityLayer(
        transport,
        metrics=metrics,
        is_public_route=has_public_errors,
        is_public_only=is_public_only,
    )
