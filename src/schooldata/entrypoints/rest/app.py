"""The Litestar app factory: the registry's routes, the operational pages, error handlers, and
the one HTTP edge layer around them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import anyio.to_thread
import msgspec
from litestar import Litestar, MediaType, Request, Response, get
from litestar.exceptions import HTTPException, NotFoundException
from litestar.response.base import ASGIResponse

from schooldata.application.pipeline import Refused
from schooldata.application.service import Application
from schooldata.entrypoints.hosts import HostPolicy
from schooldata.entrypoints.observability.metrics import Metrics
from schooldata.entrypoints.rest import operations
from schooldata.entrypoints.rest.cors import Cors, cors_policy
from schooldata.entrypoints.rest.dispatch import RegistryGets
from schooldata.entrypoints.rest.edge import ASGIApp, HttpEdge, labels_synthetic_data
from schooldata.entrypoints.rest.errors import (
    carries_credentials,
    exception_handlers,
    http_exception_response,
    request_id_of,
)
from schooldata.entrypoints.rest.openapi import build_document
from schooldata.entrypoints.rest.paths import OPENAPI_PATH, is_commercial_route
from schooldata.entrypoints.rest.responses import NO_STORE, refusal_as_response
from schooldata.entrypoints.rest.route_handlers import route_handlers
from schooldata.entrypoints.rest.routes import Routes, scope_of
from schooldata.entrypoints.rest.transport import EXTRA_HEADERS_KEY


def create_litestar(
    app: Application,
    *,
    base_url: str | None = None,
    extra_route_handlers: Sequence[Any] = (),
    lifespan: Sequence[Any] = (),
    max_body_bytes: int = 64 * 1024,
    metrics: Metrics | None = None,
    routes: Routes | None = None,
) -> Litestar:
    """`extra_route_handlers`/`lifespan` let the composition root mount other faces (MCP)
    on the same server without REST importing them."""
    document = msgspec.json.encode(build_document(plans=app.plans.all()))
    metrics = metrics or Metrics()
    routes = routes or Routes(app.pipeline.observed_by(metrics), base_url=base_url)

    @get(OPENAPI_PATH, include_in_schema=False)
    async def openapi_document(request: Request[Any, Any, Any]) -> ASGIResponse:
        # Public, but credentials sent with it are still checked (a bad key gets 401).
        if carries_credentials(request):
            try:
                await anyio.to_thread.run_sync(routes.identify, scope_of(request))
            except Refused as refused:
                return routes.refused(scope_of(request), refused, {}).asgi()
        return ASGIResponse(body=document, media_type=MediaType.JSON)

    async def check_options(request: Request[Any, Any, Any]) -> Response[bytes] | None:
        """Litestar's own OPTIONS answer, for a request that carries credentials: they are
        authenticated (a bad key gets 401) and a known caller's answer carries its meter
        readings (through the scope: the edge adds them), metering nothing."""
        if request.method != "OPTIONS" or not carries_credentials(request):
            return None
        try:
            caller = await anyio.to_thread.run_sync(routes.identify, scope_of(request))
        except Refused as refused:  # (a before-request hook answers with a Response)
            routes.mark(scope_of(request), refused)
            return refusal_as_response(refused, request_id=request_id_of(request))
        if caller is not None:
            readings = await anyio.to_thread.run_sync(routes.readings, caller)
            extra = [(k.lower().encode(), v.encode()) for k, v in readings.items()]
            request.scope[EXTRA_HEADERS_KEY] = extra  # type: ignore[literal-required]
        return None

    def refusal(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
        """Litestar's own refusals (no such endpoint, method or body size), in the commercial
        shape on a commercial route. Credentials are still authenticated (DECISIONS: any
        request that carries them is): a bad key gets 401; a known caller's refusal carries
        its meter readings (nothing is metered)."""
        caller = None
        if carries_credentials(request):
            try:
                caller = routes.identify(scope_of(request))
            except Refused as refused:
                routes.mark(scope_of(request), refused)
                return refusal_as_response(refused, request_id=request_id_of(request))
        # An unknown path is no tier's: its 404 takes the shape the credentials choose. An
        # existing commercial path's refusals (405, 413) are commercial.
        known = not isinstance(exc, NotFoundException)
        commercial = known and is_commercial_route(request.url.path)
        response = http_exception_response(request, exc, commercial_route=commercial)
        if caller is not None:
            response.headers.update({**routes.readings(caller), **NO_STORE})
        return response

    return Litestar(
        route_handlers=[
            *route_handlers(routes),
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
    mounted: Mapping[str, ASGIApp] | None = None,
    allowed_hosts: HostPolicy | None = None,
    body_timeout_seconds: float = 10.0,
) -> ASGIApp:
    """The served ASGI application: the edge (`edge.py`), then the registry's GETs answered
    directly (`dispatch.py`), then Litestar for everything else.

    `metrics` is shared with other faces when the composition root passes one;
    `cors_origins` is `settings.cors_origins` (empty: any origin, public GETs only);
    `mounted`: other faces' endpoints by exact path, answered before Litestar's router too
    (each also among `extra_route_handlers`, which serve the same endpoint otherwise);
    `allowed_hosts`: the hosts a request may name (default: the loopback names on any port
    and the base URL's host; `entrypoints/hosts.py`); `body_timeout_seconds`: how long a
    request body may take to arrive (then 408)."""
    metrics = metrics or Metrics()
    routes = Routes(app.pipeline.observed_by(metrics), base_url=base_url)
    litestar = create_litestar(
        app,
        base_url=base_url,
        extra_route_handlers=extra_route_handlers,
        lifespan=lifespan,
        max_body_bytes=max_body_bytes,
        metrics=metrics,
        routes=routes,
    )
    return HttpEdge(
        RegistryGets(routes, litestar, mounted),  # type: ignore[arg-type]
        new_request_id=app.ids.request_id,
        metrics=metrics,
        cors=Cors(cors_policy(cors_origins)),
        synthetic=labels_synthetic_data(app.about),
        allowed_hosts=allowed_hosts or HostPolicy.configured(base_url=base_url),
        body_timeout_seconds=body_timeout_seconds,
    )
