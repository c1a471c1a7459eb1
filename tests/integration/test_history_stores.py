"""Data versions, their changes, releases and the facts of closed establishments: the SQL
stores (SQLite, PostgreSQL) record and answer exactly as the in-memory store does."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import attrs
import pytest
from sqlalchemy import create_engine, insert, select, text
from tests.integration.conftest import Store

from schooldata.adapters.memory.store import InMemoryStore
from schooldata.adapters.sql import SqlStore
from schooldata.adapters.sql import tables as t
from schooldata.adapters.sql.migrations import _config
from schooldata.application.import_dataset import DatasetKind, ImportDataset
from schooldata.domain.changes import ChangeFilter, ChangeKind, ListedChange
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.errors import ImportRejected
from schooldata.domain.links import Establishment, EstablishmentLink
from schooldata.domain.measure import reported
from schooldata.domain.ofsted import InspectionRecord, UngradedInspection
from schooldata.domain.phase import GiasPhase, Phase
from schooldata.domain.releases import ReleaseStatus
from schooldata.domain.results import MeasureRecord
from schooldata.domain.school import School
from schooldata.domain.urn import Urn
from schooldata.ports.imports import RejectLog

START = dt.datetime(2026, 9, 2, 6, 0, tzinfo=dt.UTC)


class SteppingClock:
    def __init__(self) -> None:
        self.current = START

    def now(self) -> dt.datetime:
        self.current += dt.timedelta(minutes=7)
        return self.current

    def timestamp(self) -> float:
        return self.now().timestamp()


def record(name: str, extract: dt.date | None = None) -> DatasetRecord:
    return DatasetRecord(
        name=name,
        title=name,
        publisher="Department for Education",
        licence="OGL-UK-3.0",
        attribution="OGL",
        url=None,
        extract_date=extract,
        imported_at=START,
    )


def school(urn: int, name: str, la: str = "Westminster", code: str = "213") -> School:
    return School(urn=Urn(urn), name=name, gias_phase=GiasPhase.SECONDARY, la_name=la, la_code=code)


def a8(urn: int, period: str, value: float) -> MeasureRecord:
    return MeasureRecord(
        Urn(urn), "ks4_results", period, "ks4_attainment8_average", reported(value)
    )


def play(store: Store) -> list[ListedChange]:
    """The same imports, in the same order, at the same times, whatever the store."""
    imports = ImportDataset(store=store, clock=SteppingClock())
    register = [
        school(100001, "Alpha"),
        school(100002, "Beta"),
        school(100003, "Gamma", "Camden", "202"),
    ]

    def gias(schools: list[School], closed: dict[int, str]) -> None:
        log = RejectLog()
        for urn, name in closed.items():
            log.listed_closed.add(Urn(urn))
            log.listed[Urn(urn)] = Establishment(
                urn=Urn(urn), name=name, status="Closed", closed=dt.date(2026, 8, 31)
            )
        imports.execute(
            kind=DatasetKind.SCHOOLS, items=schools, log=log,
            record=record("gias_establishments"), allow_shrink=True,
        )  # fmt: skip

    gias(register, {100009: "Old Alpha"})
    gias([attrs.evolve(register[0], name="Alpha Academy"), register[1], school(100004, "Delta")],
         {100003: "Gamma", 100009: "Old Alpha"})  # fmt: skip
    log = RejectLog()
    log.releases["2024/25"] = ReleaseStatus.PROVISIONAL
    figures = [
        a8(100001, "2024/25", 51.0),
        a8(100002, "2024/25", 47.5),
        a8(100009, "2023/24", 40.0),
    ]
    imports.execute(kind=DatasetKind.MEASURES, items=figures, log=log, record=record("ks4_results"))
    log = RejectLog()
    log.releases["2024/25"] = ReleaseStatus.REVISED
    imports.execute(
        kind=DatasetKind.MEASURES, items=figures[:2], log=log,
        record=record("ks4_results", dt.date(2026, 3, 12)),
    )  # fmt: skip
    visit = UngradedInspection(dt.date(2026, 5, 4), None, "S8", "Good")
    imports.execute(
        kind=DatasetKind.INSPECTIONS, items=[InspectionRecord(Urn(100002), visit, "77")],
        log=RejectLog(), record=record("ofsted_all_inspections"),
    )  # fmt: skip
    links = [
        EstablishmentLink(
            Urn(100001), Urn(100009), "Old Alpha", "Predecessor", dt.date(2026, 9, 1)
        ),
        EstablishmentLink(Urn(100009), Urn(100001), "Alpha", "Successor", dt.date(2026, 9, 1)),
    ]
    imports.execute(
        kind=DatasetKind.LINKS, items=links, log=RejectLog(), record=record("gias_links")
    )
    with pytest.raises(ImportRejected):
        imports.execute(
            kind=DatasetKind.LINKS, items=[], log=RejectLog(), record=record("gias_links")
        )
    current = store.current_version()
    assert current is not None
    first = store.oldest_version(made_since=START)
    assert first is not None
    total, listed = store.changes(
        after=first.sequence, upto=current.sequence, wanted=ChangeFilter(), offset=0, limit=100
    )
    assert total == len(listed)
    return listed


@pytest.fixture(scope="module")
def expected() -> list[ListedChange]:
    return play(InMemoryStore())


def test_every_store_records_the_same_changes_in_the_same_order(
    store: Store, expected: list[ListedChange]
) -> None:
    assert play(store) == expected
    kinds = [(item.change.urn.value, item.change.kind.value) for item in expected]
    assert kinds == [
        (100001, "updated"),  # renamed
        (100003, "closed"),
        (100004, "opened"),
        (100001, "updated"),  # its score's reason, once it has results
        (100001, "results_added"),
        (100002, "updated"),
        (100002, "results_added"),
        (100009, "results_added"),
        (100001, "results_added"),
        (100002, "results_added"),
        (100002, "inspection_added"),
        (100001, "linked"),
        (100009, "linked"),
    ]


def test_changes_page_filter_and_count_alike(store: Store) -> None:
    play(store)
    current = store.current_version()
    assert current is not None
    wanted = ChangeFilter(kind=ChangeKind.RESULTS_ADDED, local_authority="westminster")
    total, page = store.changes(after=0, upto=current.sequence, wanted=wanted, offset=1, limit=2)
    assert total == 4
    assert [(i.change.urn.value, i.change.year) for i in page] == [
        (100002, "2024/25"),
        (100001, "2024/25"),
    ]
    camden = ChangeFilter(local_authority="202", phase=Phase.SECONDARY)
    total, page = store.changes(after=0, upto=current.sequence, wanted=camden, offset=0, limit=9)
    assert [(i.change.urn.value, i.change.kind) for i in page] == [(100003, ChangeKind.CLOSED)]


def test_releases_and_linked_facts_round_trip(store: Store) -> None:
    play(store)
    earlier, release = store.releases()
    assert (earlier.period, earlier.status, earlier.released) == ("2023/24", None, None)
    assert (release.period, release.status, release.released) == (
        "2024/25",
        ReleaseStatus.REVISED,
        dt.date(2026, 3, 12),
    )
    (link,) = store.links_for(urn=Urn(100001))
    assert link.linked == Establishment(
        urn=Urn(100009), name="Old Alpha", status="Closed", closed=dt.date(2026, 8, 31)
    )
    assert store.data_version() == store.current_version()


def test_a_database_migrated_with_data_gets_its_first_version(tmp_path: Path) -> None:
    from alembic import command

    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_engine(url)
    config = _config()
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0004")
        conn.execute(
            insert(t.datasets),
            {**attrs.asdict(record("gias_establishments"), recurse=False), "row_count": 3},
        )
        conn.execute(text("UPDATE data_version SET counter = 41"))
    engine.dispose()
    store = SqlStore(url)
    try:
        store.upgrade()
        first = store.data_version()
        assert first is not None
        assert (first.sequence, first.made_at, first.datasets) == (
            41,
            START,
            ("gias_establishments",),
        )
        with store.engine.connect() as conn:
            assert conn.execute(select(t.data_changes)).all() == []
    finally:
        store.close()
