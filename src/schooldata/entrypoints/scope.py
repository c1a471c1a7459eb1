"""What every HTTP face reads from an ASGI scope the same way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlunsplit

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
# Set by the edge on every HTTP request (X-Request-Id); every face's answers carry it.
REQUEST_ID_KEY = "schooldata.request_id"


def request_id_in(scope: Mapping[str, Any]) -> str:
    return str(scope.get(REQUEST_ID_KEY, ""))


def first_header(scope: Mapping[str, Any], name: bytes) -> str | None:
    """The first value of a request header as sent (`name` lower case), as Litestar's
    `request.headers.get` reads it."""
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def base_url_of(scope: Mapping[str, Any]) -> str:
    """The request's base URL without a trailing slash, as Litestar's `request.base_url`
    derives it: scheme, the Host header (else the server's address), the root path."""
    scheme = str(scope.get("scheme", "http"))
    server = scope.get("server")
    host = None
    for name, value in scope.get("headers", ()):
        if name == b"host":
            host = bytes(value)
            break
    root = str(scope.get("app_root_path") or scope.get("root_path", ""))
    key = (scheme, host, None if server is None else tuple(server), root)
    found = _KNOWN.get(key)
    if found is None:
        found = _base_url(*key)
        if len(_KNOWN) >= MAX_KNOWN:  # a Host header is the client's to choose
            _KNOWN.clear()
        _KNOWN[key] = found
    return found


# A server sees a few base URLs (its host names and ports), each asked on every request.
MAX_KNOWN = 256
_KNOWN: dict[tuple[str, bytes | None, tuple[Any, ...] | None, str], str] = {}


def _base_url(scheme: str, host: bytes | None, server: tuple[Any, ...] | None, root: str) -> str:
    shown = "" if host is None else host.decode("latin-1")
    if server and not shown:
        shown, port = server
        if port != _DEFAULT_PORTS.get(scheme):
            shown = f"{shown}:{port}"
    return urlunsplit((scheme if server else "", shown, root + "/", "", "")).rstrip("/")
