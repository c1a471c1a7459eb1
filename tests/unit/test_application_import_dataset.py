"""ImportDataset: all or nothing, with provenance and rescoring."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import attrs
import pytest

from schooldata.adapters.memory.store import InMemoryStore
from schooldata.application.import_dataset import DatasetKind, ImportDataset
from schooldata.application.rescore import compute_scores
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.errors import ImportRejected
from schooldata.domain.geo import Location
from schooldata.domain.links import EstablishmentLink
from schooldata.domain.measure import Measure, parse_ees, reported
from schooldata.domain.ofsted import InspectionRecord, UngradedInspection
from schooldata.domain.phase import GiasPhase
from schooldata.domain.postcode import parse_postcode
from schooldata.domain.results import MeasureRecord
from schooldata.domain.school import School
from schooldata.domain.scoring import SuppressionReason
from schooldata.domain.urn import Urn
from schooldata.ports.imports import RejectLog

NOW = dt.datetime(2026, 9, 2, 6, 0, tzinfo=dt.UTC)
# Tests that replace the fixture's register with an unrelated one say so: they are not about
# the shrink guard (tests/reliability/test_import_shrink.py is), which would refuse them.
ANOTHER = {"allow_shrink": True}
KS2 = "ks2_rwm_expected_percent"


class FixedClock:
    def now(self) -> dt.datetime:
        return NOW

    def timestamp(self) -> float:
        return self.now().timestamp()


def record(name: str = "gias_establishments") -> DatasetRecord:
    return DatasetRecord(
        name=name,
        title="Get Information about Schools",
        publisher="Department for Education",
        licence="OGL-UK-3.0",
        attribution="Contains public sector information licensed under the OGL v3.0.",
        url="https://example.invalid/gias.csv",
        extract_date=dt.date(2026, 9, 1),
        imported_at=dt.datetime(2000, 1, 1, tzinfo=dt.UTC),
    )


def primaries(count: int, start: int = 100001) -> list[School]:
    return [
        School(urn=Urn(start + i), name=f"Primary {i}", gias_phase=GiasPhase.PRIMARY)
        for i in range(count)
    ]


def parsed(rows: list[School | str], log: RejectLog) -> Iterator[School]:
    """A parser: counts rows, rejects the strings with a reason, yields the schools."""
    for line, row in enumerate(rows, start=2):
        log.rows_read += 1
        if isinstance(row, str):
            log.reject(line, row)
        else:
            yield row


def snapshot(store: InMemoryStore) -> tuple[object, ...]:
    return (store.version(), list(store.iter_all()), store.current())


def after_another_import(store: InMemoryStore) -> list[School]:
    """The schools once an unrelated import has committed (nothing half-written leaks out)."""
    link = EstablishmentLink(Urn(100001), Urn(100002), "Old School", "Predecessor", None)
    ImportDataset(store=store, clock=FixedClock()).execute(
        kind=DatasetKind.LINKS, items=[link], log=RejectLog(), record=record("gias_links")
    )
    return list(store.iter_all())


@pytest.fixture
def store() -> InMemoryStore:
    data = InMemoryStore()
    ImportDataset(store=data, clock=FixedClock()).execute(
        kind=DatasetKind.SCHOOLS,
        items=primaries(3, start=900001),
        log=RejectLog(),
        record=record(),
    )
    return data


@pytest.fixture
def importer(store: InMemoryStore) -> ImportDataset:
    return ImportDataset(store=store, clock=FixedClock())


def test_a_file_with_too_many_bad_rows_is_rejected_and_nothing_changes(
    store: InMemoryStore, importer: ImportDataset
) -> None:
    before = snapshot(store)
    rows: list[School | str] = [*primaries(50), *(["bad urn"] * 11)]
    log = RejectLog()
    with pytest.raises(ImportRejected) as caught:
        importer.execute(
            kind=DatasetKind.SCHOOLS, items=parsed(rows, log), log=log, record=record()
        )
    assert caught.value.code == "import_rejected"
    assert "11 of 61" in caught.value.message
    assert snapshot(store) == before
    assert after_another_import(store) == before[1]


def test_a_few_bad_rows_are_tolerated_and_reported_with_line_numbers(
    store: InMemoryStore, importer: ImportDataset
) -> None:
    rows: list[School | str] = [*primaries(50), *(["bad urn"] * 10)]
    log = RejectLog()
    report = importer.execute(
        kind=DatasetKind.SCHOOLS, items=parsed(rows, log), log=log, record=record(), **ANOTHER
    )
    assert report.rows_read == 60
    assert report.rows_imported == 50
    assert report.rows_rejected == 10
    assert report.rejects[0] == (52, "bad urn")
    assert len(list(store.iter_all())) == 50


def test_the_reject_ratio_scales_with_the_file(importer: ImportDataset) -> None:
    rows: list[School | str] = [*primaries(2000), *(["bad"] * 20)]
    log = RejectLog()
    report = importer.execute(
        kind=DatasetKind.SCHOOLS, items=parsed(rows, log), log=log, record=record(), **ANOTHER
    )
    assert report.rows_rejected == 20  # 1% of 2020 rows is 20


def test_a_crash_mid_file_leaves_the_store_unchanged(
    store: InMemoryStore, importer: ImportDataset
) -> None:
    before = snapshot(store)

    def crashing() -> Iterator[School]:
        yield from primaries(5)
        raise OSError("connection reset while downloading")

    with pytest.raises(OSError, match="connection reset"):
        importer.execute(
            kind=DatasetKind.SCHOOLS, items=crashing(), log=RejectLog(), record=record()
        )
    assert snapshot(store) == before
    assert after_another_import(store) == before[1]


def test_a_successful_import_replaces_the_data_and_records_the_dataset(
    store: InMemoryStore, importer: ImportDataset
) -> None:
    before = store.version()
    schools = [*primaries(4), School(urn=Urn(100099), name="Gone", status="Closed")]
    report = importer.execute(
        kind=DatasetKind.SCHOOLS,
        items=schools,
        log=RejectLog(rows_read=5),
        record=record(),
        **ANOTHER,
    )
    assert report.rows_imported == 4
    assert store.version() != before
    assert [s.urn.value for s in store.iter_all()] == [100001, 100002, 100003, 100004]
    [dataset] = store.current()
    assert dataset.name == "gias_establishments"
    assert dataset.imported_at == NOW
    assert dataset.row_count == 4
    assert dataset.publisher == "Department for Education"


def test_postcodes_import_makes_them_locatable(
    store: InMemoryStore, importer: ImportDataset
) -> None:
    from schooldata.domain.postcode import parse_postcode

    importer.execute(
        kind=DatasetKind.POSTCODES,
        items=[("SW1A1AA", Location(51.501, -0.1416))],
        log=RejectLog(rows_read=1),
        record=record("codepoint_open"),
    )
    assert store.locate(postcode=parse_postcode("sw1a 1aa")) == Location(51.501, -0.1416)
    assert {d.name for d in store.current()} == {"gias_establishments", "codepoint_open"}


def measure_rows(
    values: dict[int, Measure | float], period: str = "2024/25"
) -> list[MeasureRecord]:
    return [
        MeasureRecord(
            urn=Urn(urn),
            dataset="ks2_results",
            period=period,
            code=KS2,
            measure=value if isinstance(value, Measure) else reported(value),
            cohort=30,
        )
        for urn, value in values.items()
    ]


def test_importing_measures_rescores_every_school(
    store: InMemoryStore, importer: ImportDataset
) -> None:
    importer.execute(
        kind=DatasetKind.SCHOOLS, items=primaries(7), log=RejectLog(), record=record(), **ANOTHER
    )
    assert all(s.svc_score is None for s in store.iter_all())
    values: dict[int, Measure | float] = {
        100001: 40,
        100002: 50,
        100003: 60,
        100004: 70,
        100005: 80,
        100006: parse_ees("c"),
    }
    importer.execute(
        kind=DatasetKind.MEASURES,
        items=measure_rows(values),
        log=RejectLog(rows_read=6),
        record=record("ks2_results"),
    )
    by_urn = {s.urn.value: s for s in store.iter_all()}
    assert [by_urn[u].svc_score for u in range(100001, 100006)] == [10.0, 30.0, 50.0, 70.0, 90.0]
    assert by_urn[100006].svc_score is None
    assert by_urn[100006].score_suppressed_reason == SuppressionReason.SMALL_COHORT
    assert by_urn[100007].svc_score is None
    assert by_urn[100007].score_suppressed_reason == SuppressionReason.NO_EVIDENCE


def test_reimporting_schools_keeps_their_scores(
    store: InMemoryStore, importer: ImportDataset
) -> None:
    importer.execute(
        kind=DatasetKind.SCHOOLS, items=primaries(5), log=RejectLog(), record=record(), **ANOTHER
    )
    importer.execute(
        kind=DatasetKind.MEASURES,
        items=measure_rows({100001 + i: 10.0 * i for i in range(5)}),
        log=RejectLog(),
        record=record("ks2_results"),
    )
    importer.execute(
        kind=DatasetKind.SCHOOLS, items=primaries(5), log=RejectLog(), record=record(), **ANOTHER
    )
    assert all(s.svc_score is not None for s in store.iter_all())


def test_a_rejected_measures_import_keeps_the_previous_scores(
    store: InMemoryStore, importer: ImportDataset
) -> None:
    importer.execute(
        kind=DatasetKind.SCHOOLS, items=primaries(5), log=RejectLog(), record=record(), **ANOTHER
    )
    importer.execute(
        kind=DatasetKind.MEASURES,
        items=measure_rows({100001 + i: 10.0 * i for i in range(5)}),
        log=RejectLog(),
        record=record("ks2_results"),
    )
    before = snapshot(store)
    log = RejectLog(rows_read=20, rejects=[(n, "bad") for n in range(11)])
    with pytest.raises(ImportRejected):
        importer.execute(
            kind=DatasetKind.MEASURES,
            items=measure_rows({100001 + i: 50.0 for i in range(5)}),
            log=log,
            record=record("ks2_results"),
        )
    assert snapshot(store) == before


# ---------------------------------------------------------------------------- compute_scores


def test_each_school_is_scored_on_its_newest_headline_figure() -> None:
    schools = primaries(5)
    measures = [
        *measure_rows({100001 + i: 10.0 * (5 - i) for i in range(5)}, period="2023/24"),
        *measure_rows({100001 + i: 10.0 * i for i in range(5)}, period="2024/25"),
    ]
    scores = compute_scores(schools, measures)
    assert [scores[s.urn].value for s in schools] == [10.0, 30.0, 50.0, 70.0, 90.0]


def test_a_school_whose_newest_figure_is_older_than_its_peers_is_stale() -> None:
    schools = primaries(6)
    measures = [
        *measure_rows({100001 + i: 10.0 * i for i in range(5)}),
        *measure_rows({100006: 99.0}, period="2023/24"),
    ]
    assert compute_scores(schools, measures)[Urn(100006)].reason == SuppressionReason.STALE


def test_measures_other_than_the_phase_headline_are_ignored() -> None:
    schools = primaries(5)
    other = [
        MeasureRecord(
            urn=s.urn,
            dataset="ks4_results",
            period="2024/25",
            code="ks4_attainment8_average",
            measure=reported(50),
        )
        for s in schools
    ]
    scores = compute_scores(schools, other)
    assert {s.reason for s in scores.values()} == {SuppressionReason.NO_EVIDENCE}


@pytest.mark.parametrize("rows", [[], ["URN must be exactly six digits; got ''"]])
def test_a_file_with_nothing_to_import_is_refused_and_the_served_data_stays(
    store: InMemoryStore, rows: list[School | str]
) -> None:
    before = snapshot(store)
    log = RejectLog()
    with pytest.raises(ImportRejected, match="nothing to import"):
        ImportDataset(store=store, clock=FixedClock()).execute(
            kind=DatasetKind.SCHOOLS, items=parsed(rows, log), log=log, record=record()
        )
    assert snapshot(store) == before


# ---------------------------------------------------------------------------- periods held


def ks4(values: dict[int, float], period: str) -> list[MeasureRecord]:
    return [
        MeasureRecord(Urn(urn), "ks4_results", period, "ks4_attainment8_average", reported(v), 90)
        for urn, v in values.items()
    ]


def test_importing_a_new_year_keeps_the_years_already_held(
    store: InMemoryStore, importer: ImportDataset
) -> None:
    importer.execute(
        kind=DatasetKind.MEASURES,
        items=ks4({900001: 44.0}, "2023/24"),
        log=RejectLog(),
        record=record("ks4_results"),
    )
    report = importer.execute(
        kind=DatasetKind.MEASURES,
        items=ks4({900001: 46.5, 900002: 40.0}, "2024/25"),
        log=RejectLog(rows_read=2),
        record=record("ks4_results"),
    )
    assert (report.rows_imported, report.records_stored) == (2, 2)
    held = {(r.urn.value, r.period): r.measure.value for r in store.measures_for(urn=Urn(900001))}
    assert held == {(900001, "2023/24"): 44.0, (900001, "2024/25"): 46.5}
    (dataset,) = [d for d in store.current() if d.name == "ks4_results"]
    assert dataset.period == "2023/24, 2024/25"  # freshness reports every period held
    assert dataset.row_count == 3


def test_reimporting_a_year_replaces_that_year_only(
    store: InMemoryStore, importer: ImportDataset
) -> None:
    for period, value in (("2023/24", 44.0), ("2024/25", 46.5), ("2024/25", 47.0)):
        importer.execute(
            kind=DatasetKind.MEASURES,
            items=ks4({900001: value}, period),
            log=RejectLog(),
            record=record("ks4_results"),
        )
    held = sorted((r.period, r.measure.value) for r in store.measures_for(urn=Urn(900001)))
    assert held == [("2023/24", 44.0), ("2024/25", 47.0)]


# ---------------------------------------------------------------------------- the demo


def demo(name: str, *, synthetic: bool = True) -> DatasetRecord:
    return attrs.evolve(record(name), synthetic=synthetic, demo=True)


@pytest.fixture
def demo_store() -> InMemoryStore:
    """A store as the bundled demo leaves it: invented schools, results and inspections, and a
    real but demo-shaped postcode subset."""
    data = InMemoryStore()
    run = ImportDataset(store=data, clock=FixedClock()).execute
    run(
        kind=DatasetKind.POSTCODES,
        items=[("SW1A1AA", Location(51.501, -0.1416))],
        log=RejectLog(),
        record=demo("codepoint_open", synthetic=False),
    )
    run(
        kind=DatasetKind.SCHOOLS,
        items=primaries(3),
        log=RejectLog(),
        record=demo("gias_establishments"),
    )
    run(
        kind=DatasetKind.MEASURES,
        items=measure_rows({100001: 60.0, 100002: 70.0}),
        log=RejectLog(),
        record=demo("ks2_results"),
    )
    return data


def test_the_first_real_import_removes_every_demo_dataset_in_the_same_transaction(
    demo_store: InMemoryStore,
) -> None:
    real = [School(urn=Urn(126370), name="Westbury Leigh CofE Primary School")]
    report = ImportDataset(store=demo_store, clock=FixedClock()).execute(
        kind=DatasetKind.SCHOOLS, items=real, log=RejectLog(rows_read=1), record=record()
    )
    assert report.removed_demo == ("codepoint_open", "gias_establishments", "ks2_results")
    assert [s.urn.value for s in demo_store.iter_all()] == [126370]
    assert demo_store.measures_for(urn=Urn(100001)) == []
    assert [d.name for d in demo_store.current()] == ["gias_establishments"]
    assert not demo_store.current()[0].demo
    assert demo_store.locate(postcode=parse_postcode("SW1A 1AA")) is None


def test_real_results_into_the_demo_never_attach_to_the_demos_invented_schools(
    demo_store: InMemoryStore,
) -> None:
    ImportDataset(store=demo_store, clock=FixedClock()).execute(
        kind=DatasetKind.MEASURES,
        items=ks4({100001: 50.0}, "2024/25"),
        log=RejectLog(),
        record=record("ks4_results"),
    )
    assert list(demo_store.iter_all()) == []  # the invented schools went with the demo
    assert {r.dataset for r in demo_store.measures_for(urn=Urn(100001))} == {"ks4_results"}


def test_a_refused_real_import_leaves_the_demo_as_it_was(demo_store: InMemoryStore) -> None:
    before = snapshot(demo_store)
    log = RejectLog()
    with pytest.raises(ImportRejected):
        ImportDataset(store=demo_store, clock=FixedClock()).execute(
            kind=DatasetKind.SCHOOLS, items=parsed([], log), log=log, record=record()
        )
    assert snapshot(demo_store) == before


def test_a_real_postcode_directory_beside_the_demo_leaves_the_demo_served(
    demo_store: InMemoryStore,
) -> None:
    report = ImportDataset(store=demo_store, clock=FixedClock()).execute(
        kind=DatasetKind.POSTCODES,
        items=[("B11BB", Location(52.48, -1.90))],
        log=RejectLog(rows_read=1),
        record=record("onspd"),
    )
    assert report.removed_demo == ()
    assert len(list(demo_store.iter_all())) == 3


def test_the_demo_is_refused_by_a_database_holding_real_data(store: InMemoryStore) -> None:
    before = snapshot(store)
    with pytest.raises(ImportRejected, match=r"never mixed with real data.*gias_establishments"):
        ImportDataset(store=store, clock=FixedClock()).execute(
            kind=DatasetKind.MEASURES,
            items=measure_rows({900001: 60.0}),
            log=RejectLog(),
            record=demo("ks2_results"),
        )
    assert snapshot(store) == before


def inspection(urn: int, day: dt.date, number: str) -> InspectionRecord:
    outcome = UngradedInspection(day, None, "S8 Inspection", "School remains Good")
    return InspectionRecord(Urn(urn), outcome, number)


def test_a_year_to_date_inspections_file_keeps_the_inspections_of_earlier_years(
    store: InMemoryStore, importer: ImportDataset
) -> None:
    yearly = record("ofsted_all_inspections")
    for items in (
        [
            inspection(900001, dt.date(2024, 3, 5), "1"),
            inspection(900001, dt.date(2023, 10, 1), "0"),
        ],
        [inspection(900001, dt.date(2024, 10, 8), "2")],  # 2024/25, published to date
        [
            inspection(900001, dt.date(2024, 10, 8), "2"),
            inspection(900002, dt.date(2025, 6, 2), "3"),
        ],
    ):
        importer.execute(kind=DatasetKind.INSPECTIONS, items=items, log=RejectLog(), record=yearly)
    held = sorted(r.inspection_number or "" for r in store.inspections_for(urn=Urn(900001)))
    assert held == ["0", "1", "2"]  # 2023/24 stays; 2024/25 is the newest file's
    (dataset,) = [d for d in store.current() if d.name == "ofsted_all_inspections"]
    assert dataset.row_count == 4


# ---- the shrink guard (domain.shrink) --------------------------------------------------------


def test_a_register_file_missing_a_served_school_is_refused_and_nothing_changes(
    store: InMemoryStore, importer: ImportDataset
) -> None:
    before = snapshot(store)
    with pytest.raises(ImportRejected, match=r"stop serving 1 of the 3 schools served now"):
        importer.execute(
            kind=DatasetKind.SCHOOLS,
            items=primaries(2, start=900001),
            log=RejectLog(),
            record=record(),
        )
    assert snapshot(store) == before


def test_a_school_the_file_lists_as_closed_may_go(
    store: InMemoryStore, importer: ImportDataset
) -> None:
    """(Within the share: 3 schools allow no closure; a register of 40 allows two.)"""
    importer.execute(
        kind=DatasetKind.SCHOOLS,
        items=primaries(40, start=900001),
        log=RejectLog(),
        record=record(),
    )
    log = RejectLog(listed_closed={Urn(900040), Urn(900039)})
    importer.execute(
        kind=DatasetKind.SCHOOLS, items=primaries(38, start=900001), log=log, record=record()
    )
    assert len(list(store.iter_all())) == 38


def test_links_and_postcode_files_may_not_shrink_more_than_the_share(
    importer: ImportDataset,
) -> None:
    links = [
        EstablishmentLink(Urn(100001 + i), Urn(200001 + i), None, "Predecessor", None)
        for i in range(100)
    ]
    importer.execute(
        kind=DatasetKind.LINKS, items=links, log=RejectLog(), record=record("gias_links")
    )
    importer.execute(
        kind=DatasetKind.LINKS, items=links[:95], log=RejectLog(), record=record("gias_links")
    )
    with pytest.raises(
        ImportRejected, match=r"gias_links: this file would leave 90 links where 95"
    ):
        importer.execute(
            kind=DatasetKind.LINKS, items=links[:90], log=RejectLog(), record=record("gias_links")
        )
    postcodes = [(f"SW1A{i}AA", Location(51.5, -0.14)) for i in range(1, 10)]
    importer.execute(
        kind=DatasetKind.POSTCODES,
        items=postcodes,
        log=RejectLog(),
        record=record("codepoint_open"),
    )
    with pytest.raises(ImportRejected, match=r"would leave 1 postcodes where 9 are served now"):
        importer.execute(
            kind=DatasetKind.POSTCODES,
            items=postcodes[:1],
            log=RejectLog(),
            record=record("codepoint_open"),
        )
    report = importer.execute(
        kind=DatasetKind.POSTCODES,
        items=postcodes[:1],
        log=RejectLog(),
        record=record("codepoint_open"),
        allow_shrink=True,
    )
    assert report.rows_imported == 1


def test_replacing_the_demos_postcode_subset_with_a_smaller_real_one_is_not_a_shrink() -> None:
    data = InMemoryStore()
    run = ImportDataset(store=data, clock=FixedClock()).execute
    subset = [(f"SW1A{i}AA", Location(51.5, -0.14)) for i in range(1, 10)]
    run(
        kind=DatasetKind.POSTCODES,
        items=subset,
        log=RejectLog(),
        record=demo("codepoint_open", synthetic=False),
    )
    report = run(
        kind=DatasetKind.POSTCODES,
        items=[("B11BB", Location(52.48, -1.90))],
        log=RejectLog(rows_read=1),
        record=record("codepoint_open"),
    )
    assert report.rows_imported == 1
