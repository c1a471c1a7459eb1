"""The refresh use case on fakes: which addresses it tries, what it skips, what it refuses
(application/refresh.py, application/publishers.py). The HTTP side is tested against a real
server on loopback in tests/integration/test_refresh.py."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from tests.support.publisher import codepoint_zip, gias_file, links_file

from schooldata.adapters.importers.readers import ImporterFiles
from schooldata.adapters.locks import ThreadLock
from schooldata.adapters.memory.store import InMemoryStore
from schooldata.application.import_dataset import ImportDataset
from schooldata.application.publishers import LOOKBACK_DAYS, PUBLICATIONS, Locations
from schooldata.application.refresh import RefreshSources, Status, select
from schooldata.domain.errors import InvalidParameter
from schooldata.ports.downloads import (
    ByteProgress,
    Downloaded,
    NotModified,
    NotPublished,
    Published,
    Validators,
)

TODAY = dt.date(2026, 11, 27)
LOCATIONS = Locations(gias_base_url="http://mirror.test/gias", codepoint_url="http://os.test/cp")
GIAS, LINKS, CODEPOINT = PUBLICATIONS


class Clock:
    def now(self) -> dt.datetime:
        return dt.datetime.combine(TODAY, dt.time(6), tzinfo=dt.UTC)

    def timestamp(self) -> float:
        return self.now().timestamp()


class Files:
    """A Downloader fake: files by address (an absent address is not published yet)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.files: dict[str, bytes] = {}
        self.asked: list[str] = []

    @contextmanager
    def download(
        self,
        *,
        url: str,
        validators: Validators | None = None,
        progress: ByteProgress | None = None,
    ) -> Iterator[Downloaded | NotModified | NotPublished]:
        self.asked.append(url)
        if url not in self.files:
            yield NotPublished(url=url, status=404)
            return
        path = self.directory / url.rsplit("/", 1)[-1]
        path.write_bytes(self.files[url])
        digest = hashlib.sha256(self.files[url]).hexdigest()
        yield Downloaded(path=path, url=url, sha256=digest, size=1, validators=Validators())

    def probe(
        self, *, url: str, validators: Validators | None = None
    ) -> Published | NotModified | NotPublished:
        if url not in self.files:
            return NotPublished(url=url, status=404)
        return Published(url=url, size=None, validators=Validators())


@pytest.fixture
def files(tmp_path: Path) -> Files:
    return Files(tmp_path)


@pytest.fixture
def store() -> InMemoryStore:
    return InMemoryStore()


def refresher(store: InMemoryStore, files: Files, lock: ThreadLock | None = None) -> RefreshSources:
    return RefreshSources(
        import_dataset=ImportDataset(store=store, clock=Clock()),
        registry=store,
        log=store,
        downloader=files,
        files=ImporterFiles(),
        lock=lock or ThreadLock(),
        clock=Clock(),
        locations=LOCATIONS,
    )


def test_gias_is_looked_for_from_today_back_a_week_never_before_the_file_imported() -> None:
    urls = [c.url for c in GIAS.candidates(LOCATIONS, today=TODAY, since=None)]
    assert len(urls) == LOOKBACK_DAYS + 1
    assert urls[0] == "http://mirror.test/gias/edubasealldata20261127.csv"
    assert urls[-1] == "http://mirror.test/gias/edubasealldata20261120.csv"
    since = [c.date for c in LINKS.candidates(LOCATIONS, today=TODAY, since=dt.date(2026, 11, 25))]
    assert since == [dt.date(2026, 11, 27), dt.date(2026, 11, 26), dt.date(2026, 11, 25)]
    ahead = GIAS.candidates(LOCATIONS, today=TODAY, since=dt.date(2026, 12, 1))
    assert [c.date for c in ahead] == [dt.date(2026, 12, 1)]
    assert [c.url for c in CODEPOINT.candidates(LOCATIONS, today=TODAY, since=None)] == [
        "http://os.test/cp"
    ]


@pytest.mark.parametrize("only", [[], ["gias", "schools"], ["GIAS"]])
def test_only_known_sources_may_be_named(only: list[str]) -> None:
    with pytest.raises(InvalidParameter, match="gias, links, postcodes"):
        select(only)
    assert select(None) == PUBLICATIONS
    assert select(["postcodes", "gias"]) == (GIAS, CODEPOINT)  # always in the same order


def test_a_refresh_finds_the_lock_held_and_does_nothing(store: InMemoryStore, files: Files) -> None:
    lock = ThreadLock()
    with lock.hold() as held:
        assert held
        report = refresher(store, files, lock).execute()
    assert report.already_running and report.ok
    assert files.asked == []


def test_an_older_codepoint_release_than_the_one_imported_is_refused(
    store: InMemoryStore, files: Files
) -> None:
    files.files["http://os.test/cp"] = codepoint_zip()
    assert refresher(store, files).execute(only=["postcodes"]).ok
    files.files["http://os.test/cp"] = codepoint_zip(release=dt.date(2025, 7, 15))
    [outcome] = refresher(store, files).execute(only=["postcodes"]).outcomes
    assert outcome.status is Status.REFUSED
    assert "http://os.test/cp: dated 2025-07-15, before the file imported last (2025-10-20)" in (
        outcome.detail
    )


def test_a_file_that_reads_as_another_dataset_is_refused(
    store: InMemoryStore, files: Files
) -> None:
    files.files["http://os.test/cp"] = (
        b"pcd,pcd2,pcds,dointr,doterm,lat,long\nAB1 0AA,AB1  0AA,AB1 0AA,198001,,57.1,-2.2\n"
    )
    [outcome] = refresher(store, files).execute(only=["postcodes"]).outcomes
    assert outcome.status is Status.REFUSED
    assert outcome.detail == ("http://os.test/cp: not codepoint_open but onspd; nothing imported.")
    assert store.current() == []


def test_each_source_stands_alone(store: InMemoryStore, files: Files) -> None:
    files.files["http://mirror.test/gias/links_edubasealldata20261126.csv"] = links_file()
    files.files["http://mirror.test/gias/edubasealldata20261127.csv"] = b"not,a,register\n"
    report = refresher(store, files).execute(only=["gias", "links"])
    assert [o.status for o in report.outcomes] == [Status.REFUSED, Status.IMPORTED]
    assert not report.ok
    assert [r.name for r in store.current()] == ["gias_links"]


def test_a_refusal_is_never_recorded_as_a_check(store: InMemoryStore, files: Files) -> None:
    files.files["http://mirror.test/gias/edubasealldata20261126.csv"] = gias_file(200)
    assert refresher(store, files).execute(only=["gias"]).ok
    before = store.sources()
    files.files["http://mirror.test/gias/edubasealldata20261127.csv"] = gias_file(50)
    [outcome] = refresher(store, files).execute(only=["gias"]).outcomes
    assert outcome.status is Status.REFUSED
    assert store.sources() == before


def test_the_same_file_again_moves_the_check_time_only(store: InMemoryStore, files: Files) -> None:
    files.files["http://mirror.test/gias/links_edubasealldata20261127.csv"] = links_file()
    assert refresher(store, files).execute(only=["links"]).ok
    version, [imported] = store.version(), store.sources()
    later = Clock()
    later.now = lambda: dt.datetime(2026, 11, 27, 9, tzinfo=dt.UTC)  # type: ignore[method-assign]
    again = RefreshSources(
        import_dataset=ImportDataset(store=store, clock=later),
        registry=store,
        log=store,
        downloader=files,
        files=ImporterFiles(),
        lock=ThreadLock(),
        clock=later,
        locations=LOCATIONS,
    )
    [outcome] = again.execute(only=["links"]).outcomes
    assert outcome.status is Status.UNCHANGED
    assert store.version() == version
    [checked] = store.sources()
    assert checked.checked_at == dt.datetime(2026, 11, 27, 9, tzinfo=dt.UTC)
    assert (checked.changed_at, checked.sha256) == (imported.changed_at, imported.sha256)
