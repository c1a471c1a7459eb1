"""The postcode and dataset caches answer exactly as their source, per data version."""

from __future__ import annotations

import datetime as dt
import threading

import attrs
import pytest
from tests.support.dataset import POSTCODES, build_store

from schooldata.adapters.memory.lookups import CachedDatasets, CachedPostcodes, DataVersion
from schooldata.adapters.memory.store import InMemoryStore
from schooldata.application.locate import locate_postcode
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.errors import DataUnavailable, DomainError
from schooldata.domain.geo import Location
from schooldata.domain.postcode import PostcodeQuery, parse_postcode

KNOWN = ["SW1A 1AA", "sw1a1aa", " b1 1aa ", "NW1 1AA", "B2 4QA"]
OUTWARD = ["SW1A", "sw1p", "B1", "b2", "NW1", "WC2N"]
UNKNOWN = ["ZZ9 9ZZ", "SW1A 9ZZ", "ZZ9", "E1", "A9A"]
MALFORMED = ["", " ", "S", "SW1A 1A", "12345", "SW1A-1AA", "ß1", "SW1A 1AAA", "1AA"]


class CountingSource:
    """The in-memory store, counting the reads that reach it; `down` makes them fail."""

    def __init__(self, store: InMemoryStore) -> None:
        self.store = store
        self.locates: list[str] = []
        self.currents = 0
        self.versions = 0
        self.pings = 0
        self.down = False

    def locate(self, *, postcode: PostcodeQuery) -> Location | None:
        self._check()
        self.locates.append(postcode.compact)
        return self.store.locate(postcode=postcode)

    def current(self) -> list[DatasetRecord]:
        self._check()
        self.currents += 1
        return self.store.current()

    def version(self) -> str:
        self._check()
        self.versions += 1
        return self.store.version()

    def ping(self) -> None:
        self._check()
        self.pings += 1

    def _check(self) -> None:
        if self.down:
            raise DataUnavailable("the test database is down")


def outcome(postcodes: object, raw: str) -> object:
    """What the locate use case makes of `raw`: a location, or the error class it raises."""
    try:
        return locate_postcode(postcodes, raw)  # type: ignore[arg-type]
    except DomainError as error:
        return type(error)


def record(name: str) -> DatasetRecord:
    return DatasetRecord(
        name=name,
        title=f"{name} (test)",
        publisher="Test",
        licence="OGL",
        attribution="Test",
        url=None,
        extract_date=None,
        imported_at=dt.datetime(2026, 11, 1, tzinfo=dt.UTC),
    )


@pytest.fixture
def store() -> InMemoryStore:
    return build_store()


@pytest.fixture
def source(store: InMemoryStore) -> CountingSource:
    return CountingSource(store)


def test_the_cache_answers_known_outward_unknown_and_malformed_postcodes_as_the_store_does(
    store: InMemoryStore,
) -> None:
    cache = CachedPostcodes(store, version=store.version)
    for raw in KNOWN + OUTWARD + UNKNOWN + MALFORMED:
        expected = outcome(store, raw)
        assert outcome(cache, raw) == expected, raw
        assert outcome(cache, raw) == expected, f"{raw} (cached)"


def test_an_outward_code_and_a_full_postcode_with_the_same_characters_are_cached_apart(
    store: InMemoryStore,
) -> None:
    full = PostcodeQuery(outward="B1", inward="1AA")
    outward = PostcodeQuery(outward="B11AA", inward=None)  # the same compact key, "B11AA"
    for first, second in ((full, outward), (outward, full)):
        cache = CachedPostcodes(store, version=store.version)
        assert cache.locate(postcode=first) == store.locate(postcode=first)
        assert cache.locate(postcode=second) == store.locate(postcode=second)
    assert store.locate(postcode=full) == POSTCODES["B11AA"]
    assert store.locate(postcode=outward) is None


def test_answers_and_unknown_postcodes_are_read_from_the_source_once_per_data_version(
    source: CountingSource,
) -> None:
    cache = CachedPostcodes(source, version=source.version)
    for _ in range(3):
        for raw in ["SW1A 1AA", "sw1a1aa", "SW1A", "ZZ9 9ZZ", "ZZ9"]:
            cache.locate(postcode=parse_postcode(raw))
    assert source.locates == ["SW1A1AA", "SW1A", "ZZ99ZZ", "ZZ9"]


def test_importing_a_new_postcode_changes_the_version_and_drops_cached_answers(
    store: InMemoryStore,
) -> None:
    cache = CachedPostcodes(store, version=store.version)
    new, outward = parse_postcode("ZZ9 9ZZ"), parse_postcode("ZZ9")
    moved = parse_postcode("SW1A 1AA")
    assert cache.locate(postcode=new) is None
    assert cache.locate(postcode=outward) is None
    assert cache.locate(postcode=moved) == POSTCODES["SW1A1AA"]

    with store.transaction() as tx:
        tx.replace_postcodes(
            postcodes=[("ZZ99ZZ", Location(55.0, -3.0)), ("SW1A1AA", Location(51.6, -0.2))],
            source="onspd",  # a later source: wins where both hold a postcode
        )

    assert cache.locate(postcode=new) == Location(55.0, -3.0)
    assert cache.locate(postcode=outward) == Location(55.0, -3.0)
    assert cache.locate(postcode=moved) == Location(51.6, -0.2)
    for raw in KNOWN + OUTWARD + UNKNOWN:
        assert outcome(cache, raw) == outcome(store, raw), raw


def test_an_import_is_seen_once_the_throttled_version_is_asked_again(
    store: InMemoryStore,
) -> None:
    unknown = parse_postcode("ZZ9 9ZZ")
    slow = CachedPostcodes(store, version=DataVersion(store.version, refresh_seconds=3600))
    eager = CachedPostcodes(store, version=DataVersion(store.version, refresh_seconds=0))
    assert slow.locate(postcode=unknown) is None
    assert eager.locate(postcode=unknown) is None

    with store.transaction() as tx:
        tx.replace_postcodes(postcodes=[("ZZ99ZZ", Location(55.0, -3.0))], source="onspd")

    assert slow.locate(postcode=unknown) is None  # until its next check, as the snapshot
    assert eager.locate(postcode=unknown) == Location(55.0, -3.0)


def test_the_data_version_is_asked_at_most_once_per_refresh_interval(
    source: CountingSource,
) -> None:
    version = DataVersion(source.version, refresh_seconds=3600)
    cache = CachedPostcodes(source, version=version)
    datasets = CachedDatasets(source, version=version)
    for raw in KNOWN + OUTWARD + UNKNOWN:
        cache.locate(postcode=parse_postcode(raw))
        datasets.current()
    assert source.versions == 1
    assert source.currents == 1


def test_an_unavailable_source_propagates_and_its_error_is_never_cached(
    source: CountingSource,
) -> None:
    cache = CachedPostcodes(source, version=lambda: "v1")
    datasets = CachedDatasets(source, version=lambda: "v1")
    source.down = True
    with pytest.raises(DataUnavailable):
        cache.locate(postcode=parse_postcode("SW1A 1AA"))
    with pytest.raises(DataUnavailable):
        datasets.current()
    assert cache.cached_count() == 0

    source.down = False
    assert cache.locate(postcode=parse_postcode("SW1A 1AA")) == POSTCODES["SW1A1AA"]
    assert datasets.current() == source.store.current()


def test_an_unavailable_version_propagates_even_when_answers_are_cached(
    source: CountingSource,
) -> None:
    cache = CachedPostcodes(source, version=DataVersion(source.version, refresh_seconds=0))
    cache.locate(postcode=parse_postcode("SW1A 1AA"))
    source.down = True
    with pytest.raises(DataUnavailable):
        cache.locate(postcode=parse_postcode("SW1A 1AA"))
    source.down = False
    assert cache.locate(postcode=parse_postcode("SW1A 1AA")) == POSTCODES["SW1A1AA"]


def test_after_a_failed_version_check_reads_fail_at_once_until_the_next_interval(
    source: CountingSource,
) -> None:
    version = DataVersion(source.version, refresh_seconds=3600)
    source.down = True
    with pytest.raises(DataUnavailable):
        version()
    source.down = False
    with pytest.raises(DataUnavailable):
        version()  # not asked again within the interval
    assert source.versions == 0

    retrying = DataVersion(source.version, refresh_seconds=0)
    source.down = True
    with pytest.raises(DataUnavailable):
        retrying()
    source.down = False
    assert retrying() == source.store.version()


def test_the_cache_holds_at_most_max_entries_and_evicts_the_least_recently_used(
    source: CountingSource,
) -> None:
    cache = CachedPostcodes(source, version=lambda: "v1", max_entries=2)
    a, b, c = (parse_postcode(raw) for raw in ("SW1A 1AA", "SW1A 2AA", "B1 1AA"))
    for postcode in (a, b, a, c):  # a is used again, so b is the least recently used
        cache.locate(postcode=postcode)
    assert cache.cached_count() == 2
    assert source.locates == ["SW1A1AA", "SW1A2AA", "B11AA"]

    assert cache.locate(postcode=a) == POSTCODES["SW1A1AA"]
    assert source.locates[-1] == "B11AA"  # a was still cached
    assert cache.locate(postcode=b) == POSTCODES["SW1A2AA"]
    assert source.locates[-1] == "SW1A2AA"  # b had been evicted
    assert cache.cached_count() == 2


def test_the_bound_applies_to_outward_codes_too(source: CountingSource) -> None:
    cache = CachedPostcodes(source, version=lambda: "v1", max_entries=3)
    for raw in OUTWARD:
        cache.locate(postcode=parse_postcode(raw))
    assert len(OUTWARD) > 3
    assert cache.cached_count() == 3


def test_concurrent_lookups_answer_as_the_store_and_keep_the_bound(store: InMemoryStore) -> None:
    cache = CachedPostcodes(store, version=store.version, max_entries=4)
    raws = KNOWN + OUTWARD + UNKNOWN
    expected = {raw: store.locate(postcode=parse_postcode(raw)) for raw in raws}
    wrong: list[str] = []

    def work() -> None:
        for _ in range(200):
            for raw in raws:
                if cache.locate(postcode=parse_postcode(raw)) != expected[raw]:
                    wrong.append(raw)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
    assert cache.cached_count() <= 8


def test_the_dataset_list_is_read_once_per_data_version_and_follows_imports(
    source: CountingSource,
) -> None:
    datasets = CachedDatasets(source, version=source.store.version)
    assert datasets.current() == source.store.current()
    assert datasets.current() == source.store.current()
    assert source.currents == 1

    with source.store.transaction() as tx:
        tx.record_dataset(record=record("codepoint_open"))

    assert [r.name for r in datasets.current()] == ["codepoint_open", "gias_establishments"]
    assert source.currents == 2


def test_changing_a_returned_dataset_list_does_not_change_the_cache(
    source: CountingSource,
) -> None:
    datasets = CachedDatasets(source, version=lambda: "v1")
    first = datasets.current()
    first.append(attrs.evolve(first[0], name="tampered"))
    first.clear()
    assert datasets.current() == source.store.current()


def test_the_cached_registry_pings_its_source_so_readiness_still_reaches_the_database(
    source: CountingSource,
) -> None:
    datasets = CachedDatasets(source, version=lambda: "v1")
    datasets.ping()
    assert source.pings == 1
    source.down = True
    with pytest.raises(DataUnavailable):
        datasets.ping()
    CachedDatasets(InMemoryStore(), version=lambda: "v1").ping()  # no probe: nothing to do


def test_a_cache_bound_below_one_is_refused(store: InMemoryStore) -> None:
    with pytest.raises(ValueError, match="max_entries"):
        CachedPostcodes(store, version=store.version, max_entries=0)
