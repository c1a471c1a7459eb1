"""The historic Ofsted grade comes from the newest graded inspection; report cards never map to 1-4."""

from __future__ import annotations

import datetime as dt

from tests.support.dataset import build_store

from schooldata.application.import_dataset import DatasetKind
from schooldata.bootstrap import bootstrap_memory
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.ofsted import (
    GradedInspection,
    HistoricGrade,
    InspectionRecord,
    ReportCard,
    ReportCardScale,
    UngradedInspection,
    latest_graded_outcomes,
)
from schooldata.domain.urn import Urn
from schooldata.ports.imports import RejectLog


def graded(urn: int, grade: int | None, day: dt.date) -> InspectionRecord:
    return InspectionRecord(
        Urn(urn), GradedInspection(day, None, "S5", grade, {}, True), inspection_number=str(day)
    )


def ungraded(urn: int, day: dt.date) -> InspectionRecord:
    return InspectionRecord(
        Urn(urn), UngradedInspection(day, None, "S8", "School remains Good"), str(day)
    )


def ofsted_record(name: str = "ofsted_graded") -> DatasetRecord:
    return DatasetRecord(
        name=name,
        title="t",
        publisher="Ofsted",
        licence="OGL",
        attribution="a",
        url=None,
        extract_date=None,
        imported_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
    )


def card(urn: int, day: dt.date) -> InspectionRecord:
    areas = {"inclusion": ReportCardScale.EXCEPTIONAL}
    return InspectionRecord(Urn(urn), ReportCard(day, None, "Full", areas, True))


def test_the_newest_graded_judgement_wins_and_report_cards_are_ignored() -> None:
    records = [
        graded(100001, 3, dt.date(2015, 1, 1)),
        graded(100001, 2, dt.date(2019, 1, 1)),
        card(100001, dt.date(2025, 12, 1)),
        card(100002, dt.date(2025, 12, 1)),
    ]
    assert latest_graded_outcomes(records) == {Urn(100001): HistoricGrade(2, dt.date(2019, 1, 1))}


def test_a_newer_graded_inspection_without_an_overall_grade_leaves_no_grade_not_the_old_one() -> (
    None
):
    # Graded inspections from September 2024 judge the sub-areas only: the 2019 "Good" is
    # superseded, and no grade is made up from the sub-judgements.
    records = [
        graded(100001, 2, dt.date(2019, 1, 1)),
        graded(100001, None, dt.date(2024, 11, 5)),
        ungraded(100001, dt.date(2025, 3, 1)),
    ]
    assert latest_graded_outcomes(records) == {Urn(100001): None}


def test_ungraded_inspections_never_set_a_grade() -> None:
    records = [graded(100001, 1, dt.date(2015, 1, 1)), ungraded(100001, dt.date(2024, 5, 23))]
    assert latest_graded_outcomes(records) == {Urn(100001): HistoricGrade(1, dt.date(2015, 1, 1))}
    assert latest_graded_outcomes([ungraded(100002, dt.date(2024, 5, 23))]) == {}


def test_importing_a_graded_inspection_without_an_overall_grade_clears_the_schools_grade() -> None:
    app = bootstrap_memory(store=build_store())
    app.import_dataset.execute(
        kind=DatasetKind.INSPECTIONS,
        items=[graded(100003, 4, dt.date(2020, 5, 5)), graded(100003, None, dt.date(2025, 1, 9))],
        log=RejectLog(),
        record=ofsted_record("ofsted_all_inspections"),
    )
    assert app.get_school.execute("100003").ofsted is None


def test_importing_graded_inspections_sets_the_schools_historic_grade() -> None:
    app = bootstrap_memory(store=build_store())
    record = ofsted_record()
    items = [graded(100003, 4, dt.date(2020, 5, 5))]
    app.import_dataset.execute(
        kind=DatasetKind.INSPECTIONS, items=items, log=RejectLog(), record=record
    )
    school = app.get_school.execute("100003")
    assert school.ofsted == HistoricGrade(4, dt.date(2020, 5, 5))
    assert school.ofsted.comparable is False
