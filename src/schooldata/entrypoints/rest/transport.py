"""HTTP helpers of the edge (`edge.py`): scope keys, the query-key screen and refusal, and
header edits over raw ASGI header lists."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl

# Plain ASGI types: this layer sits outside Litestar and wraps any ASGI app.
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Headers a route adds to an answer Litestar writes itself (its automatic OPTIONS answer).
EXTRA_HEADERS_KEY = "schooldata.extra_headers"
QUERY_KEY_NAMES = frozenset({"api_key", "apikey", "key", "access_token", "token"})
QUERY_KEY_REJECTED = "schooldata.query_key_rejected"
# The metrics/access-log route label of an answer given by a layer rather than a route.
ROUTE_LABEL_KEY = "schooldata.route_label"


def carries_key_in_query(query_string: bytes) -> bool:
    if not query_string or not _may_name_a_key(query_string):
        return False
    try:
        pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    except ValueError:
        return False
    return any(name.strip().lower() in QUERY_KEY_NAMES for name, _ in pairs)


def _may_name_a_key(query_string: bytes) -> bool:
    """False only when no parameter name can decode to a key name: a cheap screen in front of
    the full parse, which runs on every request. Names with escapes (`%`, `+`) or containing
    `key`/`token` in any case go to the full parse. Every key name holds a `k`: looking for
    one byte is a memchr, where a substring search costs ~100 us over a 180 KB query.
    (`find`, not `in`: `in` over bytes first tries its operand as an int, raising and
    clearing a TypeError, on every request.)"""
    find = query_string.find
    if find(b"k") < 0 and find(b"K") < 0:
        return find(b"%") >= 0 and _escaped_name(query_string)
    lowered = query_string.lower()
    if lowered.find(b"key") >= 0 or lowered.find(b"token") >= 0:
        return True
    if find(b"%") < 0 and find(b"+") < 0:
        return False
    return _escaped_name(query_string)


def _escaped_name(query_string: bytes) -> bool:
    """Whether a parameter's name (a pair's text before its first `=`) holds `%` or `+`.
    Each escape found is judged by the text between its pair's start and it, then the rest of
    its pair is skipped: every byte is read a bounded number of times, by `find` (memchr).
    (A regular expression costs ~1 us a request here: it tries a match at every byte.)"""
    find = query_string.find
    percent = find(b"%")
    plus = find(b"+")
    start = 0  # where the pair that holds the next escape starts, or before it
    while percent >= 0 or plus >= 0:
        at = plus if percent < 0 or 0 <= plus < percent else percent
        amp = query_string.rfind(b"&", start, at)
        if amp >= 0:
            start = amp + 1
        if find(b"=", start, at) < 0:
            return True  # no `=` before it in its pair: the escape is in the name
        end = find(b"&", at)
        if end < 0:
            return False
        start = end + 1
        if 0 <= percent < start:
            percent = find(b"%", start)
        if 0 <= plus < start:
            plus = find(b"+", start)
    return False


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


def query_key_refusal(
    request_id: str, *, public: bool
) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """The 400 for a key sent in the query string, in the public shape (anonymous, public
    path) or the commercial one."""
    message = (
        "API keys must not be sent in the query string; send "
        "'Authorization: Bearer <key>' instead. Treat the key as exposed and revoke it."
    )
    body: dict[str, Any]
    if public:
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
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
        (b"cache-control", b"no-store"),
    ]
    return 400, headers, payload


def with_head(allow: bytes) -> bytes:
    """An `Allow` value with HEAD after GET, when GET is allowed and HEAD is not named."""
    methods = [m.strip() for m in bytes(allow).decode("latin-1").split(",") if m.strip()]
    upper = [m.upper() for m in methods]
    if "GET" in upper and "HEAD" not in upper:
        methods.insert(upper.index("GET") + 1, "HEAD")
    return ", ".join(methods).encode("latin-1")


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
