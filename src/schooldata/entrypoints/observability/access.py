"""The access log: one line per HTTP request (`schooldata.access`), never a key."""

from __future__ import annotations

import contextlib
import logging
import time
from typing import Any

from schooldata.entrypoints.observability.logs import (
    JsonFormatter,
    cap_strings,
    json_entry,
    json_line,
)

ACCESS_LOGGER = "schooldata.access"


def access_entry(
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
) -> dict[str, Any]:
    """One request's line: never a key (a query string that names one is left out whole)."""
    entry: dict[str, Any] = {
        "request_id": request_id,
        "tier": tier,
        "route": route,
        "method": method,
        "path": path,
        "status": status,
        "latency_ms": round(seconds * 1000, 2),
        "bytes": size,
    }
    if query:
        entry["query"] = query.decode("latin-1")
    if key_prefix is not None:
        entry["key_prefix"] = key_prefix
    return entry


class AccessLog:
    """Writes access-log entries to `schooldata.access`.

    When that logger is configured as `configure_logging` leaves it (no handlers of its own,
    propagating to exactly one root StreamHandler with the JSON formatter, no filters), the
    line the formatter would write is written straight to that handler's stream, under the
    handler's lock, skipping the LogRecord and the handler chain: it runs on every request.
    Any other configuration (a text format, a test's capturing handler, filters) takes the
    standard `logging` path, so the lines are the same either way."""

    def __init__(self, name: str = ACCESS_LOGGER) -> None:
        self._logger = logging.getLogger(name)

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
        for name, value in entry.items():
            line.setdefault(name, value)
        text = json_line(line) + handler.terminator
        with handler.lock or contextlib.nullcontext():
            try:
                handler.stream.write(text)
                handler.flush()
            except Exception:
                handler.handleError(
                    logger.makeRecord(logger.name, logging.INFO, "", 0, "", (), None)
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
