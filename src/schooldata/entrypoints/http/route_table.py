"""The one route table: every address this server answers, matched once per request.

Built from the registry (each operation's method and path) and the pages other layers serve
(the OpenAPI document, the operational pages), it matches a path as Litestar's router would:
the path is normalised (no trailing slash, repeated slashes as one); a path without
parameters is looked up whole; a templated one is walked segment by segment, a literal
segment before a `{name}` one, without going back. What a route is (its tier, whether its
answers may be cached or read cross-origin, which methods it allows) is decided here, once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final, NamedTuple

from schooldata.application.operations.declaration import Entry
from schooldata.application.operations.registry import REGISTRY
from schooldata.entrypoints import answers

PUBLIC_MAX_AGE: Final = 300
_SLASHES = re.compile(r"//+")
_PARAM = object()  # the key of a node's `{name}` child


class Page(NamedTuple):
    """An address another layer serves (GET only): how long its anonymous answers may be
    cached, whether other origins may read them, and whether credentials sent with it are
    authenticated first (a public page that still refuses a bad key); whether the refusals
    made before it is read take the public shape for anonymous callers (`public_errors`).
    `prefix`: every address one segment under `path`."""

    path: str
    max_age: int | None = None
    readable: bool = False
    identifies: bool = False
    prefix: bool = False
    public_errors: bool = True


class Route:
    """One address: its operations by method (none for a page another layer serves), and
    what holds for every request to it."""

    __slots__ = (
        "allow",
        "cache_max_age",
        "commercial",
        "entries",
        "identifies",
        "names",
        "options_allow",
        "page",
        "page_public_errors",
        "public",
        "public_only",
        "readable",
        "tabular",
        "template",
    )

    def __init__(
        self,
        template: str,
        entries: dict[str, Entry],
        *,
        page: Page | None = None,
    ) -> None:
        self.template = template  # as the metrics and the access log name it
        self.entries = entries
        self.names = tuple(_NAMES.findall(template))  # its parameters, in order
        self.page = page is not None  # served by another layer (Litestar's pages): GET only
        self.identifies = page is not None and page.identifies
        self.page_public_errors = page is not None and page.public_errors
        allowed = [*entries] if entries else ["GET"]
        # As Litestar says it (a 405 lists its handlers, OPTIONS' answer sorts them), HEAD
        # named after GET.
        self.allow = with_head(", ".join([*allowed, "OPTIONS"]).encode())
        self.options_allow = with_head(", ".join(sorted({*allowed, "OPTIONS"})).encode())
        self.public = any(entry.public is not None for entry in entries.values())
        self.public_only = self.page or (
            self.public and all(entry.keyed is None for entry in entries.values())
        )
        # An existing address of the commercial tier: its refusals are commercial for
        # anonymous callers too.
        self.commercial = not self.page and not self.public
        self.tabular = {
            method: any(
                op is not None and answers.table_of(op.name) is not None
                for op in (entry.public, entry.keyed)
            )
            for method, entry in entries.items()
        }
        cache_max_age, readable = (None, False) if page is None else page[1:3]
        if self.public:
            cache_max_age, readable = PUBLIC_MAX_AGE, True
        self.cache_max_age = cache_max_age  # anonymous GET 200s get validators for this long
        self.readable = readable  # browsers of other origins may read its anonymous GETs

    def public_errors(self, credentials: bool) -> bool:
        """Whether a refusal here takes the public error shape."""
        return not credentials and (self.public or self.page_public_errors)


class _Node:
    __slots__ = ("children", "route")

    def __init__(self) -> None:
        self.children: dict[object, _Node] = {}
        self.route: Route | None = None


class RouteTable:
    """The registry's routes, and `pages`: the addresses another layer serves."""

    def __init__(self, pages: Iterable[Page] = ()) -> None:
        by_path: dict[str, dict[str, Entry]] = {}
        for (method, path), entry in REGISTRY.entries():
            by_path.setdefault(path, {})[method] = entry
        self._plain: dict[str, Route] = {}
        self._root = _Node()
        for path, entries in by_path.items():
            route = Route(path, entries)
            if "{" not in path:
                self._plain[path] = route
                continue
            node = self._root
            for segment in path.strip("/").split("/"):
                key = _PARAM if segment.startswith("{") else segment
                node = node.children.setdefault(key, _Node())
            node.route = route
        self._prefixes: list[tuple[str, Route]] = []
        for page in pages:
            if page.prefix:
                self._prefixes.append(
                    (page.path.rstrip("/") + "/", Route(page.path, {}, page=page))
                )
            else:
                self._plain[page.path] = Route(page.path, {}, page=page)

    def match(self, path: str, root_path: str = "") -> tuple[Route, dict[str, str]] | None:
        """The route of a path and its parameters (None: no route here)."""
        if root_path:
            path = path.split(root_path, 1)[-1]
        route = self._plain.get(path)
        if route is not None:
            return route, _NONE
        normal = _normal(path)
        route = self._plain.get(normal)
        if route is not None:
            return route, _NONE
        for prefix, under in self._prefixes:
            if normal.startswith(prefix) and "/" not in normal[len(prefix) :]:
                return under, _NONE
        node = self._root
        values: list[str] = []
        for segment in normal.split("/"):
            if not segment:
                continue
            child = node.children.get(segment)
            if child is None:
                child = node.children.get(_PARAM)
                if child is None:
                    return None
                values.append(segment)
            node = child
        found = node.route
        if found is None:
            return None
        return found, dict(zip(found.names, values, strict=True))


_NONE: dict[str, str] = {}  # (read only: shared by every route without parameters)
_NAMES = re.compile(r"\{([a-z_]+)\}")


def _normal(path: str) -> str:
    """As Litestar normalises a path: one leading slash, none trailing, no repeated ones."""
    path = "/" + path.strip("/")
    return _SLASHES.sub("/", path) if "//" in path else path


def with_head(allow: bytes) -> bytes:
    """An `Allow` value with HEAD after GET, when GET is allowed and HEAD is not named."""
    methods = [m.strip() for m in bytes(allow).decode("latin-1").split(",") if m.strip()]
    upper = [m.upper() for m in methods]
    if "GET" in upper and "HEAD" not in upper:
        methods.insert(upper.index("GET") + 1, "HEAD")
    return ", ".join(methods).encode("latin-1")
