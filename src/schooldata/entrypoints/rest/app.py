"""The Litestar app factory: routes, error handlers and the outer transport layer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from litestar import Litestar, Request, Response, get
from litestar.params import FromPath

from schooldata.application.service import Application
from schooldata.domain.errors import DataUnavailable
from schooldata.domain.keys import AuthenticationFailed
from schooldata.entrypoints.rest.commercial import commercial_handlers, profile_response
from schooldata.entrypoints.rest.errors import EXCEPTION_HANDLERS
from schooldata.entrypoints.rest.gate import CommercialGate
from schooldata.entrypoints.rest.openapi import build_document
from schooldata.entrypoints.rest.public import (
    PUBLIC_ROUTES,
    public_handlers,
    public_school_response,
)
from schooldata.entrypoints.rest.transport import ASGIApp, TransportLayer

OPENAPI_PATH = "/api/v1/openapi.json"


def is_public_route(path: str) -> bool:
    return path in PUBLIC_ROUTES or (path.startswith("/api/v1/schools/") and path.count("/") == 4)


def create_litestar(
    app: Application,
    *,
    base_url: str | None = None,
    extra_route_handlers: Sequence[Any] = (),
    lifespan: Sequence[Any] = (),
    max_body_bytes: int = 64 * 1024,
) -> Litestar:
    """`extra_route_handlers`/`lifespan` let the composition root mount other faces (MCP)
    on the same server without REST importing them."""
    document = build_document()
    gate = CommercialGate(app, base_url=base_url)

    @get(OPENAPI_PATH, sync_to_thread=False, include_in_schema=False)
    def openapi_document() -> dict[str, Any]:
        return document

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
            *extra_route_handlers,
        ],
        lifespan=list(lifespan),
        request_max_body_size=max_body_bytes,
        exception_handlers=EXCEPTION_HANDLERS,
        openapi_config=None,
        debug=False,
    )


def create_app(
    app: Application,
    *,
    base_url: str | None = None,
    extra_route_handlers: Sequence[Any] = (),
    lifespan: Sequence[Any] = (),
    max_body_bytes: int = 64 * 1024,
) -> ASGIApp:
    """The served ASGI application: Litestar wrapped in the transport layer."""
    return TransportLayer(
        create_litestar(
            app,
            base_url=base_url,
            extra_route_handlers=extra_route_handlers,
            lifespan=lifespan,
            max_body_bytes=max_body_bytes,
        ),  # type: ignore[arg-type]
        new_request_id=app.ids.request_id,
        is_public_route=is_public_route,
    )
