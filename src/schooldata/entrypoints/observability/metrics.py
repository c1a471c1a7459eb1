"""Metrics: counters and histograms in the Prometheus text exposition format (0.0.4).

Every face reports here: the HTTP edge per request, the pipeline (as its `CallObserver`) for
metered and limited calls, the MCP face per tool call. No label ever holds a key, a key prefix
or an organisation: only route templates, statuses, tiers, faces, features, reasons and tool
names, each from a bounded set of values.
"""

from __future__ import annotations

import bisect
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

import attrs

from schooldata import __version__

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

    # The pipeline's observer (ports.observer.CallObserver).
    def metered(self, *, face: str, feature: str) -> None:
        self.metered_call(face=face, feature=feature)

    def limited(self, *, face: str, reason: str) -> None:
        self.limit_rejected(face=face, reason=reason)

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
