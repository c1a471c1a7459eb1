"""Swagger UI's files for `/docs`, from the installed `swagger-ui-py` distribution: no CDN.

The start-up script is a static file too, so the page's Content-Security-Policy needs no inline
script.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path
from typing import Final

from attrs import frozen

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
