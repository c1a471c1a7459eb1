"""The interactive documentation page and its packaged assets (in process)."""

from __future__ import annotations

import re

from litestar import Litestar
from litestar.testing import TestClient

from schooldata.application.service import Application
from schooldata.entrypoints.observability.metrics import Metrics
from schooldata.entrypoints.rest.operations import operations_handlers
from schooldata.entrypoints.rest.swagger_assets import ASSET_TYPES, SwaggerAssets

URL_ATTRIBUTE = re.compile(r'(?:src|href)="([^"]+)"')


def test_docs_page_uses_only_same_origin_assets(client: TestClient) -> None:
    response = client.get("/docs")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    urls = URL_ATTRIBUTE.findall(response.text)
    assert urls, "the page links its assets"
    for url in urls:
        assert url.startswith("/"), f"{url} is not served by this app"
        assert not url.startswith("//")
    assert 'data-openapi-url="/api/v1/openapi.json"' in response.text
    csp = response.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "connect-src 'self'" in csp
    assert "default-src 'none'" in csp
    assert response.headers["x-content-type-options"] == "nosniff"


def test_every_linked_asset_is_served_with_its_type(client: TestClient) -> None:
    page = client.get("/docs").text
    for url in URL_ATTRIBUTE.findall(page):
        if url.endswith(".json"):
            continue
        response = client.get(url)
        assert response.status_code == 200, url
        assert len(response.content) > 0
        if ".js" in url:
            assert response.headers["content-type"].startswith("text/javascript")
        if ".css" in url:
            assert response.headers["content-type"].startswith("text/css")
        assert response.headers["cache-control"].startswith("public, max-age=")
        assert response.headers["etag"]


def test_the_swagger_ui_bundle_is_the_packaged_one() -> None:
    assets = SwaggerAssets.installed()
    assert assets.available, "swagger-ui-py is a runtime dependency"
    bundle = assets.get("swagger-ui-bundle.js")
    assert bundle is not None and b"SwaggerUIBundle" in bundle.body
    init = assets.get("docs.js")
    assert init is not None and b"validatorUrl: null" in init.body


def test_only_the_listed_assets_are_served(client: TestClient) -> None:
    for name in ("swagger-editor-bundle.js", "..%2F__init__.py", "LICENSE", "index.html"):
        assert client.get(f"/docs/assets/{name}").status_code == 404
    for name in ASSET_TYPES:
        assert client.get(f"/docs/assets/{name}").status_code == 200


def test_docs_say_so_when_the_assets_are_missing(app: Application) -> None:
    missing = SwaggerAssets(None, "0")
    bare = Litestar(route_handlers=operations_handlers(app, Metrics(), assets=missing))
    with TestClient(app=bare) as client:
        response = client.get("/docs")
        assert response.status_code == 503
        assert "/api/v1/openapi.json" in response.text
