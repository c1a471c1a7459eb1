"""Replay: repeat questions about the same data get the answer already computed.

The register changes only when an import lands, so an anonymous answer is a pure function of
the request and the data version. This layer sits inside the transport layer (every answer
still gets its own `X-Request-Id`, query-key refusal, access log line and metrics) and
outside everything that computes an answer (gzip, HTTP caching, CORS, the routes, MCP). It
remembers the finished anonymous answers of the public GET routes and of MCP `tools/call`,
and gives the same bytes back to the same question about the same data version.

What makes two requests "the same question": method, scheme, server, path, raw query string
and every request header except the few that cannot change an answer (`User-Agent`,
`Connection`, `X-Request-Id`, ...); for MCP also the JSON-RPC body with its `id` left out (the replayed answer
carries the new request's `id`, spliced into the recorded bytes).

What is never replayed: requests with credentials (`Authorization`, `X-API-Key`: they are
authenticated, and commercial answers are metered), MCP sessions (`Mcp-Session-Id`), answers
other than 200/304, streamed answers, `no-store` answers, MCP errors and tool errors.

The data version is re-read off the event loop at most every `refresh_seconds` (the same
staleness bound as the snapshot's); while it is unknown (at start, or the store is down) every
request takes the full path, so outages are reported exactly as without this layer.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Final, NamedTuple

import anyio.to_thread
import attrs
from attrs import frozen

from schooldata.application.access import Caller
from schooldata.application.service import Application
from schooldata.domain.metering import MeterReading
from schooldata.entrypoints.rest.errors import COMMERCIAL_TIER_KEY
from schooldata.entrypoints.rest.observability import KEY_PREFIX_KEY
from schooldata.entrypoints.rest.routes import FEATURE_KEY
from schooldata.entrypoints.rest.transport import (
    REQUEST_ID_KEY,
    ASGIApp,
    Message,
    Receive,
    Scope,
    Send,
)
from schooldata.ports.keys import WouldBlock

# Request headers that no layer or route reads: leaving them out of the key lets clients that
# differ only in these share answers.
IGNORED_HEADERS = frozenset(
    {b"user-agent", b"connection", b"keep-alive", b"content-length", b"x-request-id", b"referer"}
)
CREDENTIAL_HEADERS = frozenset({b"authorization", b"x-api-key", b"mcp-session-id"})
REPLAYABLE_STATUSES = frozenset({200, 304})
DEFAULT_MAX_BYTES = 32 * 1024 * 1024
MAX_MCP_BODY_BYTES = 16 * 1024


@frozen
class Answer:
    """A finished answer: status, headers (without Content-Length for spliced bodies), body.

    For MCP, `body` is the part after the JSON-RPC id and `prefix` the part before it."""

    status: int
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes
    route: str | None
    prefix: bytes | None = None
    feature: Any = None  # keyed answers: the feature the gate metered
    tool: str | None = None  # MCP answers: the tool that answered

    @property
    def size(self) -> int:
        return len(self.body) + len(self.prefix or b"") + 64 * len(self.headers) + 256


class AnswerStore:
    """LRU of answers bounded by total bytes; all entries belong to one data version."""

    def __init__(self, max_bytes: int) -> None:
        self._items: OrderedDict[tuple[Any, ...], Answer] = OrderedDict()
        self._bytes = 0
        self._max = max_bytes
        self._lock = threading.Lock()  # the loop, worker threads and the version refresher

    def get(self, key: tuple[Any, ...]) -> Answer | None:
        # Under the lock: keyed lookups run on worker threads while the loop inserts, and an
        # OrderedDict's order is not safe to change from two threads at once.
        with self._lock:
            answer = self._items.get(key)
            if answer is not None:
                self._items.move_to_end(key)
            return answer

    def put(self, key: tuple[Any, ...], answer: Answer) -> None:
        if answer.size > self._max // 8:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old.size
            self._items[key] = answer
            self._bytes += answer.size
            while self._bytes > self._max and self._items:
                _, evicted = self._items.popitem(last=False)
                self._bytes -= evicted.size

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0

    def __len__(self) -> int:
        return len(self._items)


def request_key(
    scope: Scope, *extra: Any, credentials: frozenset[bytes] = CREDENTIAL_HEADERS
) -> tuple[Any, ...] | None:
    """The question a request asks, or None when it carries a header of `credentials` (it
    must never be replayed). The keyed layer passes the session header only: it keys on the
    caller's plan instead of the key."""
    headers = []
    for name, value in scope.get("headers", ()):
        lowered = bytes(name).lower()
        if lowered in credentials:
            return None
        if lowered not in IGNORED_HEADERS and lowered not in CREDENTIAL_HEADERS:
            headers.append((lowered, bytes(value)))
    return _question(scope, headers, *extra)


def _question(scope: Scope, headers: list[tuple[bytes, bytes]], *extra: Any) -> tuple[Any, ...]:
    """The key of a request: everything that can change its answer (headers already chosen)."""
    server = scope.get("server")
    return (
        scope.get("method"),
        scope.get("scheme"),
        tuple(server) if server else None,
        scope.get("root_path", ""),
        scope.get("path"),
        bytes(scope.get("query_string", b"")),
        tuple(headers),
        *extra,
    )


def json_id(value: object) -> bytes | None:
    """The JSON text of a JSON-RPC id when its encoding is unambiguous (ints, plain ASCII)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value).encode()
    if isinstance(value, str) and value.isascii() and value.isprintable():
        if '"' in value or "\\" in value:
            return None
        return b'"' + value.encode() + b'"'
    return None


class VersionWatch:
    """The data version as last read off the event loop (see `current`)."""

    def __init__(self, version: Callable[[], str], *, refresh_seconds: float = 1.0) -> None:
        self._source = version
        self._refresh = refresh_seconds
        self._version: str | None = None
        self._checked_at = float("-inf")
        self._refreshing = False
        self._on_change: list[Callable[[], None]] = []

    def on_change(self, callback: Callable[[], None]) -> None:
        self._on_change.append(callback)

    def current(self) -> str | None:
        """The data version, or None (replay nothing) while it is unknown or overdue: a
        check that has not answered within the refresh interval means the store may be
        hanging, and then requests must find that out on the full path, not be answered
        from memory."""
        age = time.monotonic() - self._checked_at
        if age >= self._refresh and not self._refreshing:
            self._refreshing = True
            asyncio.get_running_loop().run_in_executor(None, self._read)
        if age >= self._refresh * 1.2:
            return None
        return self._version

    def _read(self) -> None:
        try:
            version: str | None = self._source()
        except Exception:  # the store is down: replay nothing until it answers again
            version = None
        if version != self._version:
            for callback in self._on_change:
                callback()
        self._version = version
        self._checked_at = time.monotonic()
        self._refreshing = False


class ReplayLayer:
    def __init__(
        self,
        app: ASGIApp,
        *,
        version: Callable[[], str] | VersionWatch,
        is_replayable_get: Callable[[str], bool],
        mcp_path: str | None = "/mcp",
        max_bytes: int = DEFAULT_MAX_BYTES,
        refresh_seconds: float = 1.0,
        on_mcp_replay: Callable[[str], None] = lambda _tool: None,
    ) -> None:
        """`on_mcp_replay(tool)` hears of every tools/call answered from replay (the MCP face
        counts the ones it computes)."""
        self._app = app
        self._on_mcp_replay = on_mcp_replay
        self._watch = (
            version
            if isinstance(version, VersionWatch)
            else VersionWatch(version, refresh_seconds=refresh_seconds)
        )
        self._is_replayable_get = is_replayable_get
        self._mcp_path = mcp_path
        self._answers = AnswerStore(max_bytes)
        self._watch.on_change(self._answers.clear)
        self._enabled = max_bytes > 0

    def current_version(self) -> str | None:
        return self._watch.current()

    # -- ASGI -----------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._enabled or scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        method = scope.get("method")
        path = str(scope.get("path", ""))
        if method == "GET" and self._is_replayable_get(path):
            await self._replay_get(scope, receive, send)
        elif method == "POST" and path == self._mcp_path:
            await self._replay_mcp(scope, receive, send)
        else:
            await self._app(scope, receive, send)

    async def _replay_get(self, scope: Scope, receive: Receive, send: Send) -> None:
        version = self.current_version()
        key = request_key(scope) if version is not None else None
        if key is None:
            await self._app(scope, receive, send)
            return
        answer = self._answers.get(key)
        if answer is not None:
            await self._send(scope, send, answer, answer.body)
            return
        recorder = Recorder(send)
        await self._app(scope, receive, recorder.send)
        if (recorded := recorder.answer(scope)) is not None and self._watch.current() == version:
            self._answers.put(key, recorded)

    async def _replay_mcp(self, scope: Scope, receive: Receive, send: Send) -> None:
        version = self.current_version()
        if version is None or (base := request_key(scope)) is None:
            await self._app(scope, receive, send)
            return
        messages, complete = await read_body(receive, MAX_MCP_BODY_BYTES)
        replay_receive = replaying(messages, receive)
        if not complete:
            await self._app(scope, replay_receive, send)
            return
        raw = body_of(messages)
        # The common case costs a few byte scans: the body with its id cut out is the question
        # (`IdCut`); a JSON parse happens only when that question is new.
        cuts = IdCut.candidates(raw)
        for cut in cuts:
            answer = self._answers.get((*base, cut.before, cut.after))
            if answer is not None and answer.prefix is not None:
                await self._send_mcp(scope, send, answer, cut.token)
                return
        call = tools_call(raw)
        if call is None:
            await self._app(scope, replay_receive, send)
            return
        request_id, question, tool = call
        proven = next((cut for cut in cuts if cut.is_the_id_of(raw, request_id)), None)
        if proven is not None:
            key: tuple[Any, ...] = (*base, proven.before, proven.after)
        else:
            key = (*base, question)
            answer = self._answers.get(key)
            if answer is not None and answer.prefix is not None:
                await self._send_mcp(scope, send, answer, request_id)
                return
        recorder = Recorder(send)
        await self._app(scope, replay_receive, recorder.send)
        recorded = recorder.answer(scope)
        if recorded is not None and self._watch.current() == version:
            spliced = split_at_id(recorded, request_id)
            if spliced is not None:
                self._answers.put(key, attrs.evolve(spliced, tool=tool))

    async def _send_mcp(self, scope: Scope, send: Send, answer: Answer, request_id: bytes) -> None:
        self._on_mcp_replay(answer.tool or "unknown")
        await self._send(scope, send, answer, (answer.prefix or b"") + request_id + answer.body)

    @staticmethod
    async def _send(scope: Scope, send: Send, answer: Answer, body: bytes) -> None:
        if answer.route is not None:
            scope["path_template"] = answer.route
        headers = list(answer.headers)
        if answer.status != 304:
            headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": answer.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class Recorder:
    """Passes an answer on while keeping a copy of its start and (possibly chunked) body."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._start: Message | None = None
        self._chunks: list[bytes] = []
        self._complete = False
        self._unexpected = False

    async def send(self, message: Message) -> None:
        kind = message["type"]
        if kind == "http.response.start" and self._start is None:
            self._start = message
        elif kind == "http.response.body" and self._start is not None and not self._complete:
            self._chunks.append(bytes(message.get("body", b"")))
            self._complete = not message.get("more_body", False)
        else:  # trailers, pushes, a second start: not an answer this layer understands
            self._unexpected = True
        await self._send(message)

    def answer(self, scope: Scope, *, no_store_ok: bool = False) -> Answer | None:
        start = self._start
        if start is None or not self._complete or self._unexpected:
            return None
        body = b"".join(self._chunks)
        status = int(start["status"])
        if status not in REPLAYABLE_STATUSES:
            return None
        headers = []
        for name, value in start.get("headers", ()):
            lowered = bytes(name).lower()
            no_store = lowered == b"cache-control" and b"no-store" in bytes(value).lower()
            if no_store and not no_store_ok:
                return None
            if lowered not in (b"content-length", b"x-request-id"):
                headers.append((bytes(name), bytes(value)))
        route = scope.get("path_template")
        return Answer(status, tuple(headers), body, None if route is None else str(route))


async def read_body(receive: Receive, limit: int) -> tuple[list[Message], bool]:
    """The request's body messages, up to `limit` bytes; complete=False when it is longer
    (or the client left): the caller then passes everything on unread."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages, False
        size += len(message.get("body", b""))
        if size > limit:
            return messages, False
        if not message.get("more_body", False):
            return messages, True


def replaying(messages: list[Message], receive: Receive) -> Receive:
    """A `receive` that gives back the messages already read, then the rest."""
    pending = list(messages)

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay


def body_of(messages: list[Message]) -> bytes:
    if len(messages) == 1:
        return bytes(messages[0].get("body", b""))
    return b"".join(bytes(m.get("body", b"")) for m in messages)


def tools_call(raw: bytes) -> tuple[bytes, str, str | None] | None:
    """(id as JSON, the call without its id, the tool's name) for a single JSON-RPC
    `tools/call` request."""
    try:
        document = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, or nested too deep: the full path answers
        return None
    if not isinstance(document, dict) or document.get("method") != "tools/call":
        return None
    request_id = json_id(document.pop("id", None))
    if request_id is None or document.get("jsonrpc") != "2.0":
        return None
    params = document.get("params")
    tool = params.get("name") if isinstance(params, dict) else None
    question = json.dumps(document, sort_keys=True, separators=(",", ":"))
    return request_id, question, tool if isinstance(tool, str) else None


# A JSON-RPC id whose bytes are the only way to write it: an integer without sign tricks or
# leading zeros (15 digits at most, exact in any JSON parser), or a string of printable ASCII
# without escapes. Any such token can stand in for any other without changing anything else.
_ID_TOKEN = re.compile(rb'0|-?[1-9][0-9]{0,14}|"[\x20\x21\x23-\x5b\x5d-\x7e]*"')
_ID_MEMBER = re.compile(rb'"id"\s*:\s*')


@frozen
class IdCut:
    """A request body cut around the bytes of its JSON-RPC id: `before + token + after`.

    Clients write the id either near the start or as the last member, so those two places
    are looked at. Finding a token there proves nothing by itself; `is_the_id_of` proves it
    once per question (on the full path), and a later body with the same `before` and
    `after` is then the same question whatever its token."""

    before: bytes
    token: bytes
    after: bytes

    @classmethod
    def candidates(cls, raw: bytes) -> list[IdCut]:
        """The cuts at the last member (`..., "id": 7 }`) and near the start
        (`{"jsonrpc":"2.0","id":7,...`), where there is an id-like token."""
        found = []
        at = raw.rfind(b'"id"')
        if at >= 0 and (cut := cls._at(raw, at, closes=b"}")) is not None:
            found.append(cut)
        at = raw.find(b'"id"', 0, 64)
        if at >= 0 and (cut := cls._at(raw, at, closes=b",")) is not None:
            found.append(cut)
        return found

    @classmethod
    def _at(cls, raw: bytes, at: int, *, closes: bytes) -> IdCut | None:
        """The cut at the `"id"` starting at `at`, when a token follows it and then `closes`."""
        member = _ID_MEMBER.match(raw, at)
        if member is None:
            return None
        token = _ID_TOKEN.match(raw, member.end())
        if token is None:
            return None
        rest = raw[token.end() :]
        if rest.lstrip()[:1] != closes:
            return None
        return cls(raw[: token.start()], token.group(), rest)

    def is_the_id_of(self, raw: bytes, request_id: bytes) -> bool:
        """True when these bytes are the request's effective id: the parsed id is the token,
        and the same body with `null` in its place parses with a null id (so the token is the
        value of the one `id` member that counts, not a lookalike inside some string or
        nested object, nor an earlier duplicate)."""
        if request_id != self.token:
            return False
        try:
            probe = json.loads(self.before + b"null" + self.after)
        except (ValueError, RecursionError):
            return False
        return isinstance(probe, dict) and "id" in probe and probe["id"] is None


def split_at_id(recorded: Answer, request_id: bytes) -> Answer | None:
    """The recorded JSON-RPC answer cut around its id, if it is a successful tool result in
    the SDK's layout (`{"jsonrpc":"2.0","id":<id>,"result":{...}}`); None otherwise."""
    if recorded.status != 200:
        return None
    content_type = next((v for k, v in recorded.headers if k.lower() == b"content-type"), b"")
    if not content_type.lower().startswith(b"application/json"):
        return None
    prefix = b'{"jsonrpc":"2.0","id":'
    head = prefix + request_id + b',"result":'
    if not recorded.body.startswith(head):
        return None
    try:
        document = json.loads(recorded.body)
    except (ValueError, RecursionError):
        return None
    result = document.get("result") if isinstance(document, dict) else None
    if not isinstance(result, dict) or result.get("isError") is True or "error" in document:
        return None
    rest = recorded.body[len(prefix) + len(request_id) :]
    return Answer(recorded.status, recorded.headers, rest, recorded.route, prefix=prefix)


# ---------------------------------------------------------------------------------------------
# Keyed answers: the same question from a caller on the same plan, metered every time.

METER_HEADERS = frozenset(
    {
        b"x-ratelimit-limit",
        b"x-ratelimit-remaining",
        b"x-ratelimit-reset",
        b"x-quota-limit",
        b"x-quota-remaining",
        b"x-quota-reset",
    }
)
SESSION_ONLY = frozenset({b"mcp-session-id"})


class Admission(NamedTuple):
    """A keyed request admitted (a named tuple: one is built on every keyed request)."""

    key: tuple[Any, ...]
    caller: Caller
    answer: Answer | None = None
    headers: tuple[tuple[bytes, bytes], ...] = ()


WOULD_BLOCK: Final = Admission((), None)  # type: ignore[arg-type]
"""`_admit` without waiting could not finish: try again on a worker thread."""


class KeyedReplayLayer:
    """Commercial GET answers, replayed for callers on the same plan: the key is still
    authenticated and the request still entitled, rate-limited and metered on every request
    (the same `Authenticate` and `Meter` as the gate), and the answer carries its own request
    id (in `meta` and the header) and meter headers. Authentication and metering run on the
    event loop when they can without waiting (on SQLite most requests run no statement at
    all: docs/operations.md "Keys and quotas on SQLite"; a quota reservation that would wait
    for another writer gives up, with its rate hit taken back), else on a worker thread that
    waits as the full path would; so this layer is installed only where the key
    store is a local SQLite file or memory (the composition root decides). Anything other than an admitted replay (a bad key, a limit reached, the
    store down, an unknown question) takes the full path, which answers it as always.

    Sits below compression and above HTTP caching/CORS: it keeps identity bodies (the request
    id is spliced into them) and compression applies to replays as to computed answers.
    Answers are keyed by the caller's plan (it decides entitlements and bounds), never by the
    key or organisation, and only answers whose body names the request id exactly once are
    kept."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        application: Application,
        watch: VersionWatch,
        is_candidate: Callable[[str], bool],
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        self._app = app
        self._application = application
        self._watch = watch
        self._is_candidate = is_candidate
        self._answers = AnswerStore(max_bytes)
        watch.on_change(self._answers.clear)
        self._enabled = max_bytes > 0
        # Fixed by the composition root: the stores are local (or not) for the app's life.
        self._on_loop = (
            application.meter.can_admit_without_waiting and application.authenticate.answers_locally
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            not self._enabled
            or scope["type"] != "http"
            or scope.get("method") != "GET"
            or not self._is_candidate(str(scope.get("path", "")))
        ):
            await self._app(scope, receive, send)
            return
        version = self._watch.current()
        keyed = keyed_request(scope) if version is not None else None
        if keyed is None:
            await self._app(scope, receive, send)
            return
        base, authorization, x_api_key = keyed
        # First on the loop, without waiting for anything (a key read does not wait in WAL
        # mode; a quota reservation gives up at once if another writer holds the lock), then, if
        # that would have had to wait, on a worker thread, waiting as long as SQLite allows.
        admission = self._admit(authorization, x_api_key, base, wait=False)
        if admission is WOULD_BLOCK:
            admission = await anyio.to_thread.run_sync(self._admit, authorization, x_api_key, base)
        if admission is not None and admission.answer is not None:
            await self._replay(scope, send, admission)
            return
        if admission is None:
            await self._app(scope, receive, send)
            return
        recorder = Recorder(send)
        await self._app(scope, receive, recorder.send)
        recorded = recorder.answer(scope, no_store_ok=True)
        feature = scope.get(FEATURE_KEY)
        if recorded is None or feature is None or self._watch.current() != version:
            return
        cut = split_at_request_id(recorded, scope.get(REQUEST_ID_KEY), feature)
        if cut is not None:
            self._answers.put(admission.key, cut)

    def _admit(
        self,
        authorization: str | None,
        x_api_key: str | None,
        base: tuple[Any, ...],
        wait: bool = True,
    ) -> Admission | None:
        """The caller and, for a known question, the metered admission. None sends the
        request down the full path (which reports any failure itself); WOULD_BLOCK (only
        with `wait=False`, nothing counted) asks to try again on a worker thread."""
        app = self._application
        if not wait and not self._on_loop:
            return WOULD_BLOCK  # a store across a network is never asked from the loop
        try:
            caller = app.authenticate.execute(authorization=authorization, x_api_key=x_api_key)
        except Exception:
            return None
        if caller is None:
            return None
        key = (*base, caller.plan)
        answer = self._answers.get(key)
        if answer is None or answer.feature is None:
            return Admission(key, caller)
        try:
            if wait:
                reading = app.meter.admit(caller, answer.feature)
            else:
                reading = app.meter.admit_nowait(caller, answer.feature)
        except WouldBlock:
            return WOULD_BLOCK
        except Exception:
            # A limit reached, or the meter down: the full path refuses it the same way
            # (a refused request consumes no quota, so trying twice changes nothing).
            return None
        return Admission(key, caller, answer, meter_headers(reading))

    @staticmethod
    async def _replay(scope: Scope, send: Send, admission: Admission) -> None:
        answer = admission.answer
        if answer is None or answer.prefix is None:  # _admit only admits a replayable answer
            raise RuntimeError("nothing to replay")
        scope[COMMERCIAL_TIER_KEY] = True
        scope[KEY_PREFIX_KEY] = admission.caller.display_prefix
        scope[FEATURE_KEY] = answer.feature
        request_id = str(scope.get(REQUEST_ID_KEY, "")).encode()
        body = answer.prefix + request_id + answer.body
        if answer.route is not None:
            scope["path_template"] = answer.route
        headers = [*answer.headers, *admission.headers]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": answer.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def keyed_request(scope: Scope) -> tuple[tuple[Any, ...], str | None, str | None] | None:
    """(`request_key` of a keyed request, its Authorization, its X-API-Key), in one pass over
    the headers; None without credentials or with an MCP session."""
    headers = []
    authorization = x_api_key = None
    for name, value in scope.get("headers", ()):
        lowered = bytes(name).lower()
        if lowered in IGNORED_HEADERS:
            continue
        if lowered == b"authorization":
            if b"," in value:
                return None  # a comma-joined list of credentials: the full path decides
            text = bytes(value).decode("latin-1")  # (latin-1 keeps any byte)
            if authorization is None:
                authorization = text
            elif text != authorization:
                return None  # two keys in one header: the full path refuses them
        elif lowered == b"x-api-key":
            if b"," in value:
                return None
            text = bytes(value).decode("latin-1")
            if x_api_key is None:
                x_api_key = text
            elif text != x_api_key:
                return None
        elif lowered in SESSION_ONLY:
            return None
        else:
            headers.append((lowered, bytes(value)))
    if authorization is None and x_api_key is None:
        return None
    return _question(scope, headers), authorization, x_api_key


def meter_headers(reading: MeterReading) -> tuple[tuple[bytes, bytes], ...]:
    """`reading.headers()` as raw ASGI headers (lower-case names), without the dict."""
    return (
        (b"x-ratelimit-limit", b"%d" % reading.rate_limit),
        (b"x-ratelimit-remaining", b"%d" % max(0, reading.rate_remaining)),
        (b"x-ratelimit-reset", b"%d" % reading.rate_reset),
        (b"x-quota-limit", b"%d" % reading.quota_limit),
        (b"x-quota-remaining", b"%d" % max(0, reading.quota_remaining)),
        (b"x-quota-reset", b"%d" % reading.quota_reset),
    )


def split_at_request_id(recorded: Answer, request_id: object, feature: object) -> Answer | None:
    """The recorded keyed answer cut around its request id (which must appear exactly once
    in the body), without its meter headers; None when it cannot be replayed."""
    if recorded.status != 200 or not isinstance(request_id, str) or not request_id:
        return None
    marker = request_id.encode()
    if recorded.body.count(marker) != 1:
        return None
    if any(k.lower() == b"content-encoding" for k, _ in recorded.headers):
        return None
    prefix, _, rest = recorded.body.partition(marker)
    headers = tuple((k, v) for k, v in recorded.headers if k.lower() not in METER_HEADERS)
    return Answer(recorded.status, headers, rest, recorded.route, prefix=prefix, feature=feature)
