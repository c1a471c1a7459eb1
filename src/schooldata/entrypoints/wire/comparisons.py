"""Several schools at once: a comparison side by side, and a ranking in order.

A compared figure carries its label, status and period; a ranking says in its `meta` what it
ranked and how many schools it left out, by reason.
"""

from __future__ import annotations

from typing import Annotated

from msgspec import UNSET, Struct, UnsetType
from msgspec import Meta as Constraint

from schooldata.application.school_data import Comparison, Ranking, metric_label
from schooldata.domain.catalogue import spec_of
from schooldata.domain.measure import Measure as Figure
from schooldata.entrypoints.wire.common import (
    Count,
    HistoricGrade,
    Instant,
    OfstedRating,
    SvcScore,
    heading,
    historic_grade,
    suppressed_reason,
)
from schooldata.entrypoints.wire.datasets import Status
from schooldata.entrypoints.wire.envelope import DataVersionId, Pagination, Source


class ComparedMeasure(Struct, kw_only=True):
    """A headline measure's latest comparable figure, with its label and period."""

    label: str
    value: float | None
    status: Status
    reason: str | UnsetType = UNSET
    period: str | UnsetType = UNSET


class ComparedSchool(Struct, kw_only=True):
    urn: int
    name: str
    phase: str | None
    type: str | None
    local_authority: str | None
    town: str | None
    postcode: str | None
    gender: str | None
    pupils: int | None
    capacity: int | None
    ofsted_rating: OfstedRating | None
    ofsted_historic_grade: HistoricGrade | None
    svc_score: SvcScore | None
    score_suppressed: bool
    score_suppressed_reason: str | UnsetType = UNSET
    measures: dict[str, ComparedMeasure]


class ComparisonDocument(Struct, kw_only=True):
    """The schools side by side, in the order asked."""

    schools: list[ComparedSchool]


def comparison(answer: Comparison) -> ComparisonDocument:
    schools = []
    for school in answer.schools:
        head = heading(school)
        figures = answer.measures[school.urn]
        schools.append(
            ComparedSchool(
                urn=head.urn,
                name=head.name,
                phase=head.phase,
                type=head.type,
                local_authority=head.local_authority,
                town=school.town,
                postcode=school.postcode,
                gender=school.gender,
                pupils=school.pupils,
                capacity=school.capacity,
                ofsted_rating=school.ofsted_rating,
                ofsted_historic_grade=historic_grade(school.ofsted),
                svc_score=school.svc_score,
                score_suppressed=school.score_suppressed,
                score_suppressed_reason=suppressed_reason(school),
                measures={
                    code: _compared(code, period, measure)
                    for code, (period, measure) in figures.items()
                },
            )
        )
    return ComparisonDocument(schools=schools)


def _compared(code: str, period: str | None, measure: Figure) -> ComparedMeasure:
    return ComparedMeasure(
        label=spec_of(code).label,
        value=measure.value,
        status=measure.status.value,
        reason=UNSET if measure.reason is None else measure.reason,
        period=UNSET if period is None else period,
    )


class RankedSchool(Struct, kw_only=True):
    rank: Annotated[int, Constraint(ge=1)]
    urn: int
    name: str
    phase: str | None
    type: str | None
    local_authority: str | None
    metric: str
    value: float
    period: str | None


class RankingSummary(Struct, kw_only=True):
    """How the ranking was made: what was ranked, and what was left out by reason."""

    metric: str
    metric_label: str
    phase: str
    period: str | None
    ranked: Count
    excluded: dict[str, int]
    excluded_total: Count
    ties: str


class RankingMeta(Struct, kw_only=True):
    """About one page of a ranking: the list's `meta` and how it ranked."""

    request_id: str
    data_updated_at: Instant | None
    pagination: Pagination
    sources: list[Source]
    ranking: RankingSummary
    data_version: DataVersionId | None


def ranked_schools(ranking: Ranking) -> list[RankedSchool]:
    items = []
    for item in ranking.items:
        head = heading(item.school)
        items.append(
            RankedSchool(
                rank=item.rank,
                urn=head.urn,
                name=head.name,
                phase=head.phase,
                type=head.type,
                local_authority=head.local_authority,
                metric=ranking.metric,
                value=item.value,
                period=item.period,
            )
        )
    return items


def ranking_summary(ranking: Ranking) -> RankingSummary:
    return RankingSummary(
        metric=ranking.metric,
        metric_label=metric_label(ranking.metric),
        phase=ranking.phase.value,
        period=ranking.period,
        ranked=ranking.total,
        excluded=ranking.excluded,
        excluded_total=sum(ranking.excluded.values()),
        ties="broken by URN, ascending",
    )
