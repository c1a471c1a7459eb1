"""The SDK transport's header checks a `tools/call` must pass before it is run, judged by the
SDK's own functions and remembered per raw header list: a client sends the same few lists,
differing at most in Content-Length.

Both eras need `Accept` to admit JSON. The 2026-07-28 transport also refuses a routing header
sent twice; the handshake-era transport wants `application/json` itself among the
Content-Type's media types (before its parameters).
"""

from __future__ import annotations

from attrs import frozen
from mcp.server.streamable_http import check_accept_headers
from mcp.shared.inbound import find_duplicated_routing_header
from starlette.requests import Request

MAX_ACCEPTS = 64  # remembered Accept values, each at most MAX_ACCEPT_CHARS long
MAX_ACCEPT_CHARS = 256
MAX_HEADER_LISTS = 256  # remembered raw header lists, each at most MAX_HEADER_BYTES long
MAX_HEADER_BYTES = 4096
JSON_MEDIA = "application/json"


class AcceptsJson:
    """The SDK's Accept check (`check_accept_headers`), remembered per header value: a client
    sends one or two, and the check costs more than the rest of the headers' checks."""

    def __init__(self) -> None:
        self.known: dict[str, bool] = {}

    def __call__(self, accept: str) -> bool:
        known = self.known.get(accept)
        if known is None:
            headers = [(b"accept", accept.encode("latin-1"))]
            known = check_accept_headers(Request({"type": "http", "headers": headers}))[0]
            if len(accept) <= MAX_ACCEPT_CHARS:
                if len(self.known) >= MAX_ACCEPTS:
                    self.known.clear()
                self.known[accept] = known
        return known


@frozen
class SentHeaders:
    """A request's headers as the SDK's checks read them (each name's first value), whether
    they pass each era's header checks, and the serial of the remembered header list they
    were read from (None: not remembered)."""

    first: dict[str, str]
    modern: bool  # Accept admits JSON and no routing header is sent twice
    handshake: bool  # Accept admits JSON and Content-Type names application/json
    serial: int | None = None


class HeaderChecks:
    def __init__(self) -> None:
        self._accepts_json = AcceptsJson()
        self.known: dict[tuple[tuple[bytes, bytes], ...], SentHeaders] = {}
        self._serials = 0  # (never reused, so a verdict kept under one never meets another list)

    def __call__(self, raw: list[tuple[bytes, bytes]]) -> SentHeaders:
        key = tuple(raw)
        found = self.known.get(key)
        if found is not None:
            return found
        if sum(len(name) + len(value) for name, value in raw) > MAX_HEADER_BYTES:
            return self._read(raw, None)
        self._serials += 1
        found = self._read(raw, self._serials)
        if len(self.known) >= MAX_HEADER_LISTS:
            self.known.clear()
        self.known[key] = found
        return found

    def _read(self, raw: list[tuple[bytes, bytes]], serial: int | None) -> SentHeaders:
        # (as Starlette's `Headers.items()` and `dict(request.headers)`: a name's first value)
        items = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in raw]
        first: dict[str, str] = {}
        for name, value in items:
            first.setdefault(name, value)
        accepts = self._accepts_json(first.get("accept", ""))
        modern = accepts and find_duplicated_routing_header(items) is None
        handshake = accepts and names_json(first.get("content-type", ""))
        return SentHeaders(first, modern, handshake, serial)


def names_json(content_type: str) -> bool:
    """The handshake-era transport's Content-Type check (its 415 otherwise)."""
    media = content_type.split(";")[0].split(",")
    return any(part.strip() == JSON_MEDIA for part in media)
