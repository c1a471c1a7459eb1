"""The one ASGI layer in front of everything HTTP: it reads each request once and sends
every answer, whoever gave it.

The request is read once into an `HttpRequest` (`entrypoints/http/request.py`), its path
matched in the one route table; the route answers (`routes.py`), else the mounted endpoint
at that very path (MCP), else Litestar (its pages, the OpenAPI document, unknown paths). In
one pass over the request and one over the answer (each nested layer costs every request a
frame and a send wrapper, so they are not stacked):
- a request id (`req_` + 20 base62) on every answer, also Litestar's own 404s and MCP's;
- a request that names a host this server does not answer to refused (421), one whose `Host`
  or request target is malformed refused (400), before anything is built from them
  (`entrypoints/hosts.py`: absolute URLs come from the base URL or the vetted `Host`);
- a key in the query string refused (400 `api_key_in_query`) before anything else runs;
- a request body in a coding the service does not decode refused (415);
- a request body that has not all arrived within the body timeout cut (`body_deadline`): 408
  where an answer can still be sent, then the connection closed;
- HEAD answered as GET without the body; OPTIONS' `Allow` names HEAD beside GET;
- CORS for the public GETs (`cors`); HTTP caching, content coding, `Vary` and the synthetic
  data label (`outgoing`);
- one access-log line and the request metrics when the answer is done, with the tier, route
  and caller the route's `Answer` names.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from typing import Any

from schooldata.application.about import About
from schooldata.entrypoints import hosts
from schooldata.entrypoints.http import early
from schooldata.entrypoints.http.answer import COMMERCIAL, PUBLIC, Answer
from schooldata.entrypoints.http.request import REQUEST_KEY, HttpRequest, read, request_of
from schooldata.entrypoints.http.route_table import RouteTable
from schooldata.entrypoints.observability.access import AccessLog
from schooldata.entrypoints.observability.metrics import Metrics
from schooldata.entrypoints.rest import operation_paths
from schooldata.entrypoints.rest.body_deadline import BodyDeadlines
from schooldata.entrypoints.rest.cors import Cors
from schooldata.entrypoints.rest.errors import error_answer
from schooldata.entrypoints.rest.exchange import Exchange
from schooldata.entrypoints.rest.outgoing import SYNTHETIC_HEADER, Outgoing, kept
from schooldata.entrypoints.rest.routes import Routes
from schooldata.entrypoints.rest.transport import carries_key_in_query, query_key_refusal

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
Headers = list[tuple[bytes, bytes]]

UNMATCHED_ROUTE = "(unmatched)"


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
        self._deadlines = BodyDeadlines(body_timeout_seconds)
        self._new_request_id = new_request_id
        self._metrics = metrics
        self._cors = cors
        self._access = access or AccessLog()
        self._out = Outgoing(cors, synthetic)

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
        exchange = Exchange(request)
        self._metrics.request_started()
        try:
            await self._answer(scope, receive, send, exchange)
        finally:  # (the request recorded also ends its count in progress)
            self._record(scope, exchange, time.perf_counter() - started)

    async def _answer(self, scope: Scope, receive: Receive, send: Send, ex: Exchange) -> None:
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
        if not request.body_expected:
            await self._routed(scope, receive, send, ex)
            return

        async def answer(bounded: Receive) -> None:
            await self._routed(scope, bounded, send, ex)

        await self._deadlines.run(ex, receive, answer)
        if ex.timed_out and not ex.started:
            ex.answer, ex.label = None, "(body_timeout)"
            seconds = self._deadlines.seconds
            message = f"The request body did not arrive within {seconds:g} seconds."
            await self._refuse(send, ex, 408, "request_timeout", message, close=True)

    async def _routed(self, scope: Scope, receive: Receive, send: Send, ex: Exchange) -> None:
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
        ex: Exchange,
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

    def _sender(self, scope: Scope, send: Send, ex: Exchange) -> Send:
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
                passed, found = kept(held.get("headers", ()), keep_length=True)
                vary = found.get(b"vary")
                headers = self._out.finish(ex, passed, vary, found.get(b"cache-control"))
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

    async def _send_answer(self, send: Send, ex: Exchange, answer: Answer) -> None:
        await self._deliver(send, ex, answer.status, answer.headers, answer.body, "", answer.late)

    async def _deliver(
        self,
        send: Send,
        ex: Exchange,
        status: int,
        raw: Iterable[tuple[bytes, bytes]],
        body: bytes,
        path: str,
        late: Headers | None = None,
    ) -> None:
        status, headers, body = self._out.represent(ex, status, raw, body, path, late)
        ex.status, ex.size = status, len(body)
        ex.started = True
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if ex.request.head else body})

    async def _reply(
        self, send: Send, ex: Exchange, status: int, headers: Headers, body: bytes
    ) -> None:
        ex.status, ex.size = status, len(body)
        headers = [*headers, ex.request.id_header]
        if self._out.synthetic():
            headers.append(SYNTHETIC_HEADER)
        ex.started = True
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if ex.request.head else body})

    def _public_errors(self, request: HttpRequest) -> bool:
        """Whether the edge refuses this request in the public shape: no credentials, and a
        public or operational address, or one nothing serves (no tier's)."""
        credentials = request.has_credentials
        if request.route is not None:
            return request.route.public_errors(credentials)
        path = request.path.rstrip("/") or "/"
        return not credentials and path != operation_paths.MCP_PATH and path not in self._mounted

    def _tier(self, ex: Exchange) -> str:
        request = ex.request
        if ex.answer is not None and ex.answer.tier is not None:
            return ex.answer.tier
        if ex.query_key:  # the edge answered in the shape it chose
            return PUBLIC if self._public_errors(request) else COMMERCIAL
        route = request.route
        if request.has_credentials and (route is None or not route.public_only):
            return COMMERCIAL  # e.g. a keyed MCP call, or a keyed call to an unknown route
        return PUBLIC

    def _record(self, scope: Scope, ex: Exchange, seconds: float) -> None:
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
