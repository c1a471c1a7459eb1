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
    latest_graded_outcomes,
)
from schooldata.domain.urn import Urn
from schooldata.ports.imports import RejectLog


def graded(urn: int, grade: int | None, day: dt.date) -> InspectionRecord:
    return InspectionRecord(
        Urn(urn), GradedInspection(day, None, "S5", grade, {}, True), inspection_number=str(day)
    )


def card(urn: int, day: dt.date) -> InspectionRecord:
    areas = {"inclusion": ReportCardScale.EXCEPTIONAL}
    return InspectionRecord(Urn(urn), ReportCard(day, None, "Full", areas, True))


def test_the_newest_graded_judgement_wins_and_report_cards_are_ignored() -> None:
    records = [
        graded(100001, 3, dt.date(2015, 1, 1)),
        graded(100001, 2, dt.date(2019, 1, 1)),
        graded(100001, None, dt.date(2021, 1, 1)),
        card(100001, dt.date(2025, 12, 1)),
        card(100002, dt.date(2025, 12, 1)),
    ]
    assert latest_graded_outcomes(records) == {Urn(100001): HistoricGrade(2, dt.date(2019, 1, 1))}


def test_importing_graded_inspections_sets_the_schools_historic_grade() -> None:
    app = bootstrap_memory(store=build_store())
    record = DatasetRecord(
        name="ofsted_graded",
        title="t",
        publisher="Ofsted",
        licence="OGL",
        attribution="a",
        url=None,
        extract_date=None,
        imported_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
    )
    items = [graded(100003, 4, dt.date(2020, 5, 5))]
    app.import_dataset.execute(
        kind=DatasetKind.INSPECTIONS, items=items, log=RejectLog(), record=record
    )
    school = app.get_school.execute("100003")
    assert school.ofsted == HistoricGrade(4, dt.date(2020, 5, 5))
    assert school.ofsted.comparable is False
