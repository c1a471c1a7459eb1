"""The served app: the one HTTP edge, the registry's routes (`routes.py`), and Litestar for
what it alone serves (the OpenAPI document, the operational pages) and what no route names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec
from litestar import Litestar, MediaType, Request, Response, get
from litestar.exceptions import HTTPException
from litestar.response.base import ASGIResponse

from schooldata.application.pipeline import Pipeline, Refused
from schooldata.application.service import Application
from schooldata.domain.keys import AuthenticationFailed
from schooldata.entrypoints.hosts import HostPolicy
from schooldata.entrypoints.http.request import request_of
from schooldata.entrypoints.http.route_table import Page, RouteTable
from schooldata.entrypoints.observability.metrics import Metrics
from schooldata.entrypoints.rest import operation_paths, operations
from schooldata.entrypoints.rest.cors import Cors, cors_policy
from schooldata.entrypoints.rest.edge import ASGIApp, HttpEdge, labels_synthetic_data
from schooldata.entrypoints.rest.errors import error_response, exception_handlers
from schooldata.entrypoints.rest.openapi import build_document
from schooldata.entrypoints.rest.responses import NO_STORE, refusal_as_response
from schooldata.entrypoints.rest.routes import Routes

# The addresses Litestar serves, as the route table knows them.
PAGES = (
    Page(operation_paths.OPENAPI_PATH, 300, readable=True, identifies=True, public_errors=False),
    Page(operation_paths.HOME_PATH, operation_paths.PAGE_MAX_AGE),
    Page(operation_paths.DOCS_PATH, operation_paths.PAGE_MAX_AGE),
    Page(operation_paths.HEALTH_PATH),
    Page(operation_paths.READY_PATH),
    Page(operation_paths.METRICS_PATH),
    Page(operation_paths.ASSETS_PATH, operation_paths.ASSET_MAX_AGE, prefix=True),
)


def create_litestar(
    app: Application,
    *,
    extra_route_handlers: Sequence[Any] = (),
    lifespan: Sequence[Any] = (),
    metrics: Metrics | None = None,
    pipeline: Pipeline | None = None,
) -> Litestar:
    """`extra_route_handlers`/`lifespan` let the composition root mount other faces (MCP)
    on the same server without REST importing them."""
    document = msgspec.json.encode(build_document(plans=app.plans.all()))
    metrics = metrics or Metrics()
    identify = (pipeline or app.pipeline).identify
    peek = (pipeline or app.pipeline).peek

    @get(operation_paths.OPENAPI_PATH, include_in_schema=False)
    async def openapi_document() -> ASGIResponse:
        # Public; credentials sent with it were authenticated before (`rest/protocol.py`).
        return ASGIResponse(body=document, media_type=MediaType.JSON)

    def refusal(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
        """Litestar's own refusals (no such endpoint), in the shape the credentials choose.
        Credentials are still authenticated (DECISIONS: any request that carries them is): a
        bad key gets 401; a known caller's refusal carries its meter readings (nothing is
        metered)."""
        http = request_of(request.scope)
        caller = None
        if http is not None and http.has_credentials:
            try:
                if http.conflict is not None:
                    raise Refused(http.conflict, keyed=True)
                try:
                    caller = identify(http.credentials)
                except AuthenticationFailed as error:
                    raise Refused(error, keyed=True) from None
            except Refused as refused:
                return refusal_as_response(refused, request_id=http.id)
        response = error_response(request, exc)
        if caller is not None:
            reading = peek(caller)
            readings = {} if reading is None else reading.headers()
            response.headers.update({**readings, **NO_STORE})
        return response

    return Litestar(
        route_handlers=[
            openapi_document,
            *operations.operations_handlers(app, metrics),
            *extra_route_handlers,
        ],
        lifespan=list(lifespan),
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
    """The served ASGI application: the edge (`edge.py`), which reads each request once and
    answers the route table's routes (`routes.py`), else a mounted endpoint, else Litestar.

    `metrics` is shared with other faces when the composition root passes one;
    `cors_origins` is `settings.cors_origins` (empty: any origin, public GETs only);
    `mounted`: other faces' endpoints by exact path (each also among
    `extra_route_handlers`, which serve the same endpoint at its other spellings);
    `allowed_hosts`: the hosts a request may name (default: the loopback names on any port
    and the base URL's host; `entrypoints/hosts.py`); `body_timeout_seconds`: how long a
    request body may take to arrive (then 408)."""
    metrics = metrics or Metrics()
    pipeline = app.pipeline.observed_by(metrics)
    routes = Routes(pipeline, base_url=base_url, max_body_bytes=max_body_bytes)
    litestar = create_litestar(
        app,
        extra_route_handlers=extra_route_handlers,
        lifespan=lifespan,
        metrics=metrics,
        pipeline=pipeline,
    )
    return HttpEdge(
        litestar,  # type: ignore[arg-type]
        routes=routes,
        table=RouteTable(PAGES),
        mounted=mounted,
        new_request_id=app.ids.request_id,
        metrics=metrics,
        cors=Cors(cors_policy(cors_origins)),
        synthetic=labels_synthetic_data(app.about),
        allowed_hosts=allowed_hosts or HostPolicy.configured(base_url=base_url),
        body_timeout_seconds=body_timeout_seconds,
    )
