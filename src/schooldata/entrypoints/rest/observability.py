"""What operators see: structured logs, the access log and Prometheus metrics.

- Logs go through the standard library. `logging_config(format)` is a `dictConfig` for the
  whole process (uvicorn's loggers included) with a JSON (`json`) or plain (`text`) formatter;
  `configure_logging(format)` applies it. Both formatters pass every line through `redact`, a
  last line of defence that masks anything shaped like an API key, a bearer token or a key in a
  query string: the service itself never logs a key (DECISIONS: Authentication 2 and 5).
  Every string value of a line (a query string, a path) is capped at `MAX_LOGGED_VALUE`
  characters, redacted whole before it is cut (`capped`).
- `ObservabilityLayer` is the outermost ASGI layer: one access-log line per HTTP request
  (`schooldata.access`: request id, tier, route template, method, path, status, latency, and the
  key's display prefix when a key authenticated; never the key, and never the query string of
  a request that carried a key in it) and the request metrics.
- `Metrics` is the process's counters and histograms in the Prometheus text format. REST feeds
  it through the layer and `CountingMeter`; other faces are handed the same object by the
  composition root and call `metered_call`, `limit_rejected` and `mcp_call`. No label ever
  holds a key, a key prefix or an organisation: only route templates, statuses, tiers, faces,
  features, reasons and tool names, each with a bounded set of values.
"""

from __future__ import annotations

import bisect
import contextlib
import datetime as dt
import json
import logging
import logging.config
import math
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

import attrs
from litestar import Request

from schooldata import __version__
from schooldata.application.access import Caller, Meter
from schooldata.application.service import Application
from schooldata.domain.metering import LimitReached, MeterReading
from schooldata.domain.plans import Feature
from schooldata.entrypoints.rest.errors import COMMERCIAL_TIER_KEY
from schooldata.entrypoints.rest.gate import CommercialGate
from schooldata.entrypoints.rest.transport import (
    QUERY_KEY_REJECTED,
    REQUEST_ID_KEY,
    ROUTE_LABEL_KEY,
    ASGIApp,
    Message,
    Receive,
    Scope,
    Send,
    carries_key_in_query,
    has_credentials,
)

ACCESS_LOGGER = "schooldata.access"
KEY_PREFIX_KEY = "schooldata.key_prefix"
UNMATCHED_ROUTE = "(unmatched)"
PUBLIC, COMMERCIAL = "public", "commercial"

# --------------------------------------------------------------------------------------------
# Redaction: the safety net under every log line.

# No word boundary before the prefix: a key glued to other text (`abcsvc_live_...` in a path)
# is still a key (as in domain/errors.py).
_KEY_SHAPED = re.compile(r"(svc_(?:live|test)_[0-9A-Za-z]{4})[0-9A-Za-z]+")
_BEARER = re.compile(r"(?i)\b(bearer\s+)[^\s\"',;]+")
_QUERY_SECRET = re.compile(r"(?i)([?&;](?:api_?key|key|access_token|token)=)[^&\s\"'#]*")
_HEADER_SECRET = re.compile(r"(?i)(x-api-key[\"']?\s*[:=]\s*[\"']?)[^\s\"',;}]+")
REDACTED = "[redacted]"
# Every pattern above needs one of these (case-insensitively) to match: more of a key than
# its display prefix (which keyed access lines always carry), the bearer scheme, a key-named
# query parameter followed by "=", the X-API-Key header's name.
_REDACTION_MARKER = re.compile(r"(?i)svc_(?:live|test)_[0-9a-z]{5}|bearer|key=|token=|x-api-key")
# _KEY_SHAPED's matches, found without substituting anything: a literal prefix, a fast scan.
_KEY_SHAPED_SCREEN = re.compile(r"svc_(?:live|test)_[0-9A-Za-z]{5}")


def _mask_prefix(match: re.Match[str]) -> str:
    return f"{match.group(1)}{REDACTED}"


def redact(text: str) -> str:
    """Mask key-shaped strings (keeping the display prefix), bearer tokens, `X-API-Key`
    values and key-named query parameters."""
    if not text:
        return text
    if not text.isascii():  # (O(1)) case-insensitive matching beyond ASCII: the full screen
        return redact_fully(text) if _REDACTION_MARKER.search(text) else text
    # Every log line passes here: each pattern runs only where its own literal part occurs
    # (ASCII: lower() is exactly what (?i) matches), four substring scans instead of regexes.
    if "svc_" in text and _KEY_SHAPED_SCREEN.search(text) is not None:
        text = _KEY_SHAPED.sub(_mask_prefix, text)
    lowered = text.lower()
    if "bearer" in lowered:
        text = _BEARER.sub(_mask_prefix, text)
    if "key=" in lowered or "token=" in lowered:
        text = _QUERY_SECRET.sub(_mask_prefix, text)
    if "x-api-key" in lowered:
        text = _HEADER_SECRET.sub(_mask_prefix, text)
    return text


def redact_fully(text: str) -> str:
    """Every pattern over the whole text: the rule `redact` must always agree with."""
    text = _KEY_SHAPED.sub(_mask_prefix, text)
    text = _BEARER.sub(_mask_prefix, text)
    text = _QUERY_SECRET.sub(_mask_prefix, text)
    return _HEADER_SECRET.sub(_mask_prefix, text)


# The longest string value a log line carries: a longer one (a 60 KB query string, a path, a
# user agent) keeps its first MAX_LOGGED_VALUE characters and a marker saying how many went.
MAX_LOGGED_VALUE: Final = 1024


def capped(value: str, limit: int = MAX_LOGGED_VALUE) -> str:
    """`value` itself when it is at most `limit` characters; else redacted whole first (so a
    cut can never leave part of a key that redaction would have masked), then cut:
    `<first limit characters>...[cut N chars]`."""
    if len(value) <= limit:
        return value
    text = redact(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}...[cut {len(text) - limit} chars]"


def _cap_strings(fields: dict[str, Any]) -> None:
    """Every string value of `fields` through `capped`, in place."""
    for name, value in fields.items():
        if type(value) is str and len(value) > MAX_LOGGED_VALUE:
            fields[name] = capped(value)


# --------------------------------------------------------------------------------------------
# Logging: JSON or text, one configuration for the whole process.

_RECORD_ATTRIBUTES: Final = frozenset(
    vars(logging.LogRecord("", 0, "", 0, "", None, None)).keys() | {"message", "asctime"}
)


def _extras(record: logging.LogRecord) -> dict[str, Any]:
    return {k: v for k, v in vars(record).items() if k not in _RECORD_ATTRIBUTES}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: `ts`, `level`, `logger`, `message`, any `extra` fields, and
    `exception` (the formatted traceback) when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        message = capped(record.getMessage())
        entry = json_entry(record.created, record.levelname, record.name, message)
        extras = _extras(record)
        _cap_strings(extras)
        for name, value in extras.items():
            entry.setdefault(name, value)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json_line(entry)


def json_entry(created: float, level: str, logger: str, message: str) -> dict[str, Any]:
    """The fields every JSON log line starts with."""
    return {
        "ts": _timestamp(created),
        "level": level.lower(),
        "logger": logger,
        "message": message,
    }


_last_stamp: tuple[int, str] = (-1, "")


def _timestamp(created: float) -> str:
    """ISO 8601 UTC to the millisecond, exactly as `datetime.fromtimestamp(created, UTC)
    .isoformat(timespec="milliseconds")` writes it; the last one is reused within its
    millisecond (a busy server logs several lines per millisecond)."""
    global _last_stamp
    # fromtimestamp rounds the fraction to whole microseconds (half to even), then isoformat
    # truncates to milliseconds: the same steps here give the same millisecond.
    whole = math.floor(created)
    micro = round((created - whole) * 1e6)
    if micro >= 1_000_000:
        whole, micro = whole + 1, micro - 1_000_000
    millisecond = whole * 1000 + micro // 1000
    last = _last_stamp
    if last[0] == millisecond:
        return last[1]
    moment = dt.datetime.fromtimestamp(whole, dt.UTC).replace(microsecond=micro // 1000 * 1000)
    text = moment.isoformat(timespec="milliseconds")
    _last_stamp = (millisecond, text)
    return text


# One encoder for every log line: `json.dumps` with options builds a new encoder per call
# (~2 us of the ~6 us a line costs).
_LINE_ENCODER: Final = json.JSONEncoder(default=str, ensure_ascii=False)


def json_line(entry: Mapping[str, Any]) -> str:
    return redact(_LINE_ENCODER.encode(entry))


class TextFormatter(logging.Formatter):
    """`2025-01-01T00:00:00.000Z info schooldata.access request key=value ...`"""

    def format(self, record: logging.LogRecord) -> str:
        stamp = dt.datetime.fromtimestamp(record.created, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S")
        extras = _extras(record)
        _cap_strings(extras)
        fields = " ".join(f"{k}={v}" for k, v in extras.items() if v is not None)
        line = f"{stamp}.{int(record.msecs):03d}Z {record.levelname.lower()} {record.name} "
        line += capped(record.getMessage()) + (f" {fields}" if fields else "")
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return redact(line)


FORMATTERS: Final[Mapping[str, type[logging.Formatter]]] = {
    "json": JsonFormatter,
    "text": TextFormatter,
}


def logging_config(log_format: str = "json", level: str = "INFO") -> dict[str, Any]:
    """A `logging.config.dictConfig` for the process: one stderr handler with the chosen
    formatter on the root logger; uvicorn's loggers propagate to it, and uvicorn's own access
    log is silenced (it would print query strings; `schooldata.access` replaces it). Hand it
    to `uvicorn.run(log_config=...)` so that every worker process applies it."""
    if log_format not in FORMATTERS:
        raise ValueError(f"log format must be one of {sorted(FORMATTERS)}, got {log_format!r}")
    quiet = {"level": "WARNING", "handlers": [], "propagate": True}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"default": {"()": FORMATTERS[log_format]}},
        "handlers": {
            "default": {
                "class": "logging.StreamHandler",
                "formatter": "default",
                "stream": "ext://sys.stderr",
            }
        },
        "root": {"level": level, "handlers": ["default"]},
        "loggers": {
            "uvicorn": {"level": level, "handlers": [], "propagate": True},
            "uvicorn.error": {"level": level, "handlers": [], "propagate": True},
            "uvicorn.access": {"level": "WARNING", "handlers": [], "propagate": False},
            "httpx": quiet,
            "httpcore": quiet,
        },
    }


def configure_logging(log_format: str = "json", level: str = "INFO") -> None:
    logging.config.dictConfig(logging_config(log_format, level))
    # Neither format shows thread or process names, and the access log writes a record per
    # request: do not collect them (the logging HOWTO's "Optimization" switches).
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False


# --------------------------------------------------------------------------------------------
# Metrics: counters and histograms in the Prometheus text exposition format (0.0.4).

# Litestar appends `; charset=utf-8` to text/* media types.
CONTENT_TYPE = "text/plain; version=0.0.4"
LATENCY_BUCKETS: Final = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
MAX_SERIES_PER_FAMILY = 1000
OTHER = "other"
METHODS: Final = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_LABEL_VALUE = re.compile(r"^[A-Za-z0-9_.:/{}()\-]{1,100}$")

Labels = tuple[tuple[str, str], ...]


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _label_text(labels: Labels) -> str:
    if not labels:
        return ""
    return "{" + ",".join(f'{name}="{_escape(value)}"' for name, value in labels) + "}"


def _number(value: float) -> str:
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


def bounded(value: str) -> str:
    """A label value from outside (a tool name, a feature): short, plain, else `other`."""
    return value if _LABEL_VALUE.fullmatch(value) else OTHER


@attrs.define
class _Histogram:
    buckets: list[int]
    total: float = 0.0
    count: int = 0


class Metrics:
    """The process's metrics. Thread-safe; cheap enough to call on every request.

    The API the faces call:
    - `http_request(route=, method=, status=, tier=, seconds=)`: the REST layer, per request.
    - `metered_call(face=, feature=)`: a call that consumed quota (REST via `CountingMeter`;
      MCP gets a `CountingMeter` too from the composition root, see `instrument`).
    - `limit_rejected(face=, reason=)`: a 429 (`rate_limit_exceeded` or `quota_exceeded`).
    - `mcp_call(tool, outcome=)`: an MCP `tools/call`, by tool and outcome (`ok`, `error`,
      `rejected`, ...); the MCP face should pass only its known tool names (`unknown` else).

    Per process: with several worker processes each has its own counters (see
    docs/operations.md).
    """

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._lock = threading.Lock()
        self._counters: dict[str, dict[Labels, float]] = {}
        self._histograms: dict[str, dict[Labels, _Histogram]] = {}
        self._in_progress = 0
        self._started = clock()
        self._label_cache: dict[tuple[str, str, int, str], tuple[Labels, Labels]] = {}
        self._metered_labels: dict[tuple[str, str], Labels] = {}
        self._mcp_labels: dict[tuple[str, str], Labels] = {}

    # ---- the faces' API ----------------------------------------------------------------
    def http_request(
        self, *, route: str, method: str, status: int, tier: str, seconds: float
    ) -> None:
        labels, timing = self._http_labels(route, method, status, tier)
        with self._lock:
            self._add("schooldata_http_requests_total", labels, 1)
            self._observe(
                "schooldata_http_request_duration_seconds",
                timing,
                seconds,
            )

    def _http_labels(
        self, route: str, method: str, status: int, tier: str
    ) -> tuple[Labels, Labels]:
        """The label sets of one request, built once per distinct combination (a bounded
        number: routes are templates, methods and tiers fixed sets, statuses few)."""
        key = (route, method, status, tier)
        cached = self._label_cache.get(key)
        if cached is None:
            upper = method.upper()
            shown = upper if upper in METHODS else OTHER
            cached = (
                (("route", route), ("method", shown), ("status", str(status)), ("tier", tier)),
                (("route", route), ("tier", tier)),
            )
            if len(self._label_cache) < 4 * MAX_SERIES_PER_FAMILY:
                self._label_cache[key] = cached
        return cached

    def metered_call(self, *, face: str, feature: str) -> None:
        labels = self._metered_labels.get((face, feature))
        if labels is None:  # a few faces times a few features: built once each
            labels = (("face", bounded(face)), ("feature", bounded(feature)))
            if len(self._metered_labels) < MAX_SERIES_PER_FAMILY:
                self._metered_labels[(face, feature)] = labels
        with self._lock:
            self._add("schooldata_metered_calls_total", labels, 1)

    def limit_rejected(self, *, face: str, reason: str) -> None:
        with self._lock:
            self._add(
                "schooldata_limit_rejections_total",
                (("face", bounded(face)), ("reason", bounded(reason))),
                1,
            )

    def mcp_call(self, tool: str, *, outcome: str = "ok") -> None:
        labels = self._mcp_labels.get((tool, outcome))
        if labels is None:  # (replayed calls are counted here too: built once per pair)
            labels = (("tool", bounded(tool)), ("outcome", bounded(outcome)))
            if len(self._mcp_labels) < MAX_SERIES_PER_FAMILY:
                self._mcp_labels[(tool, outcome)] = labels
        with self._lock:
            self._add("schooldata_mcp_calls_total", labels, 1)

    def request_started(self) -> None:
        with self._lock:
            self._in_progress += 1

    def request_finished(self) -> None:
        with self._lock:
            self._in_progress -= 1

    # ---- reading -----------------------------------------------------------------------
    def value(self, name: str, **labels: str) -> float:
        """A counter's current value (tests and diagnostics); 0 when never counted."""
        with self._lock:
            for series, value in self._counters.get(name, {}).items():
                if dict(series) == labels:
                    return value
        return 0.0

    def render(self, extra: Iterable[str] = ()) -> str:
        """The exposition text: every family with HELP and TYPE, then `extra` lines."""
        lines: list[str] = []
        with self._lock:
            for name, (kind, help_text) in FAMILIES.items():
                lines.append(f"# HELP {name} {help_text}")
                lines.append(f"# TYPE {name} {kind}")
                if kind == "counter":
                    for labels, value in sorted(self._counters.get(name, {}).items()):
                        lines.append(f"{name}{_label_text(labels)} {_number(value)}")
                elif kind == "histogram":
                    for labels, hist in sorted(self._histograms.get(name, {}).items()):
                        cumulative = 0
                        for bound, count in zip(
                            (*LATENCY_BUCKETS, float("inf")), hist.buckets, strict=True
                        ):
                            cumulative += count
                            le = "+Inf" if bound == float("inf") else repr(bound)
                            series = _label_text((*labels, ("le", le)))
                            lines.append(f"{name}_bucket{series} {cumulative}")
                        lines.append(f"{name}_sum{_label_text(labels)} {hist.total!r}")
                        lines.append(f"{name}_count{_label_text(labels)} {hist.count}")
            gauges = {
                "schooldata_http_requests_in_progress": _number(self._in_progress),
                "schooldata_process_start_time_seconds": repr(self._started),
            }
        for name, sample in gauges.items():
            lines.append(f"# HELP {name} {GAUGES[name]}")
            lines.append(f"# TYPE {name} gauge")
            lines.append(f"{name} {sample}")
        lines.append("# HELP schooldata_build_info The running version of schooldata.")
        lines.append("# TYPE schooldata_build_info gauge")
        lines.append(f'schooldata_build_info{{version="{__version__}"}} 1')
        lines.extend(extra)
        return "\n".join(lines) + "\n"

    # ---- internals (hold the lock) -------------------------------------------------------
    def _series(self, family: dict[Labels, Any], labels: Labels) -> Labels:
        if labels in family or len(family) < MAX_SERIES_PER_FAMILY:
            return labels
        return tuple((name, OTHER) for name, _ in labels)

    def _add(self, name: str, labels: Labels, amount: float) -> None:
        family = self._counters.setdefault(name, {})
        key = self._series(family, labels)
        family[key] = family.get(key, 0) + amount

    def _observe(self, name: str, labels: Labels, seconds: float) -> None:
        family = self._histograms.setdefault(name, {})
        key = self._series(family, labels)
        hist = family.get(key)
        if hist is None:
            hist = family[key] = _Histogram(buckets=[0] * (len(LATENCY_BUCKETS) + 1))
        hist.buckets[bisect.bisect_left(LATENCY_BUCKETS, seconds)] += 1
        hist.total += seconds
        hist.count += 1


FAMILIES: Final[Mapping[str, tuple[str, str]]] = {
    "schooldata_http_requests_total": (
        "counter",
        "HTTP requests by route template, method, status and tier (public or commercial).",
    ),
    "schooldata_http_request_duration_seconds": (
        "histogram",
        "HTTP request latency in seconds by route template and tier.",
    ),
    "schooldata_metered_calls_total": (
        "counter",
        "Calls that consumed quota, by face (rest, mcp) and plan feature.",
    ),
    "schooldata_limit_rejections_total": (
        "counter",
        "Calls refused by the rate limit or the monthly quota, by face and reason.",
    ),
    "schooldata_mcp_calls_total": ("counter", "MCP tools/call requests by tool and outcome."),
}
GAUGES: Final[Mapping[str, str]] = {
    "schooldata_http_requests_in_progress": "HTTP requests being answered now.",
    "schooldata_process_start_time_seconds": "Start time of this process, Unix epoch seconds.",
}


def gauge_lines(name: str, help_text: str, samples: Iterable[tuple[Labels, float]]) -> list[str]:
    """Exposition lines for a gauge family computed at scrape time (e.g. dataset freshness)."""
    lines = [f"# HELP {name} {help_text}", f"# TYPE {name} gauge"]
    lines.extend(f"{name}{_label_text(labels)} {_number(value)}" for labels, value in samples)
    return lines


# --------------------------------------------------------------------------------------------
# Metering and authentication seen from the outside, without changing either.


class CountingMeter(Meter):
    """A `Meter` that reports to `Metrics`: every admitted (metered) call and every 429.

    It delegates everything to the wrapped meter, so the rules stay in the core."""

    def __init__(self, inner: Meter, metrics: Metrics, *, face: str) -> None:
        self._inner = inner
        self._metrics = metrics
        self._face = face

    def admit(self, caller: Caller, feature: Feature) -> MeterReading:
        try:
            reading = self._inner.admit(caller, feature)
        except LimitReached as limited:
            self._metrics.limit_rejected(face=self._face, reason=limited.code)
            raise
        self._metrics.metered_call(face=self._face, feature=feature.value)
        return reading

    @property
    def can_admit_without_waiting(self) -> bool:
        return self._inner.can_admit_without_waiting

    def admit_nowait(self, caller: Caller, feature: Feature) -> MeterReading:
        try:
            reading = self._inner.admit_nowait(caller, feature)
        except LimitReached as limited:
            self._metrics.limit_rejected(face=self._face, reason=limited.code)
            raise
        self._metrics.metered_call(face=self._face, feature=feature.value)
        return reading

    def consume(self, caller: Caller, *, wait: bool = True) -> MeterReading:
        try:
            reading = self._inner.consume(caller, wait=wait)
        except LimitReached as limited:
            self._metrics.limit_rejected(face=self._face, reason=limited.code)
            raise
        self._metrics.metered_call(face=self._face, feature="unspecified")
        return reading

    def peek(self, caller: Caller) -> MeterReading:
        return self._inner.peek(caller)


def instrument(app: Application, metrics: Metrics, *, face: str) -> Application:
    """A copy of `app` whose meter reports to `metrics` as `face`; `app` is unchanged.

    The composition root gives each face its own copy (`face="rest"` is done by
    `create_app`; `face="mcp"` for the MCP mount)."""
    inner = app.meter._inner if isinstance(app.meter, CountingMeter) else app.meter
    return attrs.evolve(app, meter=CountingMeter(inner, metrics, face=face))


class ObservedGate(CommercialGate):
    """The commercial gate, noting the display prefix of each authenticated key in the ASGI
    scope for the access log. The prefix only: the key never leaves `authenticate`."""

    def authenticate(self, request: Request[Any, Any, Any]) -> Caller | None:
        caller = super().authenticate(request)
        if caller is not None:
            request.scope[KEY_PREFIX_KEY] = caller.display_prefix  # type: ignore[literal-required]
        return caller


# --------------------------------------------------------------------------------------------
# The access log: one line per request.


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
        _cap_strings(entry)  # as JsonFormatter does: a path or query of any length, one short line
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


# --------------------------------------------------------------------------------------------
# The outermost layer: access log and request metrics.


class ObservabilityLayer:
    """Times every HTTP request and, when it is answered, writes one access-log line and
    updates the request metrics. `is_public_only(path)` names the routes whose answer is
    public even when the request carries a key (public search, legacy lookup, operations)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        metrics: Metrics,
        is_public_route: Callable[[str], bool],
        is_public_only: Callable[[str], bool],
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._app = app
        self._metrics = metrics
        self._is_public_route = is_public_route
        self._is_public_only = is_public_only
        self._clock = clock
        self._access = AccessLog()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        started = self._clock()
        path = str(scope.get("path", ""))
        method = str(scope.get("method", "GET"))
        query = bytes(scope.get("query_string", b""))
        outcome: dict[str, int] = {"status": 500, "bytes": 0}

        async def observed_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                outcome["status"] = int(message["status"])
            elif message["type"] == "http.response.body":
                outcome["bytes"] += len(message.get("body", b""))
            await send(message)

        self._metrics.request_started()
        try:
            await self._app(scope, receive, observed_send)
        finally:
            self._metrics.request_finished()
            seconds = self._clock() - started
            self._record(scope, path, method, query, outcome, seconds)

    def _record(
        self,
        scope: Scope,
        path: str,
        method: str,
        query: bytes,
        outcome: dict[str, int],
        seconds: float,
    ) -> None:
        route = str(scope.get("path_template") or scope.get(ROUTE_LABEL_KEY) or UNMATCHED_ROUTE)
        tier = self._tier(scope, path)
        status = outcome["status"]
        self._metrics.http_request(
            route=route, method=method, status=status, tier=tier, seconds=seconds
        )
        entry: dict[str, Any] = {
            "request_id": scope.get(REQUEST_ID_KEY),
            "tier": tier,
            "route": route,
            "method": method,
            "path": path,
            "status": status,
            "latency_ms": round(seconds * 1000, 2),
            "bytes": outcome["bytes"],
        }
        rejected = scope.get(QUERY_KEY_REJECTED)
        if rejected is None:  # the transport layer did not screen it: screen it here
            rejected = carries_key_in_query(query)
        if query and not rejected:
            entry["query"] = query.decode("latin-1")
        if (prefix := scope.get(KEY_PREFIX_KEY)) is not None:
            entry["key_prefix"] = prefix
        self._access.write(entry)

    def _tier(self, scope: Scope, path: str) -> str:
        if scope.get(COMMERCIAL_TIER_KEY):
            return COMMERCIAL
        credentials = has_credentials(scope)
        if scope.get(QUERY_KEY_REJECTED):
            # The transport layer answered in the commercial shape unless both hold.
            return PUBLIC if self._is_public_route(path) and not credentials else COMMERCIAL
        if credentials and not self._is_public_only(path):
            return COMMERCIAL  # e.g. a keyed MCP call, or a keyed call to an unknown route
        return PUBLIC
