"""The serving snapshot: built in the background, swapped whole, never read through to the
store, failing at once while the store is down or hung, and answering as the store does."""

from __future__ import annotations

import gc
import threading
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.support.dataset import build_store

from schooldata.adapters.memory.postcode_index import BLOCK, PostcodeIndex, pack
from schooldata.adapters.memory.snapshot import SnapshotReader
from schooldata.adapters.memory.store import InMemoryStore
from schooldata.domain.errors import DataUnavailable
from schooldata.domain.geo import Location
from schooldata.domain.postcode import parse_postcode
from schooldata.domain.search import SchoolQuery


class Source:
    """A store whose version check can be made to fail, hang or count."""

    def __init__(self, inner: InMemoryStore) -> None:
        self.inner = inner
        self.down = False
        self.hang = threading.Event()
        self.checks = 0
        self.builds = 0

    def version(self) -> str:
        self.checks += 1
        if self.hang.is_set():
            time.sleep(5)
        if self.down:
            raise DataUnavailable()
        return self.inner.version()

    def iter_all(self) -> Any:
        self.builds += 1
        return self.inner.iter_all()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def wait_until(condition: Any, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.01)


@pytest.fixture
def source() -> Source:
    return Source(build_store())


def test_the_first_read_waits_for_the_first_build_and_answers_as_the_store(source: Source) -> None:
    reader = SnapshotReader(source, refresh_seconds=0.05)  # type: ignore[arg-type]
    try:
        assert reader.search(query=SchoolQuery()) == source.inner.search(query=SchoolQuery())
        assert reader.ready
        assert reader.local_authorities() == source.inner.local_authorities()
        assert list(reader.current()) == source.inner.current()
    finally:
        reader.close()


def test_every_read_of_one_data_version_gets_the_same_dataset_tuple(source: Source) -> None:
    """So the answers' sources are recognised by identity (`wire.meta.AttributionOf`)."""
    reader = SnapshotReader(source, refresh_seconds=60)  # type: ignore[arg-type]
    try:
        first = reader.current()
        assert isinstance(first, tuple) and first
        assert reader.current() is first
    finally:
        reader.close()


def test_reads_never_reach_the_store_between_checks(source: Source) -> None:
    reader = SnapshotReader(source, refresh_seconds=60)  # type: ignore[arg-type]
    try:
        reader.search(query=SchoolQuery())
        checks = source.checks
        for _ in range(100):
            reader.search(query=SchoolQuery())
            reader.current()
        assert source.checks == checks
        assert source.builds == 1
    finally:
        reader.close()


def test_a_failed_check_fails_reads_at_once_and_a_good_one_brings_them_back(
    source: Source,
) -> None:
    reader = SnapshotReader(source, refresh_seconds=0.02)  # type: ignore[arg-type]
    try:
        reader.search(query=SchoolQuery())
        source.down = True
        wait_until(lambda: _fails(reader))
        started = time.monotonic()
        with pytest.raises(DataUnavailable):
            reader.get(urn=next(iter(source.inner.iter_all())).urn)
        assert time.monotonic() - started < 0.05
        source.down = False
        wait_until(lambda: not _fails(reader))
    finally:
        reader.close()


def test_a_hung_check_fails_reads_after_the_staleness_bound_without_waiting(
    source: Source,
) -> None:
    reader = SnapshotReader(source, refresh_seconds=0.02, stale_after=0.2)  # type: ignore[arg-type]
    try:
        reader.search(query=SchoolQuery())
        source.hang.set()
        time.sleep(0.3)
        started = time.monotonic()
        with pytest.raises(DataUnavailable):
            reader.search(query=SchoolQuery())
        assert time.monotonic() - started < 0.05
    finally:
        source.hang.clear()
        reader.close()


def test_a_store_down_from_the_start_fails_reads_instead_of_waiting_forever(
    source: Source,
) -> None:
    source.down = True
    reader = SnapshotReader(source, refresh_seconds=0.02)  # type: ignore[arg-type]
    try:
        with pytest.raises(DataUnavailable):
            reader.search(query=SchoolQuery())
        assert not _ready_and_serving(reader)
        source.down = False
        wait_until(lambda: _ready_and_serving(reader))
    finally:
        reader.close()


def test_the_postcodes_are_rebuilt_only_when_a_postcode_dataset_changes(source: Source) -> None:
    reader = SnapshotReader(source, refresh_seconds=60)  # type: ignore[arg-type]
    try:
        reader.search(query=SchoolQuery())
        first = reader._current()
        with source.inner.transaction() as tx:
            tx.replace_schools(schools=list(source.inner.iter_all())[1:])
        reader.check()
        second = reader._current()
        assert second.version != first.version
        assert second.postcodes is first.postcodes
    finally:
        reader.close()


def test_the_background_thread_stops_with_its_reader(source: Source) -> None:
    reader = SnapshotReader(source, refresh_seconds=0.01)  # type: ignore[arg-type]
    reader.search(query=SchoolQuery())
    thread = reader._rebuilder
    assert thread is not None and thread.is_alive()
    del reader
    gc.collect()
    thread.join(timeout=2)
    assert not thread.is_alive()


def _fails(reader: SnapshotReader) -> bool:
    try:
        reader.search(query=SchoolQuery())
    except DataUnavailable:
        return True
    return False


def _ready_and_serving(reader: SnapshotReader) -> bool:
    return reader.ready and not _fails(reader)


# ---- the packed postcode index ----------------------------------------------------------

POSTCODE = st.from_regex(r"[A-Z]{1,2}[0-9][A-Z0-9]?[0-9][A-Z]{2}", fullmatch=True)


@settings(max_examples=300)
@given(st.lists(POSTCODE, min_size=2, max_size=2, unique=True))
def test_packed_keys_sort_as_the_postcodes_do(pair: list[str]) -> None:
    a, b = pair
    assert (pack(a) or 0) < (pack(b) or 0) if a < b else (pack(a) or 0) > (pack(b) or 0)


@settings(max_examples=100)
@given(
    st.dictionaries(
        POSTCODE,
        st.tuples(st.floats(49, 61), st.floats(-8, 2)),
        max_size=50,
    ),
    st.lists(POSTCODE, max_size=10),
)
def test_the_index_answers_as_a_dict_of_the_winning_sources(
    postcodes: dict[str, tuple[float, float]], unknown: list[str]
) -> None:
    rows = [(code, lat, lon) for code, (lat, lon) in sorted(postcodes.items())]
    # An earlier source's answer for each postcode comes first and loses.
    losing = [(code, 0.0, 0.0) for code, _, _ in rows]
    merged = sorted(losing + rows, key=lambda r: r[0])  # stable: the winner stays last
    index = PostcodeIndex(merged, [])
    assert len(index) == len(postcodes)
    for code, (lat, lon) in postcodes.items():
        assert index.locate(postcode=parse_postcode(code)) == Location(lat, lon)
    for code in unknown:
        if code not in postcodes:
            assert index.locate(postcode=parse_postcode(code)) is None


def test_an_index_read_out_of_order_sorts_itself() -> None:
    rows = [("SW1A1AA", 51.5, -0.14), ("AB101AB", 57.1, -2.1), ("SW1A1AA", 51.6, -0.15)]
    index = PostcodeIndex(rows, [("SW1A", 51.5, -0.14)])
    assert index.locate(postcode=parse_postcode("AB10 1AB")) == Location(57.1, -2.1)
    assert index.locate(postcode=parse_postcode("SW1A 1AA")) == Location(51.6, -0.15)
    assert index.locate(postcode=parse_postcode("SW1A")) == Location(51.5, -0.14)
    assert index.locate(postcode=parse_postcode("ZZ9 9ZZ")) is None


def test_every_postcode_across_many_blocks_is_found_and_no_other() -> None:
    present = [f"AB{d}{n}A{c}" for d in range(1, 10) for n in range(10) for c in "ABDEFGHJ"]
    absent = [f"AB{d}{n}A{c}" for d in range(1, 10) for n in range(10) for c in "QUZ"]
    absent += ["AA11AA", "ZZ99ZZ"]  # before the first key, after the last
    index = PostcodeIndex([(code, 50.0 + i / 1e4, -1.0) for i, code in enumerate(present)], [])
    assert len(present) > 10 * BLOCK
    for i, code in enumerate(present):
        assert index.locate(postcode=parse_postcode(code)) == Location(50.0 + i / 1e4, -1.0)
    for code in absent:
        assert index.locate(postcode=parse_postcode(code)) is None


def test_while_checks_fail_they_are_retried_quickly_so_reads_answer_soon_after_the_store(
    source: Source,
) -> None:
    """Issue 51: reads kept failing for up to a refresh interval after the store came back."""
    reader = SnapshotReader(source, refresh_seconds=2.0)  # type: ignore[arg-type]
    try:
        reader.search(query=SchoolQuery())  # the first build
        source.down = True
        wait_until(lambda: reader.failing, seconds=4)  # the next check fails
        with pytest.raises(DataUnavailable):
            reader.search(query=SchoolQuery())
        source.down = False
        came_back = time.monotonic()
        wait_until(lambda: not reader.failing, seconds=3)
        assert time.monotonic() - came_back < 0.5  # checked again within ~0.1 s, not 2 s
        reader.search(query=SchoolQuery())
    finally:
        reader.close()
