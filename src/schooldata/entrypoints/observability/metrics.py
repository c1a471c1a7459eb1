"""Metrics: one set for the whole server, in prometheus_client's multiprocess files.

Every face reports here: the HTTP edge per request, the pipeline (as its `CallObserver`) for
metered and limited calls, the MCP face per tool call. No label ever holds a key, a key prefix
or an organisation: only route templates, statuses, tiers, faces, features, reasons and tool
names, each from a bounded set of values.

Each process writes its series to its own files in one directory (prometheus_client's
multiprocess mode: `counter_<pid>.db`, `histogram_<pid>.db`, `gauge_livesum_<pid>.db`); a
scrape of any process reads every file there (`MultiProcessCollector`) and answers the totals.
Under `schooldata serve` the directory is the server's (`PROMETHEUS_MULTIPROC_DIR`, see
`metrics_directory`), so any worker answers for all of them; without it (tests, one app in a
thread) each `Metrics` keeps a private temporary one, removed with it.

The values are written through prometheus_client's own file class (`MmapedDict`) by one
object per series that holds its current value, one lock per update: its `Counter`/
`Histogram` classes take a lock, check the pid and write once per value, which made a request
cost about three times as much (docs/performance.md, "Metrics").
"""

from __future__ import annotations

import asyncio
import atexit
import bisect
import logging
import os
import re
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Final

from mypy_extensions import mypyc_attr
from prometheus_client import (
    CollectorRegistry,
    GCCollector,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.metrics_core import GaugeMetricFamily, Metric
from prometheus_client.mmap_dict import MmapedDict, mmap_key
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from prometheus_client.utils import floatToGoString

from schooldata import __version__
from schooldata.entrypoints.observability.families import (
    IN_PROGRESS,
    LATENCY,
    LIMITED,
    MCP_CALLS,
    METERED,
    OTHER,
    REQUESTS,
    Declared,
    Family,
    bounded,
)
from schooldata.entrypoints.observability.metrics_directory import DIRECTORY_VARIABLE, alive

log = logging.getLogger("schooldata.metrics")

# Litestar appends `; charset=utf-8` to text/* media types.
CONTENT_TYPE = "text/plain; version=0.0.4"
WRITE_AFTER_SECONDS = 0.05
STALE_SECONDS = 1.0  # a scheduled write this late never ran (its loop closed)
LATENCY_BUCKETS: Final = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
MAX_SERIES_PER_FAMILY = 1000
MAX_SERIES = 16 * MAX_SERIES_PER_FAMILY  # every family's, with each latency series' buckets
METHODS: Final = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_LIVE_GAUGE_FILE = re.compile(r"^gauge_live[a-z]+_(\d+)\.db$")


class _Series:
    """One series of this process: its value, and its place in the process's file."""

    __slots__ = ("file", "key", "value", "waiting")

    def __init__(self, file: MmapedDict, key: str) -> None:
        self.file = file
        self.key = key
        self.value: float = file.read_value(key)[0]  # type: ignore[no-untyped-call]
        self.waiting = False  # changed since last written

    def write(self) -> None:  # (the Metrics lock held)
        self.waiting = False
        self.file.write_value(self.key, self.value, 0.0)  # type: ignore[no-untyped-call]


class _RequestSeries:
    """What one request of a label set updates: its count, its latency's sum and buckets."""

    __slots__ = ("buckets", "count", "total")

    def __init__(self, count: _Series, total: _Series, buckets: list[_Series]) -> None:
        self.count = count
        self.total = total
        self.buckets = buckets


# Not a compiled (native) class: `_EVERY` and its directory's finalizer hold it weakly.
@mypyc_attr(native_class=False)
class Metrics:
    """The server's metrics, as this process reports them. Thread-safe; cheap enough to call
    on every request (bench/metrics_cost.py, docs/performance.md).

    The API the faces call:
    - `http_request(route=, method=, status=, tier=, seconds=, finished=)`: the HTTP edge,
      per request, after `request_started()` (the in-progress gauge; `finished=True` or
      `request_finished()` ends it);
    - `metered(face=, feature=)` / `limited(face=, reason=)`: the pipeline's observer
      (`ports.observer.CallObserver`): a call that consumed quota, a 429;
    - `mcp_call(tool, outcome=)`: an MCP `tools/call`, by tool and outcome (`ok`, `error`,
      `rejected`); the MCP face passes only its known tool names (`unknown` else).
    Reading: `render(extra=)` (the exposition text of `/metrics`), `value(...)` (tests).

    One instance per process, made in the process that uses it (a server builds its app in
    each worker): two in one process would write the same series of the same files.
    """

    def __init__(self, directory: Path | None = None) -> None:
        configured = os.environ.get(DIRECTORY_VARIABLE)
        if directory is None and configured:
            directory = Path(configured)
        if directory is None:  # counting alone: a private directory, removed with this object
            directory = Path(tempfile.mkdtemp(prefix="schooldata-metrics-"))
            weakref.finalize(self, shutil.rmtree, directory, ignore_errors=True)
        self._directory = directory
        pid = os.getpid()
        self._files = {
            kind: MmapedDict(str(directory / f"{kind}_{pid}.db"))  # type: ignore[no-untyped-call]
            for kind in ("counter", "histogram", "gauge_livesum")
        }
        self._lock = threading.Lock()
        self._by_key: dict[tuple[str, str], _Series] = {}
        self._in_progress = self._series(IN_PROGRESS, IN_PROGRESS.name, ())
        self._waiting: list[_Series] = []
        self._scheduled = False
        self._due = 0.0  # when the scheduled write should have run
        _EVERY.add(self)
        # Each distinct label set's series, made once (a bounded number: routes are
        # templates, methods and tiers fixed sets, statuses few).
        self._http: dict[tuple[str, str, int, str], _RequestSeries] = {}
        # (By the family's name: a frozen attrs instance hashes all its fields on every lookup.)
        self._counted: dict[tuple[str, str, str], _Series] = {}
        self._standard = CollectorRegistry()  # process_* and python_*: of this process
        ProcessCollector(registry=self._standard)
        PlatformCollector(registry=self._standard)
        GCCollector(registry=self._standard)

    @property
    def directory(self) -> Path:
        """Where this process's files are (the server's directory, or a private one)."""
        return self._directory

    # ---- the faces' API ----------------------------------------------------------------
    def http_request(
        self,
        *,
        route: str,
        method: str,
        status: int,
        tier: str,
        seconds: float,
        finished: bool = False,
    ) -> None:
        """`finished`: this request was counted in progress (`request_started`) and is done
        now, recorded together with the rest (one lock, one look at the timer)."""
        key = (route, method, status, tier)
        series = self._http.get(key)
        if series is None:
            series = self._request_series(key)
        bucket = series.buckets[bisect.bisect_left(LATENCY_BUCKETS, seconds)]
        with self._lock:
            later = self._written_later()
            self._add(series.count, 1.0, later)
            self._add(series.total, seconds, later)
            self._add(bucket, 1.0, later)
            if finished:
                self._add(self._in_progress, -1.0, later)

    def _request_series(self, key: tuple[str, str, int, str]) -> _RequestSeries:
        route, method, status, tier = key
        with self._lock:
            series = self._http.get(key)  # (another thread may have made it meanwhile)
            if series is not None:
                return series
            if len(self._http) >= MAX_SERIES_PER_FAMILY:
                route = method = shown_status = tier = OTHER
            else:
                upper = method.upper()
                method = upper if upper in METHODS else OTHER
                shown_status = str(status)
            latency = LATENCY.name
            series = _RequestSeries(
                self._series(
                    REQUESTS, f"{REQUESTS.name}_total", (method, route, shown_status, tier)
                ),
                self._series(LATENCY, f"{latency}_sum", (route, tier)),
                [
                    self._series(LATENCY, f"{latency}_bucket", (route, tier, _le(bound)))
                    for bound in (*LATENCY_BUCKETS, float("inf"))
                ],
            )
            if len(self._http) < MAX_SERIES_PER_FAMILY:
                self._http[key] = series
            return series

    def metered(self, *, face: str, feature: str) -> None:
        """The pipeline's observer: one use of a plan's quota consumed by `face`."""
        self._count(METERED, face, feature)

    def limited(self, *, face: str, reason: str) -> None:
        """The pipeline's observer: a call refused by the rate limit or the quota."""
        self._count(LIMITED, face, reason)

    def mcp_call(self, tool: str, *, outcome: str = "ok") -> None:
        self._count(MCP_CALLS, outcome, tool)

    def _count(self, family: Declared, first: str, second: str) -> None:
        with self._lock:
            series = self._counted.get((family.name, first, second))
            if series is None:  # a few faces times a few features (or tools): made once each
                labels = (bounded(first), bounded(second))
                series = self._series(family, f"{family.name}_total", labels)
                if len(self._counted) < 4 * MAX_SERIES_PER_FAMILY:
                    self._counted[(family.name, first, second)] = series
            self._add(series, 1.0, self._written_later())

    def request_started(self) -> None:
        self._in_progress_by(1.0)

    def request_finished(self) -> None:
        self._in_progress_by(-1.0)

    def _in_progress_by(self, amount: float) -> None:
        with self._lock:
            self._add(self._in_progress, amount, self._written_later())

    # ---- series written together -----------------------------------------------------------
    # On an event loop a series changed is written to the file at most WRITE_AFTER_SECONDS
    # later, once however often it changed meanwhile (a request made five writes or more, two
    # of them the in-progress gauge going up and down again). A scrape writes this process's
    # first; other workers' reach it within that time. Off a loop (a worker thread, the CLI)
    # each change is written at once.

    def _written_later(self) -> bool:  # (the lock held)
        """Whether changes made now wait for the timer (set here when none is), or are
        written at once (off a loop)."""
        if self._scheduled and time.monotonic() <= self._due + STALE_SECONDS:
            return True
        loop = _running_loop()
        if loop is None:
            return False
        # (A timer that never ran, its loop closed, is stale: a new one is set.)
        self._scheduled, self._due = True, time.monotonic() + WRITE_AFTER_SECONDS
        loop.call_later(WRITE_AFTER_SECONDS, self.write_waiting)
        return True

    def _add(self, series: _Series, amount: float, later: bool) -> None:  # (the lock held)
        series.value += amount
        if not later:
            series.write()
        elif not series.waiting:
            series.waiting = True
            self._waiting.append(series)

    def write_waiting(self) -> None:
        """Write every series changed since it was last written."""
        with self._lock:
            self._scheduled = False
            waiting, self._waiting = self._waiting, []
            for series in waiting:
                series.write()

    def _series(self, family: Declared, sample: str, values: tuple[str, ...]) -> _Series:
        """A series of this process's file for `family` (the lock held, or not yet shared):
        keyed as prometheus_client keys it, so its collector reads it back."""
        names = [*family.labels, "le"] if sample.endswith("_bucket") else list(family.labels)
        key = mmap_key(family.name, sample, names, list(values), family.help)
        # One object per series: label sets that differ only in labels a family does not
        # have (a latency series is per route and tier, not per status) share it and its value.
        found = self._by_key.get((family.file, key))
        if found is None:
            found = _Series(self._files[family.file], key)
            if len(self._by_key) < MAX_SERIES:
                self._by_key[(family.file, key)] = found
        return found

    # ---- reading -----------------------------------------------------------------------
    def value(self, name: str, **labels: str) -> float:
        """A sample's current value, the whole server's (tests and diagnostics); 0 when
        never counted."""
        for family in self._families():
            for sample in family.samples:
                if sample.name == name and sample.labels == labels:
                    return float(sample.value)
        return 0.0

    def render(self, extra: Iterable[Family] = ()) -> str:
        """The exposition text (format 0.0.4): every family with HELP and TYPE, summed over
        every process counting in the directory, this process's `process_*`/`python_*`,
        then `extra`."""
        return generate_latest(_Families([*self._families(), *extra])).decode()

    def _families(self) -> Iterator[Family]:
        self.write_waiting()
        self._forget_dead_workers(self._directory)
        collector = MultiProcessCollector(None, path=str(self._directory))  # type: ignore[no-untyped-call]
        yield from collector.collect()  # type: ignore[no-untyped-call]
        yield from self._standard.collect()
        build = GaugeMetricFamily(
            "schooldata_build_info", "The running version of schooldata.", labels=["version"]
        )
        build.add_metric([__version__], 1)
        yield build

    @staticmethod
    def _forget_dead_workers(directory: Path) -> None:
        """A worker that died (killed, respawned by granian) leaves its files behind: its
        counters and histograms still count toward the totals, as they should; its live
        gauges (requests in progress) are dropped here, at scrape time, since granian tells
        the app nothing when it replaces a worker."""
        own = os.getpid()
        for entry in os.scandir(directory):
            found = _LIVE_GAUGE_FILE.match(entry.name)
            if found is None:
                continue
            pid = int(found[1])
            if pid != own and not alive(pid):
                mark_process_dead(pid, str(directory))  # type: ignore[no-untyped-call]


def _le(bound: float) -> str:
    """A bucket's bound as prometheus_client writes it (`0.005`, `+Inf`)."""
    return str(floatToGoString(bound))  # type: ignore[no-untyped-call]


class _Families:
    """What `generate_latest` reads: families gathered already."""

    def __init__(self, families: list[Family]) -> None:
        self._families = families

    def collect(self) -> Iterable[Metric]:
        return self._families


def _running_loop() -> asyncio.AbstractEventLoop | None:
    return asyncio._get_running_loop()  # (None off a loop: no exception raised and caught)


_EVERY: weakref.WeakSet[Metrics] = weakref.WeakSet()


@atexit.register
def _write_every_waiting_series() -> None:
    for metrics in list(_EVERY):
        metrics.write_waiting()
