"""Ofsted: graded judgements are historic and never comparable with report cards."""

from __future__ import annotations

import datetime as dt

import pytest

from schooldata.domain.ofsted import (
    REPORT_CARDS_START,
    GradedInspection,
    HistoricGrade,
    ReportCardScale,
    parse_grade,
    parse_scale,
)


@pytest.mark.parametrize(
    ("raw", "grade"),
    [
        ("1", 1),
        ("2", 2),
        ("3", 3),
        ("4", 4),
        (" 2 ", 2),
        ("Outstanding", 1),
        ("good", 2),
        ("Requires improvement", 3),
        ("REQUIRES IMPROVEMENT", 3),
        ("Satisfactory", 3),
        ("Inadequate", 4),
        ("Serious Weaknesses", 4),
        ("special measures", 4),
    ],
)
def test_parse_grade_reads_numbers_and_words(raw: str, grade: int) -> None:
    assert parse_grade(raw) == grade


@pytest.mark.parametrize("raw", [None, "", "9", "0", "5", "-1", "1.0", "excellent", "NULL"])
def test_parse_grade_gives_none_for_no_judgement_or_anything_else(raw: str | None) -> None:
    assert parse_grade(raw) is None


@pytest.mark.parametrize("grade", [1, 2, 3, 4])
def test_a_historic_grade_is_never_comparable(grade: int) -> None:
    historic = HistoricGrade(grade=grade, inspection_date=dt.date(2026, 1, 1))
    assert historic.comparable is False


def test_a_historic_grade_before_report_cards_is_still_not_comparable() -> None:
    historic = HistoricGrade(grade=1, inspection_date=REPORT_CARDS_START - dt.timedelta(days=400))
    assert historic.comparable is False


def test_a_graded_inspection_is_not_comparable() -> None:
    inspection = GradedInspection(
        inspection_date=dt.date(2023, 5, 1),
        publication_date=None,
        inspection_type="Section 5",
        overall_effectiveness=2,
        sub_grades={},
        safeguarding_effective=True,
    )
    assert inspection.comparable is False


def test_historic_grade_labels_use_the_published_words() -> None:
    labels = [HistoricGrade(grade=g, inspection_date=None).label for g in (1, 2, 3, 4)]
    assert labels == ["Outstanding", "Good", "Requires improvement", "Inadequate"]


def test_report_cards_started_on_10_november_2025() -> None:
    assert dt.date(2025, 11, 10) == REPORT_CARDS_START


@pytest.mark.parametrize(
    ("raw", "scale"),
    [
        ("Exceptional", ReportCardScale.EXCEPTIONAL),
        ("  strong   standard ", ReportCardScale.STRONG_STANDARD),
        ("Urgent improvement", ReportCardScale.URGENT_IMPROVEMENT),
    ],
)
def test_parse_scale_reads_report_card_words(raw: str, scale: ReportCardScale) -> None:
    assert parse_scale(raw) is scale


@pytest.mark.parametrize("raw", [None, "", "1", "good", "outstanding"])
def test_parse_scale_never_maps_graded_words_or_numbers(raw: str | None) -> None:
    assert parse_scale(raw) is None
