"""The Litestar app factory: routes, error handlers and the ASGI layers around them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from litestar import Litestar, Request, Response, get
from litestar.params import FromPath

from schooldata.application.service import Application
from schooldata.domain.errors import DataUnavailable
from schooldata.domain.keys import AuthenticationFailed
from schooldata.entrypoints.rest import operations
from schooldata.entrypoints.rest.commercial import commercial_handlers, profile_response
from schooldata.entrypoints.rest.errors import exception_handlers
from schooldata.entrypoints.rest.observability import (
    Metrics,
    ObservabilityLayer,
    ObservedGate,
    instrument,
)
from schooldata.entrypoints.rest.openapi import build_document
from schooldata.entrypoints.rest.public import (
    PUBLIC_ROUTES,
    keyed_caller_failure,
    public_handlers,
    public_school_response,
)
from schooldata.entrypoints.rest.replay import (
    DEFAULT_MAX_BYTES,
    KeyedReplayLayer,
    ReplayLayer,
    VersionWatch,
)
from schooldata.entrypoints.rest.transport import (
    ASGIApp,
    CachingLayer,
    CompressionLayer,
    CorsLayer,
    TransportLayer,
    cors_policy,
)

OPENAPI_PATH = operations.OPENAPI_PATH
PUBLIC_MAX_AGE = 300


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


# Its items carry each source's last check, which `schooldata refresh` moves without moving
# the data version (a file found unchanged changes no data): never replayed.
NOT_REPLAYED = frozenset({"/api/v1/data-freshness"})


def is_keyed_replay_candidate(path: str) -> bool:
    """Commercial GET routes (public-only ones answer keyed callers publicly, unmetered),
    but for the freshness list."""
    return path.startswith("/api/v1/") and not is_public_only(path) and path not in NOT_REPLAYED


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
    app = instrument(app, metrics, face="rest")
    gate = ObservedGate(app, base_url=base_url)

    @get(OPENAPI_PATH, sync_to_thread=True, include_in_schema=False)
    def openapi_document(request: Request[Any, Any, Any]) -> Response[Any]:
        # Public, but credentials sent with it are still checked (a bad key gets 401).
        if (failure := keyed_caller_failure(gate, request)) is not None:
            return failure
        return Response(document)

    @get("/api/v1/schools/{urn:str}", sync_to_thread=True, name="getSchool")
    def get_school(request: Request[Any, Any, Any], urn: FromPath[str]) -> Response[Any]:
        # One path, two tiers: the credentials choose, once, here.
        try:
            caller = gate.authenticate(request)
        except (AuthenticationFailed, DataUnavailable) as error:
            return gate.auth_failure(request, error)
        if caller is None:
            return public_school_response(app, request, urn, base_url)
        return profile_response(gate, request, urn, caller)

    return Litestar(
        route_handlers=[
            *public_handlers(gate, base_url=base_url),
            *commercial_handlers(gate),
            get_school,
            openapi_document,
            *operations.operations_handlers(app, metrics),
            *extra_route_handlers,
        ],
        lifespan=list(lifespan),
        before_request=gate.check_options,
        request_max_body_size=max_body_bytes,
        exception_handlers=exception_handlers(
            lambda request, exc: gate.refusal(
                request, exc, commercial_route=is_commercial_route(request.url.path)
            )
        ),
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
