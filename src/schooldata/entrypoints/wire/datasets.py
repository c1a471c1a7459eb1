"""The commercial dataset shapes: measures with their status, topics of results, admissions and
finance, inspection history, comparison and rankings.

A figure is never a bare number: `value` is null unless `status` is `reported`, and `reason`,
`period` and `cohort` appear only when known.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

import msgspec
from msgspec import UNSET, Struct, UnsetType
from msgspec import Meta as Constraint

from schooldata.application.school_data import (
    InspectionHistory,
    SchoolTopics,
)
from schooldata.domain.catalogue import RESULT_TOPICS, Topic, spec_of
from schooldata.domain.measure import Measure as Figure
from schooldata.domain.measure import MeasureStatus
from schooldata.domain.ofsted import GRADE_NAMES, InspectionRecord, ReportCard, UngradedInspection
from schooldata.domain.results import DESTINATIONS_NOTE, MeasureSeries
from schooldata.entrypoints.wire.common import (
    HistoricGrade,
    OfstedRating,
    SchoolHeading,
    heading,
    historic_grade,
)

Status = Annotated[str, Constraint(extra_json_schema={"enum": [s.value for s in MeasureStatus]})]


class Measure(Struct, kw_only=True):
    """A figure with its status; `value` is null unless `status` is `reported`."""

    value: float | None
    status: Status
    reason: str | UnsetType = UNSET
    period: str | UnsetType = UNSET
    cohort: int | UnsetType = UNSET


def measure_value(
    measure: Figure, *, period: str | None = None, cohort: int | None = None
) -> Measure:
    return Measure(
        value=measure.value,
        status=measure.status.value,
        reason=UNSET if measure.reason is None else measure.reason,
        period=UNSET if period is None else period,
        cohort=UNSET if cohort is None else cohort,
    )


class Series(Struct, kw_only=True):
    """One measure: its latest figure and its trend, oldest first."""

    code: str
    label: str
    unit: str
    latest: Measure
    trend: list[Measure]
    note: str | UnsetType = UNSET


def _series(series: MeasureSeries) -> Series:
    spec = spec_of(series.code)
    return Series(
        code=series.code,
        label=spec.label,
        unit=spec.unit,
        latest=measure_value(
            series.latest.measure, period=series.latest.period, cohort=series.latest.cohort
        ),
        trend=[measure_value(p.measure, period=p.period, cohort=p.cohort) for p in series.trend],
        note=series.note or UNSET,
    )


class TopicBlock(Struct, kw_only=True):
    """One topic's periods held and measures; `cohort` says whose figures destinations are."""

    periods: list[str]
    latest_period: str | None
    measures: list[Series]
    cohort: str | UnsetType = UNSET


def _topic_document(name: str, topics: tuple[Topic, ...], *extra: tuple[str, Any]) -> Any:
    """A school and one block per topic (keyed by the topic's name), then `extra`."""
    blocks = [(f"topic_{topic.value}", TopicBlock) for topic in topics]
    return msgspec.defstruct(
        name,
        [("school", SchoolHeading), *blocks, *extra],
        kw_only=True,
        rename={f"topic_{topic.value}": topic.value for topic in topics},
        namespace={"__doc__": f"A school's {', '.join(t.value for t in topics)} data."},
    )


ResultsDocument = _topic_document("SchoolResults", RESULT_TOPICS)
AdmissionsDocument = _topic_document(
    "SchoolAdmissions", (Topic.ADMISSIONS,), ("admissions_policy", str | None)
)
FinanceDocument = _topic_document("SchoolFinance", (Topic.FINANCE,))
_DOCUMENTS = {
    RESULT_TOPICS: ResultsDocument,
    (Topic.ADMISSIONS,): AdmissionsDocument,
    (Topic.FINANCE,): FinanceDocument,
}


def school_topics(answer: SchoolTopics) -> Any:
    fields: dict[str, Any] = {"school": heading(answer.school)}
    for topic in answer.topics:
        fields[f"topic_{topic.topic.value}"] = TopicBlock(
            periods=list(topic.periods),
            latest_period=topic.periods[-1] if topic.periods else None,
            measures=[_series(s) for s in topic.series],
            cohort=DESTINATIONS_NOTE if topic.topic is Topic.DESTINATIONS else UNSET,
        )
    shape = _DOCUMENTS[tuple(t.topic for t in answer.topics)]
    if shape is AdmissionsDocument:
        fields["admissions_policy"] = answer.school.admissions_policy
    return shape(**fields)


class Inspection(Struct, kw_only=True):
    """One Ofsted inspection. A report card carries `evaluation_areas`, `safeguarding` and
    `comparable_with_graded`; an ungraded inspection its `outcome` in Ofsted's words; a graded
    one its `overall_effectiveness`, `sub_judgements` and `safeguarding_effective`. Graded and
    ungraded ones are `historic` and not `comparable` with report cards."""

    inspectorate: str
    framework: Annotated[str, Constraint(extra_json_schema={"enum": ["report_card", "ungraded", "graded"]})]  # fmt: skip
    inspection_number: str | None
    inspection_date: dt.date
    publication_date: dt.date | None
    inspection_type: str | None
    evaluation_areas: dict[str, str | None] | UnsetType = UNSET
    safeguarding: str | UnsetType | None = UNSET
    comparable_with_graded: bool | UnsetType = UNSET
    outcome: str | UnsetType | None = UNSET
    overall_effectiveness: OfstedRating | UnsetType | None = UNSET
    overall_effectiveness_label: str | UnsetType | None = UNSET
    sub_judgements: dict[str, int | None] | UnsetType = UNSET
    safeguarding_effective: bool | UnsetType | None = UNSET
    historic: bool | UnsetType = UNSET
    comparable: bool | UnsetType = UNSET


def _inspection(record: InspectionRecord) -> Inspection:
    inspection = record.inspection
    base: dict[str, Any] = {
        "inspectorate": "Ofsted",
        "framework": record.framework,
        "inspection_number": record.inspection_number,
        "inspection_date": inspection.inspection_date,
        "publication_date": inspection.publication_date,
        "inspection_type": inspection.inspection_type,
    }
    if isinstance(inspection, ReportCard):
        met = inspection.safeguarding_met
        return Inspection(
            **base,
            evaluation_areas={
                area: (None if grade is None else grade.value)
                for area, grade in inspection.areas.items()
            },
            safeguarding=None if met is None else ("met" if met else "not met"),
            comparable_with_graded=False,
        )
    if isinstance(inspection, UngradedInspection):
        # Ofsted's words, as published: an ungraded inspection gives no grade of its own.
        return Inspection(**base, outcome=inspection.outcome, historic=True, comparable=False)
    overall = inspection.overall_effectiveness
    return Inspection(
        **base,
        overall_effectiveness=overall,
        overall_effectiveness_label=None if overall is None else GRADE_NAMES[overall],
        sub_judgements=dict(inspection.sub_grades),
        safeguarding_effective=inspection.safeguarding_effective,
        historic=True,
        comparable=False,
    )


def inspection_of(record: InspectionRecord) -> Inspection:
    """One inspection as the inspection history lists it."""
    return _inspection(record)


class InspectionHistoryDocument(Struct, kw_only=True):
    """A school's Ofsted inspections, newest first, with its current report card and its
    historic graded judgement kept apart."""

    school: SchoolHeading
    latest_report_card: Inspection | None
    historic_grade: HistoricGrade | None
    inspections: list[Inspection]
    note: str


HISTORY_NOTE = (
    "Report cards (from 2025-11-10) and graded inspections are different frameworks and "
    "are not comparable; graded outcomes are historic."
)


def inspection_history(history: InspectionHistory) -> InspectionHistoryDocument:
    current = next((r for r in history.inspections if r.framework == "report_card"), None)
    return InspectionHistoryDocument(
        school=heading(history.school),
        latest_report_card=None if current is None else _inspection(current),
        historic_grade=historic_grade(history.school.ofsted),
        inspections=[_inspection(r) for r in history.inspections],
        note=HISTORY_NOTE,
    )
