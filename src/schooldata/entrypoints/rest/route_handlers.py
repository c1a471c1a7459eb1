"""The registry's operations as Litestar route handlers, each calling `Routes.answer`. Apart
from `routes` because Litestar inspects a handler's signature, which a compiled function
(setup.py) does not offer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from litestar import HttpMethod, Request, route
from litestar.params import RawBody
from litestar.response.base import ASGIResponse

from schooldata.application.operations.declaration import Entry
from schooldata.application.operations.registry import REGISTRY
from schooldata.entrypoints.rest.routes import Routes, negotiates, scope_of


def route_handlers(routes: Routes) -> list[Any]:
    return [_handler(routes, method, path, entry) for (method, path), entry in REGISTRY.entries()]


def _handler(routes: Routes, method: str, path: str, entry: Entry) -> Any:
    name = (entry.public or entry.keyed).name  # type: ignore[union-attr]
    litestar_path = path.replace("{urn}", "{urn:str}")
    answer = partial(routes.answer, tabular=negotiates(entry))

    if method == "POST":

        async def with_body(request: Request[Any, Any, Any], body: RawBody) -> ASGIResponse:
            return (await answer(entry, scope_of(request), body)).asgi()

        handler: Callable[..., Awaitable[ASGIResponse]] = with_body
    else:

        async def without_body(request: Request[Any, Any, Any]) -> ASGIResponse:
            return (await answer(entry, scope_of(request), None)).asgi()

        handler = without_body
    return route(litestar_path, http_method=[HttpMethod(method)], name=name, status_code=200)(
        handler
    )
