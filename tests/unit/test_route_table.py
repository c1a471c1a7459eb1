"""The route table matches a path as Litestar's router does (the router that answered these
addresses before the table did): the same route and path parameters, or none, whatever the
slashes, for the registry's addresses and the pages beside them."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from litestar import Litestar, get, route
from litestar.exceptions import MethodNotAllowedException, NotFoundException
from litestar.utils import normalize_path

from schooldata.application.operations.registry import REGISTRY
from schooldata.entrypoints.http.route_table import RouteTable
from schooldata.entrypoints.rest.app import PAGES

TABLE = RouteTable(PAGES)
PATHS = sorted({path for (_, path), _ in REGISTRY.entries()})


def _litestar() -> Litestar:
    handlers: list[Any] = []
    for number, path in enumerate(PATHS):
        methods = [method for (method, p), _ in REGISTRY.entries() if p == path]

        async def handler() -> None:
            return None

        handler.__name__ = f"registry_{number}"
        handlers.append(route(path.replace("{urn}", "{urn:str}"), http_method=methods)(handler))
    for number, page in enumerate(PAGES):
        path = f"{page.path}/{{name:str}}" if page.prefix else page.path

        async def served() -> None:
            return None

        served.__name__ = f"page_{number}"
        handlers.append(get(path)(served))
    return Litestar(handlers, openapi_config=None)


ROUTER = _litestar().asgi_router
SEGMENTS = sorted({s for path in PATHS for s in path.split("/") if s and "{" not in s})
WORDS = ["100001", "x", "", "API", "openapi.json", "docs", "assets", "health", "mcp"]


def litestars(path: str) -> tuple[str, dict[str, Any]] | None:
    try:
        found = ROUTER.handle_routing(path=normalize_path(path), method="OPTIONS")
    except (NotFoundException, MethodNotAllowedException):
        return None
    template, params = found[4].replace(":str", ""), found[3]
    if template.endswith("/{name}"):  # a page under a prefix: the table names the prefix
        return template.removesuffix("/{name}"), {}
    return template, params


def ours(path: str) -> tuple[str, dict[str, Any]] | None:
    found = TABLE.match(path)
    return None if found is None else (found[0].template, found[1])


def test_every_registry_address_is_matched_as_litestar_matches_it() -> None:
    for path in PATHS:
        concrete = path.replace("{urn}", "100001")
        for spelled in (concrete, concrete + "/", concrete.replace("/", "//")):
            assert ours(spelled) == litestars(spelled), spelled


@given(
    st.lists(st.sampled_from([*SEGMENTS, *WORDS]), max_size=6),
    st.booleans(),
)
def test_any_path_of_the_registrys_words_is_matched_as_litestar_matches_it(
    segments: list[str], trailing: bool
) -> None:
    path = "/" + "/".join(segments) + ("/" if trailing else "")
    assert ours(path) == litestars(path), path
