"""A read-through snapshot of any SchoolReader: answers from an in-memory index, rebuilt when
the source's data version changes.

The register is read-only between imports, so a serving process keeps one index in memory
and checks the source's version at most every `refresh_seconds`. If that check fails the
source is down: the error propagates (503) rather than silently serving stale data forever,
and for the next `refresh_seconds` every read fails at once with the same error instead of
queueing behind the lock to repeat a check that may take the store's whole connect timeout
(a hung network would otherwise make the Nth waiting request take N timeouts).
Results are identical to the source's own answers because both use `domain.search.evaluate`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

from schooldata.adapters.memory.index import SchoolIndex
from schooldata.domain.errors import DataUnavailable
from schooldata.domain.school import School
from schooldata.domain.search import SchoolQuery, SearchPage
from schooldata.domain.urn import Urn
from schooldata.ports.schools import SchoolReader


class SnapshotReader:
    def __init__(self, source: SchoolReader, *, refresh_seconds: float = 1.0) -> None:
        self._source = source
        self._refresh = refresh_seconds
        self._lock = threading.Lock()
        self._index: SchoolIndex | None = None
        self._version: str | None = None
        self._checked_at = 0.0
        self._failed_at: float | None = None
        self._authorities: list[tuple[str | None, str, int]] | None = None

    def _current(self) -> SchoolIndex:
        now = time.monotonic()
        index = self._index
        if index is not None and now - self._checked_at < self._refresh:
            return index
        with self._lock:
            now = time.monotonic()
            if self._index is not None and now - self._checked_at < self._refresh:
                return self._index
            if self._failed_at is not None and now - self._failed_at < self._refresh:
                raise DataUnavailable()
            try:
                version = self._source.version()
                if self._index is None or version != self._version:
                    self._index = SchoolIndex(self._source.iter_all())
                    self._authorities = None
                    self._version = version
            except DataUnavailable:
                self._failed_at = time.monotonic()
                raise
            self._failed_at = None
            self._checked_at = time.monotonic()
            return self._index

    def get(self, *, urn: Urn) -> School | None:
        return self._current().by_urn.get(urn)

    def search(self, *, query: SchoolQuery) -> SearchPage:
        return self._current().answer(query)

    def iter_all(self) -> Iterator[School]:
        return iter(self._current().ordered)

    def local_authorities(self) -> list[tuple[str | None, str, int]]:
        self._current()
        if self._authorities is None:
            self._authorities = self._source.local_authorities()
        return self._authorities

    def version(self) -> str:
        self._current()
        return self._version or ""
