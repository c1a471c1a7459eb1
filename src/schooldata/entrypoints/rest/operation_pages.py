"""The HTML of the landing page (`/`) and of the interactive documentation page (`/docs`).

Kept apart from the handlers, which decide the answer and its headers; both pages carry the
same synthetic-demo notice, defined here.
"""

from __future__ import annotations

import html
from typing import Any, Final

from litestar import Request

from schooldata import __version__
from schooldata.entrypoints.rest.operation_paths import (
    ASSETS_PATH,
    DOCS_PATH,
    HEALTH_PATH,
    MCP_PATH,
    METRICS_PATH,
    OPENAPI_PATH,
    READY_PATH,
)
from schooldata.entrypoints.rest.swagger_assets import INIT_SCRIPT, SwaggerAssets

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


LINKS: Final = (
    ("docs", DOCS_PATH, "Interactive API documentation (Swagger UI)"),
    ("openapi", OPENAPI_PATH, "OpenAPI 3.1 document"),
    (
        "mcp",
        MCP_PATH,
        "the MCP endpoint, for MCP clients and AI agents: JSON-RPC over POST (streamable "
        "HTTP), not a page for a browser",
    ),
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
        f"<li>{_reference(name, href)}: {html.escape(text)}</li>" for name, href, text in links
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
<p>Read-only data about open schools in the UK, from government open data, version
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


def _reference(name: str, href: str) -> str:
    """A page's link; the MCP endpoint's address as text (a browser opening it gets a 405)."""
    if name == "mcp":
        return f"<code>{html.escape(href)}</code>"
    return f'<a href="{html.escape(href, quote=True)}">{html.escape(href)}</a>'


def prefers_json(request: Request[Any, Any, Any]) -> bool:
    accept = request.headers.get("accept", "").lower()
    return "application/json" in accept and "text/html" not in accept
