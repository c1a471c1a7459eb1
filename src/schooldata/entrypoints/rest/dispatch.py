"""GETs of the registry's routes, answered by the same `Routes.answer` Litestar's handlers run,
without Litestar's router and per-request handler machinery in between: that machinery costs
as much as a whole computed answer (docs/performance.md), and the registry already names every
route. Other faces' endpoints mounted at an exact path (MCP's `/mcp`) are handed their
requests the same way. Anything else (another method, a path that is not exactly one of these,
a mounted root path) goes on to Litestar, which serves every route too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from litestar import Request
from litestar._asgi.utils import is_valid_host
from mypy_extensions import mypyc_attr

from schooldata.application.operations.declaration import Entry
from schooldata.application.operations.registry import REGISTRY
from schooldata.entrypoints.rest import handing
from schooldata.entrypoints.rest.errors import unexpected_response
from schooldata.entrypoints.rest.routes import Routes, negotiates
from schooldata.entrypoints.rest.transport import ASGIApp, Receive, Scope, Send

_SEGMENT = re.compile(r"\\\{([a-z_]+)\\\}")


class _Route:
    __slots__ = ("entry", "tabular", "template")

    def __init__(self, entry: Entry, path: str) -> None:
        self.entry = entry
        self.template = path  # as Litestar names the route (metrics, access log)
        self.tabular = negotiates(entry)


# A Python class in this compiled module (setup.py): the twin tests send a request down
# Litestar's road by replacing its `__call__`, which a native class would not allow.
@mypyc_attr(native_class=False)
class RegistryGets:
    def __init__(
        self, routes: Routes, app: ASGIApp, mounted: Mapping[str, ASGIApp] | None = None
    ) -> None:
        self._routes = routes
        self._app = app
        self._mounted = dict(mounted or {})
        self._static: dict[str, _Route | None] = {}  # None: the path has no GET
        self._templated: list[tuple[re.Pattern[str], _Route]] = []
        # A segment that is a literal somewhere in the registry is never taken for a `{urn}`
        # here: which route Litestar's trie picks then is Litestar's to say.
        self._literals = {s for (_, path), _ in REGISTRY.entries() for s in path.split("/")}
        for (method, path), entry in REGISTRY.entries():
            if "{" not in path:
                if method == "GET" or path not in self._static:
                    self._static[path] = _Route(entry, path) if method == "GET" else None
            elif method == "GET":  # each `{name}` is one whole segment, as `{name:str}`
                pattern = _SEGMENT.sub(r"(?P<\1>[^/]+)", re.escape(path))
                self._templated.append((re.compile(pattern), _Route(entry, path)))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if _routable(scope):
            if scope["method"] == "GET" and (found := self._match(scope["path"])) is not None:
                route, params = found
                scope["path_params"] = params
                scope["path_template"] = route.template
                await self._answer(route, scope, receive, send)
                return
            if (endpoint := self._mounted.get(scope["path"])) is not None:
                scope["path_template"] = scope["path"]
                await handing.handed(endpoint, scope, receive, send)
                return
        await self._app(scope, receive, send)

    def _match(self, path: str) -> tuple[_Route, dict[str, str]] | None:
        if path in self._static:
            route = self._static[path]
            return None if route is None else (route, {})
        for pattern, templated in self._templated:
            if (matched := pattern.fullmatch(path)) is not None:
                params = matched.groupdict()
                if self._literals.isdisjoint(params.values()):
                    return templated, params
                return None
        return None

    async def _answer(self, route: _Route, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            reply = await self._routes.answer(route.entry, scope, None, tabular=route.tabular)
        except Exception as error:  # as Litestar's exception handler would answer it
            request: Request[Any, Any, Any] = Request(scope, receive)  # type: ignore[arg-type]
            response = unexpected_response(request, error).to_asgi_response(None, request)
            await response(request.scope, request.receive, send)  # type: ignore[arg-type]
            return
        await reply.send(send)


def _routable(scope: Scope) -> bool:
    """A request Litestar would route by its path alone: no mounted root path, a valid Host."""
    if scope["type"] != "http" or scope.get("root_path"):
        return False
    for name, value in scope["headers"]:
        if name == b"host":
            return is_valid_host(value)
    return True
