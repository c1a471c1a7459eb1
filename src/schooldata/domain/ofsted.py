"""Ofsted outcomes under two frameworks that must never be compared or mapped onto each other.

- Graded inspections (until 2024/25): an overall effectiveness grade 1-4 (scrapped from
  September 2024: graded inspections after that give the sub-judgements only). After report
  cards started on 10 November 2025 these grades are historic: served with their date and
  `comparable: false`.
- Ungraded inspections (section 8, under the graded framework): an outcome in words ("School
  remains Good"), never a grade of their own.
- Report cards (from 10 November 2025): evaluation areas on a five-point scale, plus
  safeguarding met / not met. Never turned into a 1-4 number.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Iterable

from attrs import frozen

from schooldata.domain.urn import Urn

REPORT_CARDS_START = dt.date(2025, 11, 10)

GRADE_NAMES: dict[int, str] = {
    1: "Outstanding",
    2: "Good",
    3: "Requires improvement",
    4: "Inadequate",
}


def parse_grade(raw: str | None) -> int | None:
    """A graded judgement: 1-4 or its word; 9 (no judgement), blank or other -> None."""
    text = (raw or "").strip().lower()
    if text in {"1", "2", "3", "4"}:
        return int(text)
    for grade, name in GRADE_NAMES.items():
        if text == name.lower() or (grade == 1 and text == "outstanding"):
            return grade
    if text in {"requires improvement", "satisfactory"}:
        return 3
    if text in {"serious weaknesses", "special measures"}:
        return 4
    return None


@frozen
class HistoricGrade:
    """A graded-framework overall effectiveness judgement. Not comparable with report cards."""

    grade: int
    inspection_date: dt.date | None

    @property
    def label(self) -> str:
        return GRADE_NAMES[self.grade]

    @property
    def comparable(self) -> bool:
        # Nothing graded is comparable with what is current once report cards exist.
        return False


class ReportCardScale(enum.Enum):
    EXCEPTIONAL = "exceptional"
    STRONG_STANDARD = "strong standard"
    EXPECTED_STANDARD = "expected standard"
    NEEDS_ATTENTION = "needs attention"
    URGENT_IMPROVEMENT = "urgent improvement"


REPORT_CARD_AREAS: tuple[str, ...] = (
    "inclusion",
    "curriculum_and_teaching",
    "achievement",
    "attendance_and_behaviour",
    "personal_development_and_well_being",
    "leadership_and_governance",
    "early_years",
    "post_16",
)


def parse_scale(raw: str | None) -> ReportCardScale | None:
    text = " ".join((raw or "").strip().lower().split())
    for value in ReportCardScale:
        if text == value.value:
            return value
    return None


@frozen
class ReportCard:
    """A report-card inspection: each evaluation area on its own; None = not evaluated."""

    inspection_date: dt.date
    publication_date: dt.date | None
    inspection_type: str | None
    areas: dict[str, ReportCardScale | None]
    safeguarding_met: bool | None


@frozen
class GradedInspection:
    """A graded inspection with its sub-judgements (1-4; None = no judgement)."""

    inspection_date: dt.date
    publication_date: dt.date | None
    inspection_type: str | None
    overall_effectiveness: int | None
    sub_grades: dict[str, int | None]
    safeguarding_effective: bool | None

    @property
    def comparable(self) -> bool:
        return False


@frozen
class UngradedInspection:
    """An ungraded inspection: Ofsted's outcome in words, as published ("School remains
    Outstanding", "Taking effective action"). It gives no 1-4 grade and none is derived."""

    inspection_date: dt.date
    publication_date: dt.date | None
    inspection_type: str | None
    outcome: str | None

    @property
    def comparable(self) -> bool:
        return False


Inspection = ReportCard | GradedInspection | UngradedInspection


@frozen
class InspectionRecord:
    """One Ofsted inspection of one school, under whichever framework it was made."""

    urn: Urn
    inspection: Inspection
    inspection_number: str | None = None

    @property
    def inspection_date(self) -> dt.date:
        return self.inspection.inspection_date

    @property
    def framework(self) -> str:
        if isinstance(self.inspection, ReportCard):
            return "report_card"
        return "graded" if isinstance(self.inspection, GradedInspection) else "ungraded"


GRADED_SUB_JUDGEMENTS: tuple[str, ...] = (
    "quality_of_education",
    "behaviour_and_attitudes",
    "personal_development",
    "leadership_and_management",
    "early_years",
    "sixth_form",
)


def inspection_history(records: list[InspectionRecord]) -> list[InspectionRecord]:
    """Newest first; ties (same date) by inspection number for a stable order. One inspection
    published in two MI files (a historic graded file and a later "latest inspections" file)
    is listed once: same framework, same start date, same or unknown inspection number."""
    ordered = sorted(
        records, key=lambda r: (r.inspection_date, r.inspection_number or ""), reverse=True
    )
    kept: list[InspectionRecord] = []
    for record in ordered:
        if not any(same_inspection(record, other) for other in kept):
            kept.append(record)
    return kept


def same_inspection(a: InspectionRecord, b: InspectionRecord) -> bool:
    if type(a.inspection) is not type(b.inspection) or a.inspection_date != b.inspection_date:
        return False
    numbers = (a.inspection_number, b.inspection_number)
    return None in numbers or numbers[0] == numbers[1]


def latest_graded_outcomes(
    records: Iterable[InspectionRecord],
) -> dict[Urn, HistoricGrade | None]:
    """Each school's historic 1-4 grade: the overall effectiveness of its newest graded
    inspection, or None when that inspection gave none (graded inspections from September
    2024 judge the sub-areas only): an older grade is superseded, never carried forward, and
    none is derived from the sub-judgements.

    Report cards and ungraded inspections never count: neither gives a 1-4 grade."""
    newest: dict[Urn, GradedInspection] = {}
    for record in records:
        inspection = record.inspection
        if not isinstance(inspection, GradedInspection):
            continue
        current = newest.get(record.urn)
        if current is None or _graded_order(inspection) > _graded_order(current):
            newest[record.urn] = inspection
    return {
        urn: None
        if inspection.overall_effectiveness is None
        else HistoricGrade(inspection.overall_effectiveness, inspection.inspection_date)
        for urn, inspection in newest.items()
    }


def _graded_order(inspection: GradedInspection) -> tuple[dt.date, bool]:
    # The same inspection in two files, one with its grade: the grade is the one to keep.
    return inspection.inspection_date, inspection.overall_effectiveness is not None
