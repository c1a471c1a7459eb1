"""The served data of one data version in memory: the register's index, its authorities, the
establishment links (each with the facts of the establishment it leads to), the dataset list
and its data version, and every postcode, kept current by a background check, so no read
waits on I/O.

- A daemon thread asks the source's version every `refresh_seconds` and, when it moved,
  builds the next snapshot and swaps it in whole: readers see the old data or the new, never
  a mix. The postcodes are rebuilt only when a postcode dataset changed.
- Reads never touch the source. Until the first snapshot is built they wait for it (`ready`
  says when they would not: a face on an event loop asks first). While the last check failed,
  or a check has waited `stale_after` (1 s) for the store's answer (a hung store), every
  read fails at once with DataUnavailable rather than serve data that may be gone; reads
  answer again as soon as a check succeeds, and while checks fail they are made every
  `RETRY_SECONDS` (0.1 s) rather than every `refresh_seconds`, so reads answer within about
  that of the store answering again (the connect breaker, adapters/sql/connect_breaker.py,
  lets a connection to a store that refused try once a second). (A busy process that
  merely runs the check late keeps serving: only the store's silence counts.)
- The thread holds the reader weakly and stops with it (or at `close()`).
Results equal the source's own answers: the index runs `domain.search.evaluate`'s rules.
"""

from __future__ import annotations

import gc
import threading
import time
import weakref
from collections import defaultdict
from collections.abc import Iterator

from attrs import frozen
from mypy_extensions import mypyc_attr

from schooldata.adapters.memory.index import SchoolIndex
from schooldata.adapters.memory.postcode_index import PostcodeIndex
from schooldata.domain.dataset import DatasetRecord, SourceCheck
from schooldata.domain.errors import DataUnavailable
from schooldata.domain.geo import Location
from schooldata.domain.links import EstablishmentLink
from schooldata.domain.postcode import PostcodeQuery
from schooldata.domain.school import School
from schooldata.domain.search import SchoolQuery, SearchPage
from schooldata.domain.text import normalise
from schooldata.domain.urn import Urn
from schooldata.domain.versions import DataVersion
from schooldata.ports.register import RegisterSource

POSTCODE_DATASETS = frozenset({"codepoint_open", "onspd", "postcodes"})
FIRST_BUILD_WAIT_SECONDS = 120.0
RETRY_SECONDS = 0.1  # between checks while they fail


@frozen
class Snapshot:
    version: str
    index: SchoolIndex
    authorities: tuple[tuple[str | None, str, int], ...]
    links: dict[Urn, tuple[EstablishmentLink, ...]]  # of every establishment, served or not
    datasets: tuple[DatasetRecord, ...]
    data_version: DataVersion | None
    postcodes: PostcodeIndex
    postcode_stamp: tuple[tuple[str, str, int], ...]


# Not a compiled (native) class: its rebuilding thread holds it by a weak reference.
@mypyc_attr(native_class=False)
class SnapshotReader:
    """A SchoolReader, PostcodeDirectory and DatasetRegistry over the current snapshot."""

    def __init__(
        self,
        source: RegisterSource,
        *,
        refresh_seconds: float = 1.0,
        stale_after: float | None = None,
    ) -> None:
        self._source = source
        self._refresh = refresh_seconds
        # How long a version check may wait for the store before reads fail: with a check
        # every `refresh_seconds`, reads stop answering at most their sum after the store stops.
        self._silence = 1.0 if stale_after is None else stale_after
        self._snapshot: Snapshot | None = None
        self._asking_since: float | None = None  # a version check is waiting for the store
        self._failed = False
        self._first_check = threading.Event()
        self._closed = threading.Event()
        self._start = threading.Lock()
        self._rebuilder: threading.Thread | None = None

    # ------------------------------------------------------------------ the current snapshot

    @property
    def ready(self) -> bool:
        """Whether a read would answer (or fail) at once, without waiting for a build."""
        self._ensure_thread()
        return self._snapshot is not None

    def _current(self) -> Snapshot:
        self._ensure_thread()
        snapshot = self._snapshot
        if snapshot is None:
            # The first build: readers wait for it (faces on an event loop ask `ready` first).
            self._first_check.wait(FIRST_BUILD_WAIT_SECONDS)
            snapshot = self._snapshot
            if snapshot is None:
                raise DataUnavailable()
        since = self._asking_since
        if self._failed or (since is not None and time.monotonic() - since > self._silence):
            raise DataUnavailable()  # the store refused, or has not answered for too long
        return snapshot

    def _ensure_thread(self) -> None:
        if self._rebuilder is not None:
            return
        with self._start:
            if self._rebuilder is None:
                self._rebuilder = threading.Thread(
                    target=_keep_current,
                    args=(weakref.ref(self), self._refresh, self._closed),
                    name="schooldata-snapshot",
                    daemon=True,
                )
                self._rebuilder.start()

    def check(self) -> None:
        """One check of the source (the thread's work; tests may call it to step the clock)."""
        self._asking_since = time.monotonic()
        try:
            version = self._source.version()
            self._asking_since = None  # the store answers (building may take a while)
            current = self._snapshot
            if current is None or current.version != version:
                self._snapshot = self._build(version, current)
                # The snapshot lives until the next version and holds no reference cycles
                # (refcounting frees it): out of the cyclic collector's way, whose full passes
                # over it would otherwise stall every request now and then.
                gc.freeze()
        except Exception:  # any failure of the source: fail reads until a check succeeds
            self._failed = True
        else:
            self._failed = False
        finally:
            self._asking_since = None
            self._first_check.set()

    def _build(self, version: str, previous: Snapshot | None) -> Snapshot:
        source = self._source
        datasets = tuple(source.current())
        data_version = source.data_version()
        stamp = tuple(
            (r.name, r.imported_at.isoformat(), r.row_count)
            for r in datasets
            if r.name in POSTCODE_DATASETS
        )
        if previous is not None and previous.postcode_stamp == stamp:
            postcodes = previous.postcodes
        else:
            postcodes = PostcodeIndex(source.iter_postcodes(), source.iter_outward_codes())
        index = SchoolIndex(source.iter_all())
        return Snapshot(
            version=version,
            index=index,
            authorities=_authorities(index),
            links=_links_by_urn(source.iter_links()),
            datasets=datasets,
            data_version=data_version,
            postcodes=postcodes,
            postcode_stamp=stamp,
        )

    @property
    def failing(self) -> bool:
        """Whether the last check of the source failed (reads fail until one succeeds)."""
        return self._failed

    def close(self) -> None:
        self._closed.set()

    # ------------------------------------------------------------------ SchoolReader

    def get(self, *, urn: Urn) -> School | None:
        return self._current().index.by_urn.get(urn)

    def search(self, *, query: SchoolQuery) -> SearchPage:
        return self._current().index.answer(query)

    def iter_all(self) -> Iterator[School]:
        return iter(self._current().index.ordered)

    def local_authorities(self) -> list[tuple[str | None, str, int]]:
        return list(self._current().authorities)

    def version(self) -> str:
        return self._current().version

    # ------------------------------------------------------------------ LinkReader

    def links_for(self, *, urn: Urn) -> list[EstablishmentLink]:
        """An establishment's links, served or not (a predecessor's lead further back)."""
        return list(self._current().links.get(urn, ()))

    # ------------------------------------------------------------------ PostcodeDirectory

    def locate(self, *, postcode: PostcodeQuery) -> Location | None:
        return self._current().postcodes.locate(postcode=postcode)

    # ------------------------------------------------------------------ DatasetRegistry

    def current(self) -> tuple[DatasetRecord, ...]:
        return self._current().datasets  # (one tuple per data version: no copy)

    def data_version(self) -> DataVersion | None:
        return self._current().data_version

    def sources(self) -> list[SourceCheck]:
        """Read from the store, never from the snapshot: a refresh that finds a file unchanged
        moves its check time without moving the data version."""
        return self._source.sources()

    def ping(self) -> None:
        """The source's own probe (readiness must reach the database)."""
        ping = getattr(self._source, "ping", None)
        if callable(ping):
            ping()


def _keep_current(
    reader_ref: weakref.ref[SnapshotReader], refresh: float, closed: threading.Event
) -> None:
    while not closed.is_set():
        reader = reader_ref()
        if reader is None:
            return
        reader.check()
        failing = reader.failing
        del reader
        closed.wait(min(refresh, RETRY_SECONDS) if failing else refresh)


def _authorities(index: SchoolIndex) -> tuple[tuple[str | None, str, int], ...]:
    """(code, name, open schools) of every authority, by name (as the SQL store orders)."""
    counts: dict[tuple[str | None, str], int] = defaultdict(int)
    for school in index.ordered:
        if school.la_name:
            counts[(school.la_code, school.la_name)] += 1
    rows = [(code, name, n) for (code, name), n in counts.items()]
    return tuple(sorted(rows, key=lambda r: (normalise(r[1]), r[0] or "")))


def _links_by_urn(links: Iterator[EstablishmentLink]) -> dict[Urn, tuple[EstablishmentLink, ...]]:
    grouped: dict[Urn, list[EstablishmentLink]] = defaultdict(list)
    for link in links:
        grouped[link.urn].append(link)
    return {urn: tuple(found) for urn, found in grouped.items()}
