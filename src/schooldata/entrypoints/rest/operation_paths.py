"""The operational routes' addresses, and which of their answers HTTP caches may keep.

Apart from the pages and handlers: the route table (`http/route_table.py`) needs them without either.
"""

from __future__ import annotations

from typing import Final

OPENAPI_PATH = "/api/v1/openapi.json"
MCP_PATH = "/mcp"
HOME_PATH = "/"
DOCS_PATH = "/docs"
ASSETS_PATH = "/docs/assets"
HEALTH_PATH = "/health"
READY_PATH = "/ready"
METRICS_PATH = "/metrics"
OPERATION_PATHS: Final = frozenset({HOME_PATH, DOCS_PATH, HEALTH_PATH, READY_PATH, METRICS_PATH})

PAGE_MAX_AGE = 300
ASSET_MAX_AGE = 7 * 24 * 3600


def is_operation_path(path: str) -> bool:
    return path in OPERATION_PATHS or path.startswith(ASSETS_PATH + "/")


def cache_max_age(path: str) -> int | None:
    """Which operational answers may be cached (and validated with ETags), for how long."""
    if path in (HOME_PATH, DOCS_PATH):
        return PAGE_MAX_AGE
    if path.startswith(ASSETS_PATH + "/"):
        return ASSET_MAX_AGE
    return None
