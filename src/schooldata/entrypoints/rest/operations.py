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
"""

from __future__ import annotations

import html
import importlib.metadata
import importlib.util
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from attrs import frozen
from litestar import Request, Response, get
from litestar.exceptions import NotFoundException
from litestar.params import FromPath

from schooldata import __version__
from schooldata.application.service import Application
from schooldata.entrypoints.observability.metrics import (
    CONTENT_TYPE,
    Family,
    Labels,
    Metrics,
    bounded,
    gauge,
)

log = logging.getLogger("schooldata.operations")

OPENAPI_PATH = "/api/v1/openapi.json"
MCP_PATH = "/mcp"
HOME_PATH = "/"
DOCS_PATH = "/docs"
ASSETS_PATH = "/docs/assets"
HEALTH_PATH = "/health"
READY_PATH = "/ready"
METRICS_PATH = "/metrics"
OPERATION_PATHS: Final = frozenset({HOME_PATH, DOCS_PATH, HEALTH_PATH, READY_PATH, METRICS_PATH})
REGISTER_DATASET = "gias_establishments"

PAGE_MAX_AGE = 300
ASSET_MAX_AGE = 7 * 24 * 3600
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


def is_operation_path(path: str) -> bool:
    return path in OPERATION_PATHS or path.startswith(ASSETS_PATH + "/")


def cache_max_age(path: str) -> int | None:
    """Which operational answers may be cached (and validated with ETags), for how long."""
    if path in (HOME_PATH, DOCS_PATH):
        return PAGE_MAX_AGE
    if path.startswith(ASSETS_PATH + "/"):
        return ASSET_MAX_AGE
    return None


# --------------------------------------------------------------------------------------------
# Swagger UI, from the installed distribution.

SWAGGER_DISTRIBUTION = "swagger-ui-py"
SWAGGER_PACKAGE = "swagger_ui"
ASSET_TYPES: Final = {
    "swagger-ui.css": "text/css",
    "swagger-ui-bundle.js": "text/javascript",
    "favicon-32x32.png": "image/png",
    "favicon-16x16.png": "image/png",
}
INIT_SCRIPT = "docs.js"
# Static, so it can be served as a file under the CSP (no inline script): reads its settings
# from the page's data attributes.
INIT_JS = """\
window.addEventListener("load", function () {
  "use strict";
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.getAttribute("data-openapi-url"),
    domNode: root,
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    validatorUrl: null,
    displayOperationId: true,
    displayRequestDuration: true,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    persistAuthorization: false,
    tryItOutEnabled: false
  });
});
"""


@frozen
class Asset:
    body: bytes
    media_type: str


class SwaggerAssets:
    """Swagger UI's files, located without importing the package and read once."""

    def __init__(self, directory: Path | None, version: str) -> None:
        self._directory = directory
        self.version = version
        self._cache: dict[str, Asset] = {}

    @classmethod
    def installed(cls) -> SwaggerAssets:
        spec = importlib.util.find_spec(SWAGGER_PACKAGE)
        locations = list(spec.submodule_search_locations or []) if spec else []
        directory = Path(locations[0]) / "static" if locations else None
        try:
            version = importlib.metadata.version(SWAGGER_DISTRIBUTION)
        except importlib.metadata.PackageNotFoundError:
            version = "0"
        if directory is not None and not (directory / "swagger-ui-bundle.js").is_file():
            directory = None
        return cls(directory, version)

    @property
    def available(self) -> bool:
        return self._directory is not None

    def get(self, name: str) -> Asset | None:
        if name == INIT_SCRIPT:
            return Asset(INIT_JS.encode(), "text/javascript")
        if name not in ASSET_TYPES or self._directory is None:
            return None
        if name not in self._cache:
            self._cache[name] = Asset((self._directory / name).read_bytes(), ASSET_TYPES[name])
        return self._cache[name]


SYNTHETIC_NOTICE: Final = (
    "<p><strong>Synthetic demo data.</strong> Every school this server answers about is "
    "invented (the local authorities and postcodes are real): it is the bundled demo, not "
    "government data. Import the publishers' files for real answers.</p>"
)


def docs_page(prefix: str, assets: SwaggerAssets, *, synthetic: bool = False) -> str:
    root = html.escape(prefix, quote=True)
    version = html.escape(assets.version, quote=True)
    asset = f"{root}{ASSETS_PATH}"
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>schooldata API: interactive documentation</title>
<link rel="stylesheet" href="{asset}/swagger-ui.css?v={version}">
<link rel="icon" type="image/png" sizes="32x32" href="{asset}/favicon-32x32.png?v={version}">
<link rel="icon" type="image/png" sizes="16x16" href="{asset}/favicon-16x16.png?v={version}">
</head>
<body>
<noscript>This page needs JavaScript. The OpenAPI document is at
<a href="{root}{OPENAPI_PATH}">{OPENAPI_PATH}</a>.</noscript>
{SYNTHETIC_NOTICE if synthetic else ""}
<div id="swagger-ui" data-openapi-url="{root}{OPENAPI_PATH}"></div>
<script src="{asset}/swagger-ui-bundle.js?v={version}"></script>
<script src="{asset}/{INIT_SCRIPT}?v={version}"></script>
</body>
</html>
"""


def docs_unavailable_page(prefix: str) -> str:
    root = html.escape(prefix, quote=True)
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        "<title>schooldata API documentation</title></head><body>"
        "<p>The interactive documentation needs the <code>swagger-ui-py</code> package, which "
        f'is not installed. The OpenAPI document is at <a href="{root}{OPENAPI_PATH}">'
        f"{OPENAPI_PATH}</a>.</p></body></html>"
    )


# --------------------------------------------------------------------------------------------
# The landing page.

LINKS: Final = (
    ("docs", DOCS_PATH, "Interactive API documentation (Swagger UI)"),
    ("openapi", OPENAPI_PATH, "OpenAPI 3.1 document"),
    ("mcp", MCP_PATH, "MCP endpoint (streamable HTTP, JSON-RPC over POST)"),
    ("health", HEALTH_PATH, "Liveness"),
    ("ready", READY_PATH, "Readiness: database, data and rate-limit backend"),
    ("metrics", METRICS_PATH, "Prometheus metrics"),
)


def landing_links(prefix: str, has_mcp: bool) -> list[tuple[str, str, str]]:
    return [(name, prefix + path, text) for name, path, text in LINKS if has_mcp or name != "mcp"]


def landing_page(
    links: list[tuple[str, str, str]], prefix: str = "", *, synthetic: bool = False
) -> str:
    search = html.escape(f"{prefix}/api/v1/search?query=st%20mary", quote=True)
    items = "\n".join(
        f'<li><a href="{html.escape(href, quote=True)}">{html.escape(href)}</a>: '
        f"{html.escape(text)}</li>"
        for _, href, text in links
    )
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>schooldata</title>
<style>body{{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;
line-height:1.5}}code{{background:#f3f3f3;padding:0 .2em}}</style>
</head>
<body>
<h1>schooldata</h1>
<p>Read-only data about open schools in England, from government open data, version
{__version__}: a public REST API and the MCP endpoint's two public tools (searching schools and
one school's record; no key), and a commercial REST API and the commercial MCP tools (API
key).</p>
{SYNTHETIC_NOTICE if synthetic else ""}
<ul>
{items}
</ul>
<p>Try <a href="{search}">{search}</a>. Commercial calls send their key as
<code>Authorization: Bearer &lt;key&gt;</code>, never in the URL.</p>
</body>
</html>
"""


def prefers_json(request: Request[Any, Any, Any]) -> bool:
    accept = request.headers.get("accept", "").lower()
    return "application/json" in accept and "text/html" not in accept


# --------------------------------------------------------------------------------------------
# Readiness.


def _backend_name(adapter: object) -> str:
    module = type(adapter).__module__
    parts = module.split(".")
    if module.startswith("schooldata.adapters.") and len(parts) > 2:
        return parts[2]
    return type(adapter).__name__


def _probe(check: Callable[[], object]) -> tuple[bool, str | None]:
    try:
        check()
    except Exception as error:  # a readiness probe reports, it never raises
        log.warning("readiness check failed", exc_info=True)
        return False, type(error).__name__
    return True, None


def readiness(app: Application) -> tuple[bool, dict[str, Any]]:
    """Each check: `{"status": "ok" | "degraded" | "error" | "missing" | "unknown", ...}`;
    ready when every check is ok or degraded."""
    checks: dict[str, Any] = {}
    datasets = app.ports.datasets
    ping = getattr(datasets, "ping", None)
    records: list[Any] = []

    def read_database() -> None:
        if callable(ping):
            ping()
        records.extend(datasets.current())

    ok, error = _probe(read_database)
    checks["database"] = {"status": "ok"} if ok else {"status": "error", "error": error}
    if ok:
        register = next((r for r in records if r.name == REGISTER_DATASET), None)
        checks["dataset"] = (
            {"status": "ok", "name": REGISTER_DATASET, "rows": register.row_count}
            if register is not None
            else {"status": "missing", "name": REGISTER_DATASET}
        )
    else:
        checks["dataset"] = {"status": "unknown", "name": REGISTER_DATASET}
    checks["metering"] = metering_check(app.ports.rate)
    ready = all(c["status"] in ("ok", "degraded") for c in checks.values())
    degraded = any(c["status"] == "degraded" for c in checks.values())
    status = ("degraded" if degraded else "ready") if ready else "unavailable"
    return ready, {"status": status, "checks": checks}


def metering_check(rate: object) -> dict[str, Any]:
    """The rate-limit backend's state, through whichever probe the adapter offers:
    `health()` -> a mapping (a value `degraded` means it fell back to per-process windows:
    still serving, so still ready), `healthy()` -> bool, or `ping()` (raises when down).
    An adapter with none (the in-process limiter) is simply ok."""
    backend = _backend_name(rate)
    health = getattr(rate, "health", None)
    healthy = getattr(rate, "healthy", None)
    ping = getattr(rate, "ping", None)
    report: dict[str, Any] = {}

    def probe() -> None:
        if callable(health):
            answer = health()
            if isinstance(answer, Mapping):
                report.update({str(k): str(v) for k, v in answer.items()})
        elif callable(healthy):
            if healthy() is False:
                raise ConnectionError("the rate-limit backend reported itself unhealthy")
        elif callable(ping):
            ping()

    ok, error = _probe(probe)
    if not ok:
        return {"status": "error", "backend": backend, "error": error}
    if "degraded" in report.values():
        check: dict[str, Any] = {"status": "degraded", "backend": backend}
        if "detail" in report:
            check["detail"] = report["detail"]
        return check
    return {"status": "ok", "backend": backend}


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
