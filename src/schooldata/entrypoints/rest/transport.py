"""The ASGI layers around the routed app: what every response needs, whatever route (or none)
answers.

- `TransportLayer`: every response carries `X-Request-Id` (`req_` + 20 base62), also on 404s for
  unknown routes and on MCP responses, because it wraps the whole app rather than the routed
  handlers. A key in the query string is refused (400 `api_key_in_query`) before anything else
  runs, on every route, public included; such a request's URL is never logged unredacted.
- `CachingLayer`: public GET 200 answers get a strong `ETag` and `Cache-Control: public,
  max-age=...`, and a matching `If-None-Match` gets 304. A request with credentials never gets
  an ETag, and its answer is `no-store`.
- `CompressionLayer`: gzip for compressible bodies of 1 KiB or more when the client accepts it.
- `CorsLayer`: public GETs may be read cross-origin by the configured origins; the credential
  headers (`Authorization`, `X-API-Key`) are never allowed cross-origin.

Composition (outermost first, see `app.create_app`): observability, transport, compression,
caching, CORS, the Litestar app.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from base64 import urlsafe_b64encode
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, MutableMapping, Sequence
from typing import Any
from urllib.parse import parse_qsl

# Plain ASGI types: this layer sits outside Litestar and wraps any ASGI app.
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

REQUEST_ID_KEY = "schooldata.request_id"
# Headers a route adds to an answer Litestar writes itself (its automatic OPTIONS answer).
EXTRA_HEADERS_KEY = "schooldata.extra_headers"
QUERY_KEY_NAMES = frozenset({"api_key", "apikey", "key", "access_token", "token"})
QUERY_KEY_REJECTED = "schooldata.query_key_rejected"
# The metrics/access-log route label of an answer given by a layer rather than a route.
ROUTE_LABEL_KEY = "schooldata.route_label"


def carries_key_in_query(query_string: bytes) -> bool:
    if not _may_name_a_key(query_string):
        return False
    try:
        pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    except ValueError:
        return False
    return any(name.strip().lower() in QUERY_KEY_NAMES for name, _ in pairs)


def _may_name_a_key(query_string: bytes) -> bool:
    """False only when no parameter name can decode to a key name: a cheap screen in front of
    the full parse, which runs on every request. Names with escapes (`%`, `+`) or containing
    `key`/`token` in any case go to the full parse."""
    lowered = query_string.lower()
    if b"key" in lowered or b"token" in lowered:
        return True
    if b"%" not in query_string and b"+" not in query_string:
        return False
    return any(b"%" in name or b"+" in name for name, _, _ in _pairs(query_string))


def _pairs(query_string: bytes) -> list[tuple[bytes, bytes, bytes]]:
    return [pair.partition(b"=") for pair in query_string.split(b"&")]


def has_credentials(scope: Scope) -> bool:
    for name, _ in scope.get("headers", ()):
        if name.lower() in (b"authorization", b"x-api-key"):
            return True
    return False


REQUEST_ID_HEADER = b"x-request-id"


def with_request_id(
    headers: Iterable[tuple[bytes, bytes]], header: tuple[bytes, bytes]
) -> list[tuple[bytes, bytes]]:
    """`headers` with `header` (the request id) last and any other X-Request-Id dropped. Most
    answers carry none, and a name of another length cannot be one, so the common case is a
    length test per header and one copy (every response passes here)."""
    listed = headers if isinstance(headers, list | tuple) else list(headers)
    for name, _ in listed:
        if len(name) == len(REQUEST_ID_HEADER) and bytes(name).lower() == REQUEST_ID_HEADER:
            return [h for h in listed if bytes(h[0]).lower() != REQUEST_ID_HEADER] + [header]
    return [*listed, header]


class TransportLayer:
    def __init__(
        self,
        app: ASGIApp,
        *,
        new_request_id: Callable[[], str],
        is_public_route: Callable[[str], bool],
    ) -> None:
        self._app = app
        self._new_request_id = new_request_id
        self._is_public_route = is_public_route

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        request_id = self._new_request_id()
        scope[REQUEST_ID_KEY] = request_id
        header = (b"x-request-id", request_id.encode())
        if scope.get("method") == "HEAD":
            # HEAD is GET without the body (RFC 9110 9.3.2): every layer and route answers the
            # GET; only the body is dropped here, its headers (Content-Length too) are kept.
            scope["method"] = "GET"
            send = without_body(send)
        elif scope.get("method") == "OPTIONS":
            send = options_answer(scope, send)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = with_request_id(message.get("headers", ()), header)
            await send(message)

        rejected = carries_key_in_query(scope.get("query_string", b""))
        scope[QUERY_KEY_REJECTED] = rejected  # (the access log reads it rather than parse again)
        if rejected:
            scope[ROUTE_LABEL_KEY] = "(api_key_in_query)"
            await self._reject_query_key(scope, send_with_id, request_id)
            return
        await self._app(scope, receive, send_with_id)

    async def _reject_query_key(self, scope: Scope, send: Send, request_id: str) -> None:
        message = (
            "API keys must not be sent in the query string; send "
            "'Authorization: Bearer <key>' instead. Treat the key as exposed and revoke it."
        )
        body: dict[str, Any]
        if self._is_public_route(scope["path"]) and not has_credentials(scope):
            body = {"error": message, "code": "api_key_in_query"}
        else:
            body = {
                "error": {
                    "code": "api_key_in_query",
                    "message": message,
                    "request_id": request_id,
                    "details": {},
                }
            }
        payload = json.dumps(body).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 400,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(payload)).encode()),
                    (b"cache-control", b"no-store"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})


def options_answer(scope: Scope, send: Send) -> Send:
    """`send` for an OPTIONS request: `Allow` names HEAD wherever it names GET (this layer
    answers HEAD for every GET), and a known caller's meter readings are added (left in the
    scope by the route layer, which authenticated the request)."""

    async def options_send(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [
                (name, with_head(value) if bytes(name).lower() == b"allow" else value)
                for name, value in message.get("headers", ())
            ]
            headers.extend(scope.get(EXTRA_HEADERS_KEY, ()))
            message["headers"] = headers
        await send(message)

    return options_send


def with_head(allow: bytes) -> bytes:
    """An `Allow` value with HEAD after GET, when GET is allowed and HEAD is not named."""
    methods = [m.strip() for m in bytes(allow).decode("latin-1").split(",") if m.strip()]
    upper = [m.upper() for m in methods]
    if "GET" in upper and "HEAD" not in upper:
        methods.insert(upper.index("GET") + 1, "HEAD")
    return ", ".join(methods).encode("latin-1")


def without_body(send: Send) -> Send:
    """`send` for a HEAD request: the answer's start as it is, its body as one empty message."""

    async def head_send(message: Message) -> None:
        if message["type"] == "http.response.body":
            if message.get("more_body", False):
                return
            message = {"type": "http.response.body", "body": b"", "more_body": False}
        await send(message)

    return head_send


# --------------------------------------------------------------------------------------------
# Header helpers over raw ASGI header lists.

Headers = list[tuple[bytes, bytes]]


def header_of(headers: Any, name: bytes) -> bytes | None:
    for key, value in headers:
        if key.lower() == name:
            return bytes(value)
    return None


def without_headers(headers: Any, *names: bytes) -> Headers:
    return [(k, v) for k, v in headers if k.lower() not in names]


def with_vary(headers: Headers, value: bytes) -> Headers:
    """Add `value` to `Vary` (once), keeping whatever the response already varied on."""
    current = header_of(headers, b"vary")
    if current is None:
        return [*headers, (b"vary", value)]
    present = {v.strip().lower() for v in current.split(b",")}
    if value.lower() in present or b"*" in present:
        return headers
    return [*without_headers(headers, b"vary"), (b"vary", current + b", " + value)]


def accepts_gzip(scope: Scope) -> bool:
    """`Accept-Encoding` names gzip (or `*`) with a non-zero quality."""
    raw = header_of(scope.get("headers", ()), b"accept-encoding")
    if not raw:
        return False
    quality: dict[str, float] = {}
    for item in raw.decode("latin-1").split(","):
        coding, _, params = item.strip().partition(";")
        q = 1.0
        name, _, value = params.strip().partition("=")
        if name.strip().lower() == "q":
            try:
                q = float(value)
            except ValueError:
                q = 0.0
        quality[coding.strip().lower()] = q
    if "gzip" in quality:
        return quality["gzip"] > 0
    return quality.get("*", 0.0) > 0


COMPRESSIBLE_TYPES = (
    b"text/",
    b"application/json",
    b"application/javascript",
    b"application/openapi+json",
    b"application/problem+json",
    b"application/xml",
    b"image/svg+xml",
)
MINIMUM_COMPRESSED_SIZE = 1024


def compressible(headers: Headers, status: int) -> bool:
    if status < 200 or status in (204, 304) or header_of(headers, b"content-encoding"):
        return False
    if b"no-transform" in (header_of(headers, b"cache-control") or b"").lower():
        return False
    content_type = (header_of(headers, b"content-type") or b"").lower()
    return content_type.startswith(COMPRESSIBLE_TYPES) or b"+json" in content_type


def gzip_bytes(body: bytes) -> bytes:
    """Deterministic gzip (no timestamp), so one body always has one compressed form."""
    return gzip.compress(body, compresslevel=6, mtime=0)


def _sized(headers: Headers, body: bytes) -> Headers:
    return [
        *without_headers(headers, b"content-length"),
        (b"content-length", str(len(body)).encode()),
    ]


# --------------------------------------------------------------------------------------------
# gzip for the rest (commercial answers, metrics, errors...).


class CompressionLayer:
    """gzip a whole (single-message) body of at least `minimum_size` bytes of a compressible
    type when the client accepts gzip. Streamed bodies, already-encoded bodies and the paths
    under `exclude_prefixes` (the MCP endpoint) pass through untouched."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        minimum_size: int = MINIMUM_COMPRESSED_SIZE,
        exclude_prefixes: Sequence[str] = ("/mcp",),
    ) -> None:
        self._app = app
        self._minimum_size = minimum_size
        self._exclude = tuple(exclude_prefixes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or str(scope.get("path", "")).startswith(self._exclude)
            or not accepts_gzip(scope)
        ):
            await self._app(scope, receive, send)
            return
        held: Message | None = None
        decided = False

        async def compressing_send(message: Message) -> None:
            nonlocal held, decided
            if decided:
                await send(message)
                return
            if message["type"] == "http.response.start":
                held = message
                return
            decided = True
            if held is None:
                await send(message)
                return
            headers = list(held.get("headers", []))
            body = bytes(message.get("body", b""))
            if (
                message["type"] == "http.response.body"
                and not message.get("more_body", False)
                and len(body) >= self._minimum_size
                and compressible(headers, int(held["status"]))
            ):
                body = gzip_bytes(body)
                headers = with_vary(_sized(headers, body), b"Accept-Encoding")
                held["headers"] = [*headers, (b"content-encoding", b"gzip")]
                message = {**message, "body": body}
            await send(held)
            await send(message)

        await self._app(scope, receive, compressing_send)


# --------------------------------------------------------------------------------------------
# HTTP caching for the public answers.


def strong_etag(body: bytes) -> str:
    """A strong validator: 128 bits of SHA-256 over the identity body, base64url."""
    return urlsafe_b64encode(hashlib.sha256(body).digest()[:16]).decode().rstrip("=")


def none_match(if_none_match: bytes | None, tags: Sequence[str]) -> bool:
    """True when `If-None-Match` matches one of `tags` (weak comparison, as RFC 9110 says)."""
    if not if_none_match:
        return False
    wanted = {f'"{tag}"' for tag in tags}
    for item in if_none_match.decode("latin-1").split(","):
        candidate = item.strip()
        if candidate == "*":
            return True
        if candidate.startswith("W/"):
            candidate = candidate[2:]
        if candidate in wanted:
            return True
    return False


class _GzipCache:
    """Compressed forms of recent cacheable bodies, by ETag (bounded by total bytes)."""

    def __init__(self, max_bytes: int = 32 * 1024 * 1024) -> None:
        self._items: OrderedDict[str, bytes] = OrderedDict()
        self._bytes = 0
        self._max = max_bytes

    def get(self, tag: str, body: bytes) -> bytes:
        if (hit := self._items.get(tag)) is not None:
            self._items.move_to_end(tag)
            return hit
        compressed = gzip_bytes(body)
        if len(compressed) <= self._max // 4:
            self._items[tag] = compressed
            self._bytes += len(compressed)
            while self._bytes > self._max:
                _, old = self._items.popitem(last=False)
                self._bytes -= len(old)
        return compressed


GZIP_ETAG_SUFFIX = "-gzip"


class CachingLayer:
    """Validators and freshness for anonymous GETs of the paths `max_age_for` names.

    - 200 -> `ETag: "<sha256/128>"` (its gzip form `"<...>-gzip"`: one strong tag per
      representation), `Cache-Control: public, max-age=N` unless the route set its own,
      `Vary: Accept-Encoding, Authorization, X-API-Key` (credentials change the answer); gzip when accepted and the body is 1 KiB or more.
    - `If-None-Match` matching either form -> 304 with the same validators and no body.
    - A request with credentials: never an ETag; its answer is `Cache-Control: no-store`
      unless the route already said (the commercial gate does).
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_age_for: Callable[[str], int | None],
        minimum_size: int = MINIMUM_COMPRESSED_SIZE,
    ) -> None:
        self._app = app
        self._max_age_for = max_age_for
        self._minimum_size = minimum_size
        self._gzip = _GzipCache()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        if has_credentials(scope):
            await self._app(scope, receive, self._no_store(send))
            return
        path = str(scope.get("path", "")).rstrip("/") or "/"
        max_age = self._max_age_for(path) if scope.get("method") == "GET" else None
        if max_age is None:
            await self._app(scope, receive, send)
            return
        held: Message | None = None
        chunks: list[bytes] = []

        async def buffering_send(message: Message) -> None:
            nonlocal held
            if message["type"] == "http.response.start":
                held = message
            elif message["type"] == "http.response.body" and held is not None:
                chunks.append(bytes(message.get("body", b"")))
                if not message.get("more_body", False):
                    await self._answer(scope, send, held, b"".join(chunks), max_age)
            else:  # anything unexpected (an extension's message): stop buffering, pass it on
                if held is not None:
                    await send(held)
                    held = None
                await send(message)

        await self._app(scope, receive, buffering_send)

    async def _answer(
        self, scope: Scope, send: Send, start: Message, body: bytes, max_age: int
    ) -> None:
        status = int(start["status"])
        headers: Headers = list(start.get("headers", []))
        cache_control = (header_of(headers, b"cache-control") or b"").lower()
        if status != 200 or b"no-store" in cache_control or header_of(headers, b"content-encoding"):
            await send({**start, "headers": _sized(headers, body)})
            await send({"type": "http.response.body", "body": body})
            return
        tag = strong_etag(body)
        representation, etag = body, tag
        if (
            len(body) >= self._minimum_size
            and compressible(headers, status)
            and accepts_gzip(scope)
        ):
            representation, etag = self._gzip.get(tag, body), tag + GZIP_ETAG_SUFFIX
            headers.append((b"content-encoding", b"gzip"))
        headers = without_headers(headers, b"etag")
        headers.append((b"etag", f'"{etag}"'.encode()))
        if not cache_control:
            headers.append((b"cache-control", f"public, max-age={max_age}".encode()))
        # The same URL answers differently with credentials (a keyed caller of
        # /api/v1/schools/{urn} gets the commercial profile; a bad key gets 401): a shared
        # cache must not give this anonymous answer to them.
        for varies_on in (b"Accept-Encoding", b"Authorization", b"X-API-Key"):
            headers = with_vary(headers, varies_on)
        request_headers = scope.get("headers", ())
        if none_match(header_of(request_headers, b"if-none-match"), (tag, tag + GZIP_ETAG_SUFFIX)):
            headers = without_headers(
                headers, b"content-length", b"content-type", b"content-encoding"
            )
            await send({"type": "http.response.start", "status": 304, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        await send({**start, "headers": _sized(headers, representation)})
        await send({"type": "http.response.body", "body": representation})

    @staticmethod
    def _no_store(send: Send) -> Send:
        async def no_store_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = without_headers(message.get("headers", []), b"etag")
                if header_of(headers, b"cache-control") is None:
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        return no_store_send


# --------------------------------------------------------------------------------------------
# CORS: public GETs only, never the credential headers.

CORS_SAFE_REQUEST_HEADERS = frozenset(
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
CORS_EXPOSED_HEADERS = b"ETag, X-Request-Id, Deprecation, Link"
CORS_METHODS = (b"GET", b"HEAD")


def cors_policy(configured: Sequence[str]) -> tuple[str, ...]:
    """The effective policy from `settings.cors_origins`: empty (the default) -> `*`, any
    origin, for the public GETs; `none` -> no CORS at all; else exactly the listed origins."""
    origins = tuple(o.strip().rstrip("/") for o in configured if o.strip())
    if not origins:
        return ("*",)
    if any(o.lower() == "none" for o in origins):
        return ()
    return origins


class CorsLayer:
    """Cross-origin reads of the public GET answers (`is_eligible(path)`).

    - A GET/HEAD from an allowed `Origin` without credentials gets
      `Access-Control-Allow-Origin` (the origin, or `*`), exposed `ETag`/`X-Request-Id`, and
      `Vary: Origin` when the policy lists origins. Never `Allow-Credentials`.
    - A preflight (OPTIONS with `Access-Control-Request-Method`) for GET/HEAD on an eligible
      path from an allowed origin, asking only for harmless headers, gets 204 with the CORS
      headers. Anything else (another method, `Authorization`, `X-API-Key`) is left to the
      app, whose answer carries no CORS headers: the browser refuses the cross-origin call.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        origins: Sequence[str],
        is_eligible: Callable[[str], bool],
        max_age: int = 600,
    ) -> None:
        self._app = app
        self._any = "*" in origins
        self._origins = frozenset(o for o in origins if o != "*")
        self._enabled = bool(origins)
        self._is_eligible = is_eligible
        self._max_age = max_age

    def _allow(self, origin: bytes) -> bytes | None:
        if self._any:
            return b"*"
        text = origin.decode("latin-1").rstrip("/")
        return origin if text in self._origins else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self._enabled:
            await self._app(scope, receive, send)
            return
        request_headers = scope.get("headers", ())
        origin = header_of(request_headers, b"origin")
        path = str(scope.get("path", "")).rstrip("/") or "/"
        method = str(scope.get("method", "")).encode()
        eligible = self._is_eligible(path)
        allowed = self._allow(origin) if origin is not None and eligible else None
        asked = header_of(request_headers, b"access-control-request-method")
        if method == b"OPTIONS" and origin is not None and asked is not None:
            if allowed is not None and self._preflight_ok(asked, request_headers):
                await self._preflight(scope, send, allowed)
                return
            await self._app(scope, receive, send)
            return
        if not eligible or method not in CORS_METHODS:
            await self._app(scope, receive, send)
            return
        grant = allowed if allowed is not None and not has_credentials(scope) else None

        async def cors_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers: Headers = list(message.get("headers", []))
                if not self._any:
                    headers = with_vary(headers, b"Origin")
                if grant is not None:
                    headers.append((b"access-control-allow-origin", grant))
                    headers.append((b"access-control-expose-headers", CORS_EXPOSED_HEADERS))
                message["headers"] = headers
            await send(message)

        await self._app(scope, receive, cors_send)

    @staticmethod
    def _preflight_ok(asked: bytes, request_headers: Any) -> bool:
        if asked.strip().upper() not in CORS_METHODS:
            return False
        wanted = header_of(request_headers, b"access-control-request-headers") or b""
        names = {n.strip().lower() for n in wanted.decode("latin-1").split(",") if n.strip()}
        return names <= CORS_SAFE_REQUEST_HEADERS

    async def _preflight(self, scope: Scope, send: Send, allowed: bytes) -> None:
        scope[ROUTE_LABEL_KEY] = "(cors_preflight)"
        headers: Headers = [
            (b"access-control-allow-origin", allowed),
            (b"access-control-allow-methods", b"GET, HEAD"),
            (
                b"access-control-allow-headers",
                ", ".join(sorted(CORS_SAFE_REQUEST_HEADERS)).encode(),
            ),
            (b"access-control-max-age", str(self._max_age).encode()),
            (b"content-length", b"0"),
        ]
        if not self._any:
            headers.append((b"vary", b"Origin"))
        await send({"type": "http.response.start", "status": 204, "headers": headers})
        await send({"type": "http.response.body", "body": b""})
