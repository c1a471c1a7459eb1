"""The operational routes: landing page, interactive API docs, liveness, readiness, metrics.

All public, never metered, never behind the commercial gate, and outside the OpenAPI document
(they are not the product's API). A key in their query string is still refused by the transport
layer, as on every route.

- `GET /`: a short landing page (HTML; JSON when the client prefers it) linking the rest.
- `GET /docs`: Swagger UI over `/api/v1/openapi.json`. Its files come from the installed
  `swagger-ui-py` distribution and are served by this app (`/docs/assets/...`): no CDN, and
  a Content-Security-Policy that would block one.
- `GET /health`: liveness, 200 `{"status": "ok"}` while the process answers.
- `GET /ready`: readiness, 200 when the database answers a cheap read, the register
  (`gias_establishments`) is loaded and the rate-limit backend answers (or has fallen back to
  per-process windows: `degraded`, still serving); 503 naming the failed check otherwise
  (never an exception text).
- `GET /metrics`: Prometheus text exposition, the whole server's (see `observability.metrics`).

The handlers are here; the addresses are in `operation_paths`, the pages in `operation_pages`,
Swagger UI's files in `swagger_assets` and the readiness checks in `readiness`.
"""

from __future__ import annotations

import logging
from typing import Any

from litestar import Request, Response, get
from litestar.exceptions import NotFoundException
from litestar.params import FromPath

from schooldata import __version__
from schooldata.application.service import Application
from schooldata.entrypoints.observability.families import Family, Labels, bounded, gauge
from schooldata.entrypoints.observability.metrics import CONTENT_TYPE, Metrics
from schooldata.entrypoints.rest.operation_pages import (
    docs_page,
    docs_unavailable_page,
    landing_links,
    landing_page,
    prefers_json,
)
from schooldata.entrypoints.rest.operation_paths import (
    ASSET_MAX_AGE,
    ASSETS_PATH,
    DOCS_PATH,
    HEALTH_PATH,
    HOME_PATH,
    MCP_PATH,
    METRICS_PATH,
    READY_PATH,
)
from schooldata.entrypoints.rest.readiness import readiness
from schooldata.entrypoints.rest.swagger_assets import SwaggerAssets

log = logging.getLogger("schooldata.operations")

NO_STORE = {"Cache-Control": "no-store"}
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
# Everything from this origin; inline styles because Swagger UI sets some. No other origin:
# a page that tried to load a CDN asset would fail visibly rather than leak the visit.
DOCS_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HOME_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'"


def dataset_gauges(app: Application) -> list[Family]:
    """The datasets' gauges, read at scrape time (the in-memory dataset list: the same on
    every worker, so not counted per process)."""
    try:
        records = app.ports.datasets.current()
    except Exception:
        log.warning("metrics: dataset registry unavailable", exc_info=True)
        return []
    rows: list[tuple[Labels, float]] = []
    imported: list[tuple[Labels, float]] = []
    for record in records:
        labels: Labels = (("dataset", bounded(record.name)),)
        rows.append((labels, float(record.row_count)))
        imported.append((labels, record.imported_at.timestamp()))
    return [
        gauge("schooldata_dataset_rows", "Rows in the current import of each dataset.", rows),
        gauge(
            "schooldata_dataset_imported_timestamp_seconds",
            "When each dataset's current import finished, Unix epoch seconds.",
            imported,
        ),
    ]


# --------------------------------------------------------------------------------------------
# The handlers.


def operations_handlers(
    app: Application, metrics: Metrics, *, assets: SwaggerAssets | None = None
) -> list[Any]:
    swagger = assets or SwaggerAssets.installed()

    # The pages say whether the data is the synthetic demo: read from the dataset list, which
    # a worker's first requests may wait for (the snapshot being built), so on a thread.
    @get(HOME_PATH, sync_to_thread=True, include_in_schema=False, name="home")
    def home(request: Request[Any, Any, Any]) -> Response[Any]:
        prefix = str(request.scope.get("root_path", ""))
        has_mcp = any(route.path == MCP_PATH for route in request.app.routes)
        links = landing_links(prefix, has_mcp)
        synthetic = app.about.serves_synthetic_data()
        headers = {**SECURITY_HEADERS, "Vary": "Accept"}
        if prefers_json(request):
            body = {
                "name": "schooldata",
                "version": __version__,
                "synthetic": synthetic,
                "links": {n: h for n, h, _ in links},
            }
            return Response(body, headers=headers)
        headers["Content-Security-Policy"] = HOME_CSP
        page = landing_page(links, prefix, synthetic=synthetic)
        return Response(page, media_type="text/html", headers=headers)

    @get(DOCS_PATH, sync_to_thread=True, include_in_schema=False, name="docs")
    def docs(request: Request[Any, Any, Any]) -> Response[str]:
        prefix = str(request.scope.get("root_path", ""))
        headers = {**SECURITY_HEADERS, "Content-Security-Policy": DOCS_CSP}
        if not swagger.available:
            return Response(
                docs_unavailable_page(prefix),
                status_code=503,
                media_type="text/html",
                headers={**headers, **NO_STORE},
            )
        page = docs_page(prefix, swagger, synthetic=app.about.serves_synthetic_data())
        return Response(page, media_type="text/html", headers=headers)

    @get(f"{ASSETS_PATH}/{{name:str}}", sync_to_thread=False, include_in_schema=False)
    def docs_asset(name: FromPath[str]) -> Response[bytes]:
        asset = swagger.get(name)
        if asset is None:
            raise NotFoundException()
        return Response(
            asset.body,
            media_type=asset.media_type,
            headers={
                **SECURITY_HEADERS,
                "Cache-Control": f"public, max-age={ASSET_MAX_AGE}",
            },
        )

    @get(HEALTH_PATH, sync_to_thread=False, include_in_schema=False, name="health")
    def health() -> Response[dict[str, str]]:
        return Response({"status": "ok"}, headers=NO_STORE)

    @get(READY_PATH, sync_to_thread=True, include_in_schema=False, name="ready")
    def ready() -> Response[dict[str, Any]]:
        is_ready, body = readiness(app)
        return Response(body, status_code=200 if is_ready else 503, headers=NO_STORE)

    @get(METRICS_PATH, sync_to_thread=True, include_in_schema=False, name="metrics")
    def metrics_page() -> Response[str]:
        return Response(
            metrics.render(extra=dataset_gauges(app)), media_type=CONTENT_TYPE, headers=NO_STORE
        )

    return [home, docs, docs_asset, health, ready, metrics_page]
