"""Cross-origin reads: the public GET answers only, never the credential headers.

Litestar's CORSConfig applies one policy to every route and answers preflights for any method
and header listed; here only the public GETs are readable cross-origin and a preflight that
asks for `Authorization` or `X-API-Key` gets no CORS headers, so the browser refuses it.
"""

from __future__ import annotations

from collections.abc import Sequence

SAFE_REQUEST_HEADERS = frozenset(
    {
        "accept",
        "accept-language",
        "content-language",
        "if-none-match",
        "if-modified-since",
        "cache-control",
        "pragma",
    }
)
EXPOSED_HEADERS = b"ETag, X-Request-Id, Deprecation, Link, X-Data-Source"
METHODS = (b"GET", b"HEAD")
PREFLIGHT_MAX_AGE = 600


def cors_policy(configured: Sequence[str]) -> tuple[str, ...]:
    """The effective policy from `settings.cors_origins`: empty (the default) -> `*`, any
    origin, for the public GETs; `none` -> no CORS at all; else exactly the listed origins."""
    origins = tuple(o.strip().rstrip("/") for o in configured if o.strip())
    if not origins:
        return ("*",)
    if any(o.lower() == "none" for o in origins):
        return ()
    return origins


class Cors:
    def __init__(self, origins: Sequence[str]) -> None:
        self.enabled = bool(origins)
        self.any = "*" in origins
        self._origins = frozenset(o for o in origins if o != "*")

    def allowed(self, origin: bytes | None) -> bytes | None:
        """The `Access-Control-Allow-Origin` value for this origin, or None."""
        if origin is None or not self.enabled:
            return None
        if self.any:
            return b"*"
        return origin if origin.decode("latin-1").rstrip("/") in self._origins else None

    @staticmethod
    def preflight_ok(asked_method: bytes, asked_headers: bytes | None) -> bool:
        if asked_method.strip().upper() not in METHODS:
            return False
        wanted = (asked_headers or b"").decode("latin-1")
        names = {n.strip().lower() for n in wanted.split(",") if n.strip()}
        return names <= SAFE_REQUEST_HEADERS

    def preflight_headers(self, allowed: bytes) -> list[tuple[bytes, bytes]]:
        headers = [
            (b"access-control-allow-origin", allowed),
            (b"access-control-allow-methods", b"GET, HEAD"),
            (b"access-control-allow-headers", ", ".join(sorted(SAFE_REQUEST_HEADERS)).encode()),
            (b"access-control-max-age", str(PREFLIGHT_MAX_AGE).encode()),
            (b"content-length", b"0"),
        ]
        if not self.any:
            headers.append((b"vary", b"Origin"))
        return headers
