"""Read-through memory caches of the postcode directory and the dataset registry, dropped
whenever the data version changes.

Both ports are read on nearly every request and change only on import, so a serving process
answers them from memory. Each cache asks a `version` callable on every read, which must be
cheap: `DataVersion` asks the source at most every `refresh_seconds` (SnapshotReader's rule,
and its failure rule: while the source is down, reads fail at once with DataUnavailable for
the next `refresh_seconds` instead of each waiting for the store's connect timeout).
An import is therefore seen at most `refresh_seconds` after it commits, as with the snapshot.

(The composition root gives these caches their own DataVersion rather than
`SnapshotReader.version`: that would make the readiness probe, /metrics and the embedded
demo's "already built?" check build the whole school snapshot.)

Postcodes are not all loaded (1.75 M would not fit a worker's memory budget): the cache holds
the most recently used answers, negative ones (an unknown postcode) included, up to
`max_entries` full postcodes and, in a separate table, up to `max_entries` outward codes
(there are about 3,000). An answer costs about 300 bytes, so the default bound is ~15 MB.

Errors are never answers: DataUnavailable from the source or from `version` propagates and
nothing is cached.

Thread safety: the LRU tables are OrderedDicts, read, reordered and mutated only under
`self._lock`; the source is called outside it. Everything cached for one data version lives in
one `_Generation`, replaced (under a lock) when the version moves, never cleared in place: a
lookup stores its answer in the generation it started on, so an answer read before an import
can never land among the answers of the version after it. The dataset list is one attribute
assignment (atomic); racing first readers may each read the source and store equal answers.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from schooldata.domain.dataset import DatasetRecord, SourceCheck
from schooldata.domain.errors import DataUnavailable
from schooldata.domain.geo import Location
from schooldata.domain.postcode import PostcodeQuery
from schooldata.ports.datasets import DatasetRegistry
from schooldata.ports.postcodes import PostcodeDirectory

DEFAULT_MAX_ENTRIES = 50_000


class DataVersion:
    """The source's data version, asked at most every `refresh_seconds` (a callable)."""

    def __init__(self, source: Callable[[], str], *, refresh_seconds: float = 1.0) -> None:
        self._source = source
        self._refresh = refresh_seconds
        self._lock = threading.Lock()
        self._version: str | None = None
        self._checked_at = 0.0
        self._failed_at: float | None = None

    def __call__(self) -> str:
        version = self._version
        if version is not None and time.monotonic() - self._checked_at < self._refresh:
            return version
        with self._lock:
            now = time.monotonic()
            if self._version is not None and now - self._checked_at < self._refresh:
                return self._version
            if self._failed_at is not None and now - self._failed_at < self._refresh:
                raise DataUnavailable()
            try:
                version = self._source()
            except DataUnavailable:
                self._failed_at = time.monotonic()
                raise
            self._failed_at = None
            self._version = version
            self._checked_at = time.monotonic()
            return version


class _Generation:
    """Everything cached for one data version."""

    __slots__ = ("datasets", "full", "outward", "version")

    def __init__(self, version: str) -> None:
        self.version = version
        self.full: OrderedDict[str, Location | None] = OrderedDict()
        self.outward: OrderedDict[str, Location | None] = OrderedDict()
        self.datasets: tuple[DatasetRecord, ...] | None = None


class _Versioned:
    """The generation of the current data version; a new, empty one when the version moves."""

    def __init__(self, version: Callable[[], str]) -> None:
        self._version = version
        self._generation: _Generation | None = None
        self._swap = threading.Lock()

    def current(self) -> _Generation:
        version = self._version()  # DataUnavailable propagates
        generation = self._generation
        if generation is not None and generation.version == version:
            return generation
        with self._swap:
            generation = self._generation
            if generation is None or generation.version != version:
                generation = self._generation = _Generation(version)
            return generation


class CachedPostcodes:
    """A PostcodeDirectory answering as `source` does, from a bounded LRU of its answers."""

    def __init__(
        self,
        source: PostcodeDirectory,
        *,
        version: Callable[[], str],
        max_entries: int = DEFAULT_MAX_ENTRIES,
    ) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self._source = source
        self._versioned = _Versioned(version)
        self._max = max_entries
        self._lock = threading.Lock()

    def locate(self, *, postcode: PostcodeQuery) -> Location | None:
        generation = self._versioned.current()
        # Keyed as the stores look up: outward codes and full postcodes are separate tables.
        table = generation.outward if postcode.is_outward_only else generation.full
        key = postcode.compact
        with self._lock:
            if key in table:
                table.move_to_end(key)
                return table[key]
        location = self._source.locate(postcode=postcode)
        with self._lock:
            table[key] = location
            while len(table) > self._max:
                table.popitem(last=False)
        return location

    def cached_count(self) -> int:
        """How many answers the current generation holds (full postcodes and outward codes)."""
        generation = self._versioned.current()
        with self._lock:
            return len(generation.full) + len(generation.outward)


class CachedDatasets:
    """A DatasetRegistry answering as `source` does, read once per data version."""

    def __init__(self, source: DatasetRegistry, *, version: Callable[[], str]) -> None:
        self._source = source
        self._versioned = _Versioned(version)

    def current(self) -> list[DatasetRecord]:
        generation = self._versioned.current()
        records = generation.datasets
        if records is None:
            records = generation.datasets = tuple(self._source.current())
        return list(records)

    def sources(self) -> list[SourceCheck]:
        """Never cached: a check that finds a file unchanged does not move the data version
        (and /data-freshness is asked rarely; one small read)."""
        return self._source.sources()

    def ping(self) -> None:
        """The source's own probe, if it has one (readiness must reach the database)."""
        ping = getattr(self._source, "ping", None)
        if callable(ping):
            ping()
