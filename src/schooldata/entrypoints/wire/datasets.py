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

from schooldata.application.lineage import (
    InspectionHistory,
    PredecessorInspections,
    PredecessorTopics,
    SchoolTopics,
    TopicSeries,
)
from schooldata.domain.catalogue import RESULT_TOPICS, Topic, spec_of
from schooldata.domain.links import Predecessor as DomainPredecessor
from schooldata.domain.measure import Measure as Figure
from schooldata.domain.measure import MeasureStatus
from schooldata.domain.ofsted import GRADE_NAMES, InspectionRecord, ReportCard, UngradedInspection
from schooldata.domain.releases import Release as DomainRelease
from schooldata.domain.releases import ReleaseStatus
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


ReleaseStatusName = Annotated[
    str | None, Constraint(extra_json_schema={"enum": [*(s.value for s in ReleaseStatus), None]})
]


class Release(Struct, kw_only=True):
    """One year of one dataset as published: provisional, revised or final, as the
    publisher's file says (null: it does not), and the publisher's release date (null: not
    known)."""

    period: str
    dataset: str
    status: ReleaseStatusName
    released: dt.date | None


class ResultsTopicBlock(TopicBlock, kw_only=True):
    """A key stage's results: a `TopicBlock`, and the release of each year its figures come
    from (one per year and dataset; a newer release of a year replaces the older)."""

    releases: list[Release]


class LinkTaken(Struct, kw_only=True):
    """The link that led to a predecessor: the school whose link it is, and its kind."""

    urn: int
    link_type: str
    established: dt.date | None


class Predecessor(Struct, kw_only=True):
    """An establishment the school took over, `depth` links back: its URN, and its name,
    status and dates as the register lists it (null where it does not)."""

    urn: int
    name: str | None
    status: str | None
    opened: dt.date | None
    closed: dt.date | None
    depth: Annotated[int, Constraint(ge=1)]
    via: LinkTaken


def _predecessor(found: DomainPredecessor) -> dict[str, Any]:
    link, facts = found.via, found.via.linked
    return {
        "urn": found.urn.value,
        "name": link.name,
        "status": None if facts is None else facts.status,
        "opened": None if facts is None else facts.opened,
        "closed": None if facts is None else facts.closed,
        "depth": found.depth,
        "via": LinkTaken(
            urn=link.urn.value, link_type=link.link_type, established=link.established
        ),
    }


def _blocks(topics: tuple[Topic, ...], block: type[TopicBlock]) -> list[tuple[str, Any]]:
    return [(f"topic_{topic.value}", block) for topic in topics]


def _renamed(topics: tuple[Topic, ...]) -> dict[str, str]:
    return {f"topic_{topic.value}": topic.value for topic in topics}


# A predecessor's results: who it is, then one block per key stage.
PredecessorResults = msgspec.defstruct(
    "PredecessorResults",
    [(f.name, f.type) for f in msgspec.structs.fields(Predecessor)]
    + _blocks(RESULT_TOPICS, ResultsTopicBlock),
    kw_only=True,
    rename=_renamed(RESULT_TOPICS),
    namespace={"__doc__": "A predecessor and its results by key stage."},
)


class PredecessorInspectionHistory(Predecessor, kw_only=True):
    """A predecessor and its Ofsted inspections, newest first."""

    inspections: list[Inspection]


def _topic_document(
    name: str,
    topics: tuple[Topic, ...],
    *extra: tuple[str, Any] | tuple[str, Any, Any],
    block: type[TopicBlock] = TopicBlock,
) -> Any:
    """A school and one block per topic (keyed by the topic's name), then `extra`."""
    return msgspec.defstruct(
        name,
        [("school", SchoolHeading), *_blocks(topics, block), *extra],
        kw_only=True,
        rename=_renamed(topics),
        namespace={"__doc__": f"A school's {', '.join(t.value for t in topics)} data."},
    )


ResultsDocument = _topic_document(
    "SchoolResults",
    RESULT_TOPICS,
    # Only with include_predecessors=true: the default answer is the school's own.
    ("predecessors", list[PredecessorResults] | UnsetType, UNSET),  # type: ignore[valid-type]
    block=ResultsTopicBlock,
)
AdmissionsDocument = _topic_document(
    "SchoolAdmissions", (Topic.ADMISSIONS,), ("admissions_policy", str | None)
)
FinanceDocument = _topic_document("SchoolFinance", (Topic.FINANCE,))
_DOCUMENTS = {
    RESULT_TOPICS: ResultsDocument,
    (Topic.ADMISSIONS,): AdmissionsDocument,
    (Topic.FINANCE,): FinanceDocument,
}


def _release(release: DomainRelease) -> Release:
    return Release(
        period=release.period,
        dataset=release.dataset,
        status=None if release.status is None else release.status.value,
        released=release.released,
    )


def _block(topic: TopicSeries, *, results: bool) -> TopicBlock:
    block: dict[str, Any] = {
        "periods": list(topic.periods),
        "latest_period": topic.periods[-1] if topic.periods else None,
        "measures": [_series(s) for s in topic.series],
        "cohort": DESTINATIONS_NOTE if topic.topic is Topic.DESTINATIONS else UNSET,
    }
    if not results:
        return TopicBlock(**block)
    return ResultsTopicBlock(**block, releases=[_release(r) for r in topic.releases])


def _predecessor_results(found: PredecessorTopics) -> Any:
    blocks = {f"topic_{t.topic.value}": _block(t, results=True) for t in found.topics}
    return PredecessorResults(**_predecessor(found.predecessor), **blocks)


def school_topics(answer: SchoolTopics) -> Any:
    shape = _DOCUMENTS[tuple(t.topic for t in answer.topics)]
    results = shape is ResultsDocument
    fields: dict[str, Any] = {"school": heading(answer.school)}
    for topic in answer.topics:
        fields[f"topic_{topic.topic.value}"] = _block(topic, results=results)
    if shape is AdmissionsDocument:
        fields["admissions_policy"] = answer.school.admissions_policy
    if results and answer.predecessors is not None:
        fields["predecessors"] = [_predecessor_results(p) for p in answer.predecessors]
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
    historic graded judgement kept apart; with include_predecessors=true, its predecessors'
    too, each apart."""

    school: SchoolHeading
    latest_report_card: Inspection | None
    historic_grade: HistoricGrade | None
    inspections: list[Inspection]
    note: str
    predecessors: list[PredecessorInspectionHistory] | UnsetType = UNSET


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
        predecessors=UNSET
        if history.predecessors is None
        else [_predecessor_inspections(p) for p in history.predecessors],
    )


def _predecessor_inspections(found: PredecessorInspections) -> PredecessorInspectionHistory:
    return PredecessorInspectionHistory(
        **_predecessor(found.predecessor),
        inspections=[_inspection(r) for r in found.inspections],
    )
