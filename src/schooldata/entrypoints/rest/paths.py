"""What an HTTP path is, for the answers given before (or without) a route: the query-key
refusal, Litestar's 404/405, CORS, HTTP caching and the access log's tier.

Derived from the registry: the public addresses are the public operations' paths (a
`{urn}` segment matches any one segment, unless a keyed-only operation has that very path),
so a new public operation is public here too.
"""

from __future__ import annotations

import re

from schooldata.application.operations.registry import REGISTRY
from schooldata.entrypoints.rest import operation_paths

OPENAPI_PATH = operation_paths.OPENAPI_PATH
PUBLIC_MAX_AGE = 300


def _templates() -> tuple[re.Pattern[str], frozenset[str], frozenset[str]]:
    public: list[str] = []
    public_only: set[str] = set()
    keyed_static: set[str] = set()
    for (_method, path), entry in REGISTRY.entries():
        if entry.public is not None:
            # A `{name}` segment is any one segment (every character but a slash).
            public.append(re.sub(r"\\\{[a-z_]+\\\}", "[^/]*", re.escape(path)))
            if entry.keyed is None:
                public_only.add(path)
        elif "{" not in path:
            keyed_static.add(path)
    return re.compile("|".join(public)), frozenset(public_only), frozenset(keyed_static)


_PUBLIC, _PUBLIC_ONLY, _KEYED_STATIC = _templates()


def is_public_route(path: str) -> bool:
    """An address with a public operation (the anonymous answer is public there)."""
    return path not in _KEYED_STATIC and _PUBLIC.fullmatch(path) is not None


def has_public_errors(path: str) -> bool:
    """Anonymous requests to these paths get the public error shape from the outer layers:
    public routes, the operational pages, and addresses nothing serves (no tier's)."""
    return is_public_route(path) or operation_paths.is_operation_path(path) or not is_served(path)


def _every_address() -> re.Pattern[str]:
    """Every path of the registry, whatever its method or tier (a `{name}` segment is any one
    segment)."""
    paths = {path for (_method, path), _entry in REGISTRY.entries()}
    return re.compile("|".join(re.sub(r"\\\{[a-z_]+\\\}", "[^/]*", re.escape(p)) for p in paths))


_EVERY_ADDRESS = _every_address()


def is_served(path: str) -> bool:
    """An address something answers: an operation of the registry, the OpenAPI document, the
    MCP endpoint or an operational page (a trailing slash is the same address)."""
    path = path.rstrip("/") or "/"
    return (
        path in (OPENAPI_PATH, operation_paths.MCP_PATH)
        or operation_paths.is_operation_path(path)
        or _EVERY_ADDRESS.fullmatch(path) is not None
    )


def is_public_only(path: str) -> bool:
    """Paths whose answer is public whatever credentials the request carries."""
    return path in _PUBLIC_ONLY or operation_paths.is_operation_path(path) or path == OPENAPI_PATH


def is_cross_origin_readable(path: str) -> bool:
    """The public GETs browsers of other origins may read (anonymous answers only)."""
    return is_public_route(path) or path == OPENAPI_PATH


def is_commercial_route(path: str) -> bool:
    """Existing paths of the commercial tier: their refusals take the commercial shape even
    for an anonymous caller."""
    return path.startswith("/api/v1/") and not is_public_only(path) and not is_public_route(path)


def cache_max_age(path: str) -> int | None:
    """Anonymous GET answers that get validators and `Cache-Control: public`."""
    if is_public_route(path) or path == OPENAPI_PATH:
        return PUBLIC_MAX_AGE
    return operation_paths.cache_max_age(path)
