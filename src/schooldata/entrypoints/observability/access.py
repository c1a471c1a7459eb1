"""The access log: one line per HTTP request (`schooldata.access`), never a key."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import threading
import time
import weakref
from typing import Any

from mypy_extensions import mypyc_attr

from schooldata.entrypoints.observability.logs import (
    JsonFormatter,
    cap_strings,
    capped,
    json_entry,
    json_line,
    timestamp,
)
from schooldata.entrypoints.observability.request_line import RequestLine

ACCESS_LOGGER = "schooldata.access"
# How long a line may wait to be written with others, and how much may wait.
FLUSH_SECONDS = 0.05
STALE_SECONDS = 1.0  # a scheduled drain this late never ran (its loop closed)
MAX_WAITING_CHARS = 64 * 1024


def milliseconds(seconds: float) -> float:
    """A latency in milliseconds to the hundredth: `round(ms, 2)`'s value but where the
    product's own rounding falls on a half, at a third of its cost (`round` to a whole number
    skips the decimal conversion `round(x, 2)` makes)."""
    return round(seconds * 100_000) / 100


# Not a compiled (native) class: `_LOGS` holds it by a weak reference.
@mypyc_attr(native_class=False)
class AccessLog:
    """Writes access-log entries to `schooldata.access`.

    When that logger is configured as `configure_logging` leaves it (no handlers of its own,
    propagating to exactly one root StreamHandler with the JSON formatter, no filters), the
    line the formatter would write is written straight to that handler's stream, under the
    handler's lock, skipping the LogRecord and the handler chain: it runs on every request.
    Any other configuration (a text format, a test's capturing handler, filters) takes the
    standard `logging` path, so the lines are the same either way.

    On an event loop the direct lines are written together at most `FLUSH_SECONDS` later (as
    nginx's `access_log ... buffer= flush=`): one write and flush for every line of that
    time, not one each. `drain()` writes what waits at once; the edge calls it when the
    server shuts down (lifespan), and so does the interpreter at exit."""

    def __init__(self, name: str = ACCESS_LOGGER) -> None:
        self._logger = logging.getLogger(name)
        self._lock = threading.Lock()
        self._waiting: list[str] = []
        self._waiting_size = 0
        self._waiting_for: logging.StreamHandler[Any] | None = None
        self._due = 0.0  # when the scheduled drain should have run
        _LOGS.add(self)

    def request(
        self,
        *,
        request_id: object,
        tier: str,
        route: str,
        method: str,
        path: str,
        status: int,
        seconds: float,
        size: int,
        query: bytes | None,
        key_prefix: object,
    ) -> None:
        """One request's line, never a key (the edge leaves out whole a query string that
        names one). Written directly it is one Struct encoded, not a dict built and merged:
        every request writes one. Only the values a client chooses (method, path, query) can
        be long enough to cap."""
        logger = self._logger
        if not logger.isEnabledFor(logging.INFO):
            return
        sent = query.decode("latin-1") if query else None
        latency_ms = milliseconds(seconds)
        handler = self._direct_handler()
        if handler is None:
            entry: dict[str, Any] = {
                "request_id": request_id,
                "tier": tier,
                "route": route,
                "method": method,
                "path": path,
                "status": status,
                "latency_ms": latency_ms,
                "bytes": size,
            }
            if sent is not None:
                entry["query"] = sent
            if key_prefix is not None:
                entry["key_prefix"] = key_prefix
            self.write(entry)
            return
        line = RequestLine(
            timestamp(time.time()),
            "info",
            logger.name,
            "request",
            request_id,
            tier,
            route,
            capped(method),
            capped(path),
            status,
            latency_ms,
            size,
            None if sent is None else capped(sent),
            key_prefix,
        )
        self._queue(handler, json_line(line) + handler.terminator)

    def write(self, entry: dict[str, Any]) -> None:
        logger = self._logger
        if not logger.isEnabledFor(logging.INFO):
            return
        handler = self._direct_handler()
        if handler is None:
            # makeRecord + handle: what `info` does, minus walking the stack for the caller.
            record = logger.makeRecord(
                logger.name, logging.INFO, __file__, 0, "request", (), None, extra=entry
            )
            logger.handle(record)
            return
        cap_strings(entry)  # as JsonFormatter does: a path or query of any length, one short line
        line = json_entry(time.time(), "INFO", logger.name, "request")
        line.update(entry)  # (an entry never names the four fields every line starts with)
        self._queue(handler, json_line(line) + handler.terminator)

    def _queue(self, handler: logging.StreamHandler[Any], text: str) -> None:
        """`text` written with the others waiting, at most `FLUSH_SECONDS` from now."""
        if self._waiting and self._waiting_for is not handler:
            self.drain()  # lines for the handler configured before go to it
        if not self._waiting or time.monotonic() > self._due + STALE_SECONDS:
            # (A drain that never ran, its loop closed, is stale: lines are not left waiting.)
            loop = asyncio._get_running_loop()  # (None off a loop, without raising)
            if loop is None:  # no loop to write later on: now
                self.drain()
                self._write(handler, text)
                return
            self._due = time.monotonic() + FLUSH_SECONDS
            loop.call_later(FLUSH_SECONDS, self.drain)
        with self._lock:
            self._waiting.append(text)
            self._waiting_size += len(text)
            self._waiting_for = handler
            full = self._waiting_size >= MAX_WAITING_CHARS
        if full:
            self.drain()

    def drain(self) -> None:
        """Write every line still waiting."""
        with self._lock:
            waiting, handler = self._waiting, self._waiting_for
            self._waiting, self._waiting_size = [], 0
        if waiting and handler is not None:
            self._write(handler, "".join(waiting))

    def _write(self, handler: logging.StreamHandler[Any], text: str) -> None:
        with handler.lock or contextlib.nullcontext():
            try:
                handler.stream.write(text)
                handler.flush()
            except Exception:
                handler.handleError(
                    self._logger.makeRecord(self._logger.name, logging.INFO, "", 0, "", (), None)
                )

    def _direct_handler(self) -> logging.StreamHandler[Any] | None:
        root = logging.getLogger()
        node: logging.Logger | None = self._logger
        while node is not None and node is not root:  # this logger and its ancestors
            if node.handlers or node.filters or not node.propagate:
                return None
            node = node.parent
        if root.filters or len(root.handlers) != 1:
            return None
        handler = root.handlers[0]
        if type(handler) is not logging.StreamHandler or handler.filters:
            return None
        if type(handler.formatter) is not JsonFormatter:
            return None
        if handler.level > logging.INFO:
            return None
        return handler


_LOGS: weakref.WeakSet[AccessLog] = weakref.WeakSet()


@atexit.register
def _drain_every_log() -> None:
    for log in list(_LOGS):
        log.drain()
