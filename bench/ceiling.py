"""The ceiling: a minimal Litestar app that returns constant JSON bodies.

`BENCH_CEILING_SIZES="ceiling_search=2345,ceiling_school=1234"` makes
`GET /ceiling/ceiling_search` return a 2,345-byte JSON document, and so on (the harness sizes
each ceiling scenario as the mean answer of the scenario it mirrors); `POST /ceiling/<name>`
reads the request body first (the MCP scenario's context: what reading a body costs the same
server). Served by the same granian with the same settings as `schooldata serve` (ASGI
interface, one worker, no websockets, warning log level, no access log), so the gap to it is
what the service's own work costs.
"""

from __future__ import annotations

import json
import os

from litestar import Litestar, Request, Response, get, post


def _body(size: int) -> bytes:
    """A JSON object of exactly `size` bytes (size >= 16)."""
    prefix = '{"data":"'
    suffix = '"}'
    return (prefix + "x" * max(0, size - len(prefix) - len(suffix)) + suffix).encode()


def create() -> Litestar:
    sizes = {
        name: int(size)
        for name, size in (
            item.split("=")
            for item in os.environ.get("BENCH_CEILING_SIZES", "default=2048").split(",")
        )
    }
    bodies = {name: _body(size) for name, size in sizes.items()}
    json.loads(next(iter(bodies.values())))  # a valid document

    @get("/ceiling/{name:str}", sync_to_thread=False)
    def ceiling(name: str) -> Response[bytes]:
        return Response(content=bodies[name], media_type="application/json")

    @post("/ceiling/{name:str}", status_code=200)
    async def ceiling_post(request: Request[object, object, object], name: str) -> Response[bytes]:
        await request.body()
        return Response(content=bodies[name], media_type="application/json")

    @get("/", sync_to_thread=False)
    def index() -> Response[bytes]:
        return Response(content=b"{}", media_type="application/json")

    return Litestar(
        route_handlers=[ceiling, ceiling_post, index], openapi_config=None, logging_config=None
    )
