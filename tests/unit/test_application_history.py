"""Data versions and the changes each records (ImportDataset on the in-memory store)."""

from __future__ import annotations

import datetime as dt

import attrs
import pytest

from schooldata.adapters.memory.store import InMemoryStore
from schooldata.application.import_dataset import DatasetKind, ImportDataset, ImportJob
from schooldata.domain.changes import ChangeFilter, ChangeKind, SchoolChange
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.errors import ImportRejected
from schooldata.domain.links import Establishment, EstablishmentLink
from schooldata.domain.measure import reported
from schooldata.domain.ofsted import HistoricGrade, InspectionRecord, UngradedInspection
from schooldata.domain.phase import GiasPhase, Phase
from schooldata.domain.releases import Release, ReleaseStatus
from schooldata.domain.results import MeasureRecord
from schooldata.domain.school import School
from schooldata.domain.urn import Urn
from schooldata.ports.imports import RejectLog

START = dt.datetime(2026, 9, 2, 6, 0, tzinfo=dt.UTC)


class SteppingClock:
    """One hour later at each reading."""

    def __init__(self, start: dt.datetime = START) -> None:
        self.current = start

    def now(self) -> dt.datetime:
        self.current += dt.timedelta(hours=1)
        return self.current

    def timestamp(self) -> float:
        return self.now().timestamp()


def record(name: str, *, demo: bool = False, extract: dt.date | None = None) -> DatasetRecord:
    return DatasetRecord(
        name=name,
        title=name,
        publisher="Department for Education",
        licence="OGL-UK-3.0",
        attribution="Contains public sector information licensed under the OGL v3.0.",
        url=None,
        extract_date=extract,
        imported_at=dt.datetime(2000, 1, 1, tzinfo=dt.UTC),
        synthetic=demo,
        demo=demo,
    )


def school(urn: int, name: str, **fields: object) -> School:
    base: dict[str, object] = {
        "gias_phase": GiasPhase.PRIMARY,
        "la_code": "213",
        "la_name": "Westminster",
    }
    return School(urn=Urn(urn), name=name, **{**base, **fields})  # type: ignore[arg-type]


REGISTER = [school(100001, "Alpha Primary"), school(100002, "Beta Primary")]
REGISTER += [school(100003, "Gamma Primary", la_code="202", la_name="Camden")]


class History:
    def __init__(self, retention_days: int = 400) -> None:
        self.store = InMemoryStore()
        self.clock = SteppingClock()
        self.imports = ImportDataset(
            store=self.store, clock=self.clock, retention_days=retention_days
        )

    def register(self, schools: list[School], *, listed: dict[int, str] | None = None) -> None:
        log = RejectLog()
        for urn, status in (listed or {}).items():
            log.listed_closed.add(Urn(urn))
            log.listed[Urn(urn)] = Establishment(urn=Urn(urn), name=f"Was {urn}", status=status)
        self.imports.execute(
            kind=DatasetKind.SCHOOLS,
            items=schools,
            log=log,
            record=record("gias_establishments"),
            allow_shrink=True,
        )

    def results(
        self,
        dataset: str,
        records: list[MeasureRecord],
        stated: dict[str, ReleaseStatus | None] | None = None,
    ) -> None:
        log = RejectLog()
        log.releases.update(stated or {})
        self.imports.execute(
            kind=DatasetKind.MEASURES, items=records, log=log, record=record(dataset)
        )

    def changes(self, since: int = 0, **wanted: object) -> list[SchoolChange]:
        current = self.store.current_version()
        assert current is not None
        _, listed = self.store.changes(
            after=since,
            upto=current.sequence,
            wanted=ChangeFilter(**wanted),  # type: ignore[arg-type]
            offset=0,
            limit=1000,
        )
        return [item.change for item in listed]

    def sequence(self) -> int:
        current = self.store.current_version()
        assert current is not None
        return current.sequence


def a8(urn: int, period: str, value: float, dataset: str = "ks4_results") -> MeasureRecord:
    return MeasureRecord(Urn(urn), dataset, period, "ks4_attainment8_average", reported(value))


@pytest.fixture
def history() -> History:
    made = History()
    made.register(REGISTER)
    return made


def test_the_first_import_makes_the_first_version_and_records_no_changes() -> None:
    made = History()
    assert made.store.data_version() is None
    made.register(REGISTER)
    first = made.store.data_version()
    assert first is not None
    assert first.datasets == ("gias_establishments",)
    assert made.changes() == []
    assert first.id.endswith(f"-{first.sequence:06d}")
    assert first.id.startswith(f"{first.made_at:%Y%m%dT%H%M%SZ}")


def test_a_register_import_records_each_school_opened_closed_and_renamed(
    history: History,
) -> None:
    since = history.sequence()
    renamed = attrs.evolve(REGISTER[1], name="Beta Church of England Primary")
    history.register(
        [REGISTER[0], renamed, school(100004, "Delta Primary")], listed={100003: "Closed"}
    )
    changes = history.changes(since)
    assert [(c.urn.value, c.kind, c.fields) for c in changes] == [
        (100002, ChangeKind.UPDATED, ("name",)),
        (100003, ChangeKind.CLOSED, ()),
        (100004, ChangeKind.OPENED, ()),
    ]
    closed = changes[1]
    assert (closed.where.la_name, closed.where.phase) == ("Camden", Phase.PRIMARY)


def test_an_unchanged_register_records_a_version_with_no_changes(history: History) -> None:
    since = history.sequence()
    history.register(REGISTER)
    assert history.sequence() > since
    assert history.changes(since) == []


def test_the_historic_grade_is_named_as_the_profile_names_its_parts(history: History) -> None:
    since = history.sequence()
    graded = attrs.evolve(REGISTER[0], ofsted=HistoricGrade(2, dt.date(2019, 3, 1)))
    history.register([graded, *REGISTER[1:]])
    (change,) = history.changes(since)
    assert change.fields == ("ofsted_rating", "ofsted")


def test_a_results_year_is_added_once_per_school_and_key_stage(history: History) -> None:
    since = history.sequence()
    history.results("ks4_results", [a8(100001, "2024/25", 50.1), a8(100002, "2024/25", 44.0)])
    kinds = {(c.urn.value, c.kind, c.key_stage, c.year) for c in history.changes(since)}
    assert kinds == {
        (100001, ChangeKind.RESULTS_ADDED, "ks4", "2024/25"),
        (100002, ChangeKind.RESULTS_ADDED, "ks4", "2024/25"),
    }


def test_the_same_figures_again_are_no_change_but_a_revision_of_the_year_is(
    history: History,
) -> None:
    figures = [a8(100001, "2024/25", 50.1), a8(100002, "2024/25", 44.0)]
    history.results("ks4_results", figures, {"2024/25": ReleaseStatus.PROVISIONAL})
    again = history.sequence()
    history.results("ks4_results", figures, {"2024/25": ReleaseStatus.PROVISIONAL})
    assert history.changes(again) == []
    revised = history.sequence()
    history.results("ks4_results", figures, {"2024/25": ReleaseStatus.REVISED})
    assert {c.urn.value for c in history.changes(revised)} == {100001, 100002}
    assert history.store.releases() == [
        Release(dataset="ks4_results", period="2024/25", status=ReleaseStatus.REVISED)
    ]


def test_a_changed_figure_is_a_change_of_its_year_only(history: History) -> None:
    history.results("ks4_results", [a8(100001, "2023/24", 49.0), a8(100001, "2024/25", 50.1)])
    since = history.sequence()
    history.results("ks4_results", [a8(100001, "2024/25", 51.5)])
    results = [c for c in history.changes(since) if c.kind is ChangeKind.RESULTS_ADDED]
    assert [(c.urn.value, c.year) for c in results] == [(100001, "2024/25")]


def test_new_inspections_are_added_and_one_published_again_is_not(history: History) -> None:
    def visit(urn: int, day: int, number: str) -> InspectionRecord:
        when = dt.date(2025, 1, day)
        return InspectionRecord(Urn(urn), UngradedInspection(when, None, "S8", "Good"), number)

    first = [visit(100001, 5, "1")]
    history.imports.execute(
        kind=DatasetKind.INSPECTIONS, items=first, log=RejectLog(), record=record("ofsted_a")
    )
    since = history.sequence()
    again = [visit(100001, 5, "1"), visit(100002, 9, "2")]
    history.imports.execute(
        kind=DatasetKind.INSPECTIONS, items=again, log=RejectLog(), record=record("ofsted_b")
    )
    added = history.changes(since)
    assert [(c.urn.value, c.kind, c.inspection_date) for c in added] == [
        (100002, ChangeKind.INSPECTION_ADDED, dt.date(2025, 1, 9))
    ]


def test_each_link_added_is_a_change_of_the_school_it_belongs_to(history: History) -> None:
    link = EstablishmentLink(Urn(100001), Urn(100009), "Old", "Predecessor", None)
    back = EstablishmentLink(Urn(100009), Urn(100001), "Alpha", "Successor", None)
    since = history.sequence()
    history.imports.execute(
        kind=DatasetKind.LINKS, items=[link, back], log=RejectLog(), record=record("gias_links")
    )
    linked = history.changes(since)
    assert [(c.urn.value, c.linked_urn, c.link_type) for c in linked] == [
        (100001, Urn(100009), "Predecessor"),
        (100009, Urn(100001), "Successor"),
    ]


def test_a_failed_import_records_nothing_and_leaves_the_version(history: History) -> None:
    before = history.store.data_version()
    with pytest.raises(ImportRejected):
        history.register([])  # nothing to import
    assert history.store.data_version() == before


def test_changes_are_filtered_by_kind_authority_and_phase(history: History) -> None:
    since = history.sequence()
    history.register(
        [attrs.evolve(REGISTER[0], name="Alpha Academy"), REGISTER[1]], listed={100003: "Closed"}
    )
    assert [c.urn.value for c in history.changes(since, kind=ChangeKind.CLOSED)] == [100003]
    assert [c.urn.value for c in history.changes(since, local_authority="camden")] == [100003]
    assert [c.urn.value for c in history.changes(since, local_authority="213")] == [100001]
    assert history.changes(since, phase=Phase.SECONDARY) == []


def test_versions_older_than_the_retention_are_forgotten_with_their_changes() -> None:
    made = History(retention_days=1)
    made.register(REGISTER)
    first = made.sequence()
    made.clock.current += dt.timedelta(days=2)
    made.register(REGISTER[:2], listed={100003: "Closed"})
    assert made.store.held_version(sequence=first) is None
    current = made.store.current_version()
    assert current is not None
    assert made.store.oldest_version(made_since=START) == current


def test_several_imports_together_make_one_version() -> None:
    made = History()
    jobs = [
        ImportJob(
            kind=DatasetKind.SCHOOLS,
            items=REGISTER,
            log=RejectLog(),
            record=record("gias_establishments", demo=True),
        ),
        ImportJob(
            kind=DatasetKind.MEASURES,
            items=[a8(100001, "2024/25", 50.0)],
            log=RejectLog(),
            record=record("ks4_results", demo=True),
        ),
    ]
    made.imports.execute_together(jobs)
    (only,) = made.store._state.versions
    assert only.datasets == ("gias_establishments", "ks4_results")


def test_real_data_replacing_the_demo_starts_the_history_again() -> None:
    made = History()
    demo = ImportJob(
        kind=DatasetKind.SCHOOLS,
        items=REGISTER,
        log=RejectLog(),
        record=record("gias_establishments", demo=True),
    )
    made.imports.execute_together([demo])
    demo_version = made.sequence()
    made.register([school(120001, "Real Primary")])
    assert made.store.held_version(sequence=demo_version) is None
    assert made.changes() == []


def test_a_register_keeps_the_facts_of_closed_establishments_for_links(history: History) -> None:
    history.register(REGISTER[:2], listed={100003: "Closed"})
    link = EstablishmentLink(Urn(100001), Urn(100003), "Gamma", "Predecessor", None)
    history.imports.execute(
        kind=DatasetKind.LINKS, items=[link], log=RejectLog(), record=record("gias_links")
    )
    (served,) = history.store.links_for(urn=Urn(100001))
    assert served.linked == Establishment(urn=Urn(100003), name="Was 100003", status="Closed")
