"""What every HTTP face reads from an ASGI scope the same way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlunsplit

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def base_url_of(scope: Mapping[str, Any]) -> str:
    """The request's base URL without a trailing slash, as Litestar's `request.base_url`
    derives it: scheme, the Host header (else the server's address), the root path."""
    scheme = str(scope.get("scheme", "http"))
    server = scope.get("server")
    host = ""
    for name, value in scope.get("headers", ()):
        if name == b"host":
            host = value.decode("latin-1")
            break
    if server and not host:
        host, port = server
        if port != _DEFAULT_PORTS.get(scheme):
            host = f"{host}:{port}"
    root = str(scope.get("app_root_path") or scope.get("root_path", ""))
    return urlunsplit((scheme if server else "", host, root + "/", "", "")).rstrip("/")
