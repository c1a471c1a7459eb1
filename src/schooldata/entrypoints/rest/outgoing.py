"""What every HTTP answer gets on its way out, whatever answered: HTTP caching and content
coding (`representation`), CORS, `Vary`, the request id, and the synthetic-data label.

Public GET 200s get a strong ETag per representation, `Cache-Control: public`, a 304 for a
matching `If-None-Match`; a request with credentials never gets an ETag and is `no-store`;
`X-Data-Source: synthetic-demo` goes on every answer while the data served is the bundled
synthetic demo (decided from the in-memory dataset list, never by I/O on the loop).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

from schooldata.entrypoints.http.route_table import with_head
from schooldata.entrypoints.rest import representation
from schooldata.entrypoints.rest.cors import EXPOSED_HEADERS, Cors
from schooldata.entrypoints.rest.exchange import Exchange

Headers = list[tuple[bytes, bytes]]

CACHE_VARY = (b"Accept-Encoding", b"Authorization", b"X-API-Key")
UNCODED_PREFIXES = ("/mcp",)  # the MCP endpoint's answers go out as the SDK wrote them
SYNTHETIC_HEADER = (b"x-data-source", b"synthetic-demo")


class Outgoing:
    def __init__(self, cors: Cors, synthetic: Callable[[], bool]) -> None:
        self._cors = cors
        self._coded = representation.CodedForms()
        self.synthetic = synthetic

    def represent(
        self,
        ex: Exchange,
        status: int,
        raw: Iterable[tuple[bytes, bytes]],
        body: bytes,
        path: str,
        late: Headers | None,
    ) -> tuple[int, Headers, bytes]:
        """The whole answer as this client gets it: validators, content coding, or a 304.
        `path`: the path the answer was given for (one another layer gave, where it may
        say the MCP endpoint's answers go out as written)."""
        request = ex.request
        headers, found = kept(raw)
        cache_control = found.get(b"cache-control")
        encoded = b"content-encoding" in found
        vary = found.get(b"vary")
        coding = None
        if (
            len(body) >= representation.MINIMUM_SIZE
            and not encoded
            and not path.startswith(UNCODED_PREFIXES)
            and representation.compressible(found.get(b"content-type"), status, cache_control)
        ):
            coding = representation.coding_for(request.accept_encoding)
        max_age = None
        route = request.route
        if (
            route is not None
            and not request.has_credentials
            and status == 200
            and request.routed_method == "GET"
        ):
            max_age = route.cache_max_age
        if (
            max_age is not None
            and not encoded
            and (cache_control is None or cache_control.lower().find(b"no-store") < 0)
        ):
            tag = representation.strong_etag(body)
            shown = representation.tag_of(tag, coding)
            headers.append((b"etag", f'"{shown}"'.encode()))
            if cache_control is None:
                headers.append((b"cache-control", f"public, max-age={max_age}".encode()))
            vary = _varied(vary, CACHE_VARY)
            if representation.none_match(request.if_none_match, (tag, shown)):
                headers = [h for h in headers if bytes(h[0]).lower() not in _ENTITY]
                return 304, self.finish(ex, headers, vary, cache_control, late), b""
            if coding is not None:
                body = self._coded.get(shown, body, coding)
        elif coding is not None:
            body = representation.encode(body, coding)
        if coding is not None:
            headers.append((b"content-encoding", coding.encode()))
            vary = _varied(vary, (b"Accept-Encoding",))
        headers.append((b"content-length", b"%d" % len(body)))
        return status, self.finish(ex, headers, vary, cache_control, late), body

    def finish(
        self,
        ex: Exchange,
        headers: Headers,
        vary: bytes | None = None,
        cache_control: bytes | None = None,
        late: Headers | None = None,
    ) -> Headers:
        """What every answer gets: no-store and no ETag with credentials, CORS, OPTIONS'
        `Allow` and `late` headers, `Vary`, and the request id (replacing any other).
        `headers` are `kept`'s (the app's ETag dropped: the edge tags only answers without
        credentials); `cache_control`: the app's own, if it sent one."""
        request = ex.request
        if request.has_credentials and cache_control is None:
            headers.append((b"cache-control", b"no-store"))
        if ex.cors:
            if self._cors.enabled and not self._cors.any:
                vary = _varied(vary, (b"Origin",))
            if ex.grant is not None:
                headers.append((b"access-control-allow-origin", ex.grant))
                headers.append((b"access-control-expose-headers", EXPOSED_HEADERS))
        if request.options:
            headers = [
                (name, with_head(value) if bytes(name).lower() == b"allow" else value)
                for name, value in headers
            ]
            if late:
                headers.extend(late)
        if vary is not None:
            headers.append((b"vary", vary))
        headers.append(request.id_header)
        if self.synthetic():
            headers.append(SYNTHETIC_HEADER)
        return headers


# Headers the edge sets itself (from what it found), never passed on as the app wrote them.
_OWN = frozenset({b"content-length", b"x-request-id", b"etag", b"vary"})
_ENTITY = frozenset({b"content-length", b"content-type", b"content-encoding"})
_NOTED = frozenset({b"cache-control", b"content-encoding", b"content-type", b"vary"})


def kept(
    raw: Iterable[tuple[bytes, bytes]], *, keep_length: bool = False
) -> tuple[Headers, dict[bytes, bytes]]:
    """The app's headers less the ones the edge sets itself, and the values it decides by."""
    kept: Headers = []
    found: dict[bytes, bytes] = {}
    noted, own = _NOTED, _OWN  # (read once: each is a module global lookup)
    for name, value in raw:
        # Names arrive lowered (ASGI asks it, Litestar and `Reply` do it): lowered again only
        # when not.
        lowered = name if type(name) is bytes and name.islower() else bytes(name).lower()
        if lowered in noted:
            found[lowered] = bytes(value)
        if lowered in own and not (keep_length and lowered == b"content-length"):
            continue
        kept.append((name, value))
    return kept, found


@functools.lru_cache(maxsize=256)  # the values come from the app's own headers: a few
def _varied(vary: bytes | None, names: tuple[bytes, ...]) -> bytes:
    """`vary` with `names` added once each (a `*` already varies on everything)."""
    present = [] if vary is None else [v.strip() for v in vary.split(b",") if v.strip()]
    lowered = {v.lower() for v in present}
    if b"*" in lowered:
        return vary or b"*"
    for name in names:
        if name.lower() not in lowered:
            present.append(name)
            lowered.add(name.lower())
    return b", ".join(present)
