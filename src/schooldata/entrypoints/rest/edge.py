"""The one ASGI layer around the routed app: what every HTTP answer needs, whatever answers.

In one pass over the request and one over the answer (each nested layer costs every request
a frame and a send wrapper, so they are not stacked). Not Litestar's middleware and configs:
the registry's GETs (`dispatch`) and MCP's direct road answer before Litestar runs, and every
answer needs the same request id, CORS and validators whichever road it took:
- a request id (`req_` + 20 base62) on every answer, also Litestar's own 404s and MCP's;
- a request that names a host this server does not answer to refused (421), one whose `Host`
  or request target is malformed refused (400), before anything is built from them
  (`entrypoints/hosts.py`: absolute URLs come from the base URL or the vetted `Host`);
- a key in the query string refused (400 `api_key_in_query`) before anything else runs;
- a request body in a coding the service does not decode refused (415);
- a request body that has not all arrived within the body timeout cut: 408 where an answer
  can still be sent, then the connection closed (the server offers no such bound: granian
  times only the request head, so a body that never finishes held its connection for ever);
- HEAD answered as GET without the body; OPTIONS' `Allow` names HEAD beside GET;
- CORS for the public GETs (`cors`); HTTP caching and content coding (`representation`):
  public GET 200s get a strong ETag per representation, `Cache-Control: public`, a 304 for a
  matching `If-None-Match`; a request with credentials never gets an ETag and is `no-store`;
- `X-Data-Source: synthetic-demo` on every answer while the data served is the bundled
  synthetic demo (decided from the in-memory dataset list, never by I/O on the loop);
- one access-log line and the request metrics when the answer is done.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from typing import Any

from schooldata.application.about import About
from schooldata.entrypoints import hosts
from schooldata.entrypoints.http import early
from schooldata.entrypoints.http.answer import COMMERCIAL, PUBLIC, Answer
from schooldata.entrypoints.http.request import REQUEST_KEY, HttpRequest, read, request_of
from schooldata.entrypoints.http.route_table import RouteTable, with_head
from schooldata.entrypoints.observability.access import AccessLog
from schooldata.entrypoints.observability.metrics import Metrics
from schooldata.entrypoints.rest import operation_paths, representation
from schooldata.entrypoints.rest.cors import EXPOSED_HEADERS, Cors
from schooldata.entrypoints.rest.errors import error_answer
from schooldata.entrypoints.rest.routes import Routes
from schooldata.entrypoints.rest.transport import carries_key_in_query, query_key_refusal

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
Headers = list[tuple[bytes, bytes]]

UNMATCHED_ROUTE = "(unmatched)"
CACHE_VARY = (b"Accept-Encoding", b"Authorization", b"X-API-Key")
UNCODED_PREFIXES = ("/mcp",)  # the MCP endpoint's answers go out as the SDK wrote them
SYNTHETIC_HEADER = (b"x-data-source", b"synthetic-demo")


class _Exchange:
    """What the edge saw of one request's answer (the request itself is `HttpRequest`)."""

    __slots__ = (
        "answer",
        "cors",
        "grant",
        "label",
        "query_key",
        "request",
        "size",
        "started",
        "status",
        "timed_out",
    )

    def __init__(self, request: HttpRequest) -> None:
        self.request = request
        self.started = False  # the answer's start has gone to the server
        self.timed_out = False  # its body did not arrive within the body timeout
        self.cors = False  # a CORS-eligible read (its answers vary on Origin)
        self.grant: bytes | None = None  # the Access-Control-Allow-Origin to send
        self.status = 500
        self.size = 0
        self.answer: Answer | None = None  # what a route answered
        self.label: str | None = None  # the route label of an answer the edge gave
        self.query_key = False  # refused for a key in the query string


class HttpEdge:
    def __init__(
        self,
        app: ASGIApp,
        *,
        routes: Routes,
        table: RouteTable,
        new_request_id: Callable[[], str],
        metrics: Metrics,
        cors: Cors,
        mounted: Mapping[str, ASGIApp] | None = None,
        access: AccessLog | None = None,
        synthetic: Callable[[], bool] = lambda: False,
        allowed_hosts: hosts.HostPolicy = hosts.LOOPBACK,
        body_timeout_seconds: float = 10.0,
    ) -> None:
        """`app`: Litestar, for what no route answers; `mounted`: other faces' endpoints by
        exact path (MCP); `synthetic()`: whether the data served now is the synthetic demo,
        without waiting (`labels_synthetic_data`); `allowed_hosts`: the hosts requests may
        name; `body_timeout_seconds`: how long a request's whole body may take to arrive."""
        self._app = app
        self._routes = routes
        self._table = table
        self._mounted = dict(mounted or {})
        self._hosts = allowed_hosts
        self._body_seconds = body_timeout_seconds
        # Bodies being awaited, oldest first, and the sweep that expires them (none while
        # no body is awaited).
        self._awaiting: dict[_BodyWait, None] = {}
        self._sweeper: asyncio.TimerHandle | None = None
        self._new_request_id = new_request_id
        self._metrics = metrics
        self._cors = cors
        self._access = access or AccessLog()
        self._coded = representation.CodedForms()
        self._synthetic = synthetic

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            lifespan = scope["type"] == "lifespan"
            await self._app(scope, receive, self._draining(send) if lifespan else send)
            return
        started = time.perf_counter()
        request = read(scope, self._new_request_id(), self._table)
        scope[REQUEST_KEY] = request
        if request.head:
            scope["method"] = "GET"  # HEAD is GET without the body (RFC 9110 9.3.2)
        exchange = _Exchange(request)
        self._metrics.request_started()
        try:
            await self._answer(scope, receive, send, exchange)
        finally:  # (the request recorded also ends its count in progress)
            self._record(scope, exchange, time.perf_counter() - started)

    async def _answer(self, scope: Scope, receive: Receive, send: Send, ex: _Exchange) -> None:
        request = ex.request
        if (refused := self._unreadable(request)) is not None:
            label, status, code, message = refused
            ex.label = label
            await self._refuse(send, ex, status, code, message)
            return
        if carries_key_in_query(request.query):
            ex.label, ex.query_key = "(api_key_in_query)", True
            public = self._public_errors(request)
            status, headers, body = query_key_refusal(request.id, public=public)
            await self._reply(send, ex, status, headers, body)
            return
        if request.codings and _encoded(request.codings):
            ex.label = "(content_encoding)"
            message = (
                "Request bodies are read as sent: this service decodes no Content-Encoding. "
                "Send the body uncompressed."
            )
            extra = [(b"accept-encoding", b"identity")]
            await self._refuse(send, ex, 415, "unsupported_content_encoding", message, extra)
            return
        route = request.route
        readable = route is not None and route.readable
        allowed = self._cors.allowed(request.origin) if readable else None
        if request.options and request.origin is not None and request.acr_method is not None:
            asked = request.acr_method
            if allowed is not None and Cors.preflight_ok(asked, request.acr_headers):
                ex.label = "(cors_preflight)"
                await self._reply(send, ex, 204, self._cors.preflight_headers(allowed), b"")
                return
        elif readable and request.routed_method == "GET":
            ex.cors = True
            ex.grant = None if request.has_credentials else allowed
        if request.body_expected:
            await self._with_body_deadline(scope, receive, send, ex)
            return
        await self._routed(scope, receive, send, ex)

    async def _routed(self, scope: Scope, receive: Receive, send: Send, ex: _Exchange) -> None:
        """The route's answer; else the mounted endpoint at this very path; else Litestar."""
        request = ex.request
        if request.route is not None:
            scope["path_template"] = request.route.template  # (a tracing span's name)
            answer = await self._routes.serve(request, receive)
            if answer is not None:
                ex.answer = answer
                if not (ex.timed_out and not ex.started):
                    await self._send_answer(send, ex, answer)
                return
        sender = self._sender(scope, send, ex)
        if (endpoint := self._mounted.get(request.path)) is not None:
            scope["path_template"] = request.path
            await _handed(endpoint, scope, receive, sender)
            return
        await self._app(scope, receive, sender)

    async def _with_body_deadline(
        self, scope: Scope, receive: Receive, send: Send, ex: _Exchange
    ) -> None:
        """The request answered reading a body that must all arrive within the body timeout
        of the request head. Past it, the next read is told the client went away (a read
        waiting then is woken to be told so), whatever is answered then is dropped, and the
        client gets 408 in its tier's shape (unless an answer had already started), with
        `Connection: close`: the rest of the body is never read. No timer of its own: the
        edge's sweep (`_sweep`) looks at the bodies still awaited twice a second."""
        loop = asyncio.get_running_loop()
        wait = _BodyWait(loop.time() + self._body_seconds, asyncio.current_task(), ex)
        awaiting = self._awaiting
        awaiting[wait] = None
        if self._sweeper is None:
            self._sweeper = loop.call_later(SWEEP_SECONDS, self._sweep, loop)

        async def bounded_receive() -> Message:
            if wait.whole:
                return await receive()
            if ex.timed_out:
                return {"type": "http.disconnect"}
            wait.reading = True
            try:
                message = await receive()
            except asyncio.CancelledError as cancelled:
                if cancelled.args == (_BODY_TIMEOUT,) and wait.woken():
                    return {"type": "http.disconnect"}
                raise
            finally:
                wait.reading = False
            if message.get("type") != "http.request" or not message.get("more_body", False):
                wait.whole = True
                awaiting.pop(wait, None)
            return message

        try:
            await self._routed(scope, bounded_receive, send, ex)
        except Exception:
            if not ex.timed_out:
                raise
        finally:
            awaiting.pop(wait, None)
        if ex.timed_out and not ex.started:
            ex.answer, ex.label = None, "(body_timeout)"
            message = f"The request body did not arrive within {self._body_seconds:g} seconds."
            await self._refuse(send, ex, 408, "request_timeout", message, close=True)

    def _sweep(self, loop: asyncio.AbstractEventLoop) -> None:
        """Expire the bodies awaited past their time (all share one timeout, so the oldest
        come first), and look again in SWEEP_SECONDS while any is awaited."""
        now = loop.time()
        awaiting = self._awaiting
        while awaiting:
            wait = next(iter(awaiting))
            if wait.deadline > now:
                break
            del awaiting[wait]
            wait.expire()
        self._sweeper = loop.call_later(SWEEP_SECONDS, self._sweep, loop) if awaiting else None

    def _unreadable(self, request: HttpRequest) -> tuple[str, int, str, str] | None:
        """(route label, status, code, message) for a request this server must not read: a
        `Host` it does not answer to, or that is no host, or a target that is no path."""
        verdict = self._hosts.judge(request.hosts, required=request.http11)
        if verdict == hosts.MALFORMED:
            message = "The Host header must name one host, with a port of digits if any."
            return "(bad_host)", 400, "invalid_request", message
        if verdict == hosts.FOREIGN:
            message = (
                "This server does not answer to that host (see SCHOOLDATA_ALLOWED_HOSTS and "
                "SCHOOLDATA_BASE_URL)."
            )
            return "(misdirected)", 421, "misdirected_request", message
        if not request.path.startswith("/"):
            message = "The request target must be a path beginning with '/'."
            return "(bad_target)", 400, "invalid_request", message
        return None

    async def _refuse(
        self,
        send: Send,
        ex: _Exchange,
        status: int,
        code: str,
        message: str,
        extra: Headers | None = None,
        *,
        close: bool = False,
    ) -> None:
        """A refusal before any face ran, in the tier's error shape (`http/early`)."""
        request = ex.request
        if request.path == operation_paths.MCP_PATH:
            shape = "mcp"
        elif self._public_errors(request):
            shape = "public"
        else:
            shape = "commercial"
        status, headers, body = early.refusal(
            status, code, message, request_id=request.id, shape=shape, close=close
        )
        await self._reply(send, ex, status, [*headers, *(extra or ())], body)

    def _draining(self, send: Send) -> Send:
        """The lifespan's `send`: the access log's waiting lines and the metrics' waiting
        values are written as the server shuts down."""

        async def lifespan_send(message: Message) -> None:
            if str(message.get("type", "")).startswith("lifespan.shutdown"):
                self._access.drain()
                self._metrics.write_waiting()
            await send(message)

        return lifespan_send

    def _sender(self, scope: Scope, send: Send, ex: _Exchange) -> Send:
        """The `send` of an answer another layer writes (Litestar, a mounted endpoint)."""
        held: Message | None = None
        streaming = False

        async def edge_send(message: Message) -> None:
            nonlocal held, streaming
            if ex.timed_out and not ex.started:
                return  # an answer to a body that never came: the edge answers 408 instead
            if message["type"] == "http.response.start":
                held = message
                ex.status = int(message["status"])
                return
            if message["type"] != "http.response.body" or held is None:
                await send(message)
                return
            body = bytes(message.get("body", b""))
            more = bool(message.get("more_body", False))
            if not streaming and more:  # a streamed answer: headers now, the body as it comes
                streaming = True
                kept, found = _kept(held.get("headers", ()), keep_length=True)
                vary = found.get(b"vary")
                headers = self._finish(ex, kept, vary, found.get(b"cache-control"))
                ex.started = True
                await send({**held, "headers": headers})
            if streaming:
                ex.size += len(body)
                await send({**message, "body": b""} if ex.request.head else message)
                return
            path = str(scope.get("path", ""))
            status = int(held["status"])
            await self._deliver(send, ex, status, held.get("headers", ()), body, path)

        return edge_send

    async def _send_answer(self, send: Send, ex: _Exchange, answer: Answer) -> None:
        await self._deliver(send, ex, answer.status, answer.headers, answer.body, "", answer.late)

    async def _deliver(
        self,
        send: Send,
        ex: _Exchange,
        status: int,
        raw: Iterable[tuple[bytes, bytes]],
        body: bytes,
        path: str,
        late: Headers | None = None,
    ) -> None:
        status, headers, body = self._represent(ex, status, raw, body, path, late)
        ex.status, ex.size = status, len(body)
        ex.started = True
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if ex.request.head else body})

    async def _reply(
        self, send: Send, ex: _Exchange, status: int, headers: Headers, body: bytes
    ) -> None:
        ex.status, ex.size = status, len(body)
        headers = [*headers, ex.request.id_header]
        if self._synthetic():
            headers.append(SYNTHETIC_HEADER)
        ex.started = True
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if ex.request.head else body})

    def _represent(
        self,
        ex: _Exchange,
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
        headers, found = _kept(raw)
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
                return 304, self._finish(ex, headers, vary, cache_control, late), b""
            if coding is not None:
                body = self._coded.get(shown, body, coding)
        elif coding is not None:
            body = representation.encode(body, coding)
        if coding is not None:
            headers.append((b"content-encoding", coding.encode()))
            vary = _varied(vary, (b"Accept-Encoding",))
        headers.append((b"content-length", b"%d" % len(body)))
        return status, self._finish(ex, headers, vary, cache_control, late), body

    def _finish(
        self,
        ex: _Exchange,
        headers: Headers,
        vary: bytes | None = None,
        cache_control: bytes | None = None,
        late: Headers | None = None,
    ) -> Headers:
        """What every answer gets: no-store and no ETag with credentials, CORS, OPTIONS'
        `Allow` and `late` headers, `Vary`, and the request id (replacing any other).
        `headers` are `_kept`'s (the app's ETag dropped: the edge tags only answers without
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
        if self._synthetic():
            headers.append(SYNTHETIC_HEADER)
        return headers

    def _public_errors(self, request: HttpRequest) -> bool:
        """Whether the edge refuses this request in the public shape: no credentials, and a
        public or operational address, or one nothing serves (no tier's)."""
        credentials = request.has_credentials
        if request.route is not None:
            return request.route.public_errors(credentials)
        path = request.path.rstrip("/") or "/"
        return not credentials and path != operation_paths.MCP_PATH and path not in self._mounted

    def _tier(self, ex: _Exchange) -> str:
        request = ex.request
        if ex.answer is not None and ex.answer.tier is not None:
            return ex.answer.tier
        if ex.query_key:  # the edge answered in the shape it chose
            return PUBLIC if self._public_errors(request) else COMMERCIAL
        route = request.route
        if request.has_credentials and (route is None or not route.public_only):
            return COMMERCIAL  # e.g. a keyed MCP call, or a keyed call to an unknown route
        return PUBLIC

    def _record(self, scope: Scope, ex: _Exchange, seconds: float) -> None:
        request = ex.request
        answer = ex.answer
        route = (
            (answer.route if answer is not None else None)
            or ex.label
            or scope.get("path_template")
            or UNMATCHED_ROUTE
        )
        tier = self._tier(ex)
        method = request.method
        self._metrics.http_request(
            route=str(route),
            method=method,
            status=ex.status,
            tier=tier,
            seconds=seconds,
            finished=True,
        )
        self._access.request(
            request_id=request.id,
            tier=tier,
            route=str(route),
            method=method,
            path=request.path,
            status=ex.status,
            seconds=seconds,
            size=ex.size,
            query=None if ex.query_key else request.query,
            key_prefix=None if answer is None else answer.key_prefix,
        )


# The cancellation message of a read woken because its body's time ran out.
_BODY_TIMEOUT = "schooldata: request body timed out"
SWEEP_SECONDS = 0.5  # how often the awaited bodies are looked at: the timeout's precision


class _BodyWait:
    """One request whose body is awaited: until when, who reads it, and how far it got."""

    __slots__ = ("deadline", "reading", "request", "task", "whole")

    def __init__(self, deadline: float, task: asyncio.Task[Any] | None, request: _Exchange) -> None:
        self.deadline = deadline
        self.task = task
        self.request = request
        self.whole = False  # the body has all arrived
        self.reading = False  # a read is waiting on the server now

    def expire(self) -> None:
        """The time ran out: the request is marked, and a read waiting now is woken."""
        if self.whole:
            return
        self.request.timed_out = True
        if self.reading and self.task is not None:
            self.task.cancel(_BODY_TIMEOUT)

    def woken(self) -> bool:
        """Whether a cancelled read was woken by `expire` (then the cancellation is taken
        back and the read told the client went away), not cancelled from outside."""
        if not self.request.timed_out or self.task is None:
            return False
        self.task.uncancel()
        return True


# Headers the edge sets itself (from what it found), never passed on as the app wrote them.
_OWN = frozenset({b"content-length", b"x-request-id", b"etag", b"vary"})
_ENTITY = frozenset({b"content-length", b"content-type", b"content-encoding"})
_NOTED = frozenset({b"cache-control", b"content-encoding", b"content-type", b"vary"})


def _kept(
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


def _encoded(codings: list[bytes]) -> bool:
    """Whether any `Content-Encoding` names a coding other than identity (none decoded)."""
    for value in codings:
        for coding in value.split(b","):
            if coding.strip().lower() not in (b"", b"identity"):
                return True
    return False


async def _handed(endpoint: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
    """A mounted endpoint run as Litestar's `@asgi(copy_scope=True)` route runs it: on a
    copy of the scope, and an error before the answer started answered as Litestar's
    exception handler would."""
    started = False

    async def watched(message: Message) -> None:
        nonlocal started
        started = True
        await send(message)

    try:
        await endpoint(dict(scope), receive, watched)
    except Exception as error:
        if started:
            raise
        status, headers, body = error_answer(request_of(scope), error)
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def labels_synthetic_data(about: About) -> Callable[[], bool]:
    """Whether the data served is the synthetic demo, asked as an answer goes out (on the
    event loop): from the in-memory dataset list, or False when that list cannot be read now
    without waiting (not built yet, or the store is failing: such answers are not the
    demo's data). A label is never worth a failed answer, so nothing it raises escapes."""

    def synthetic() -> bool:
        try:
            return about.serves_synthetic_data(wait=False)
        except Exception:
            return False

    return synthetic
