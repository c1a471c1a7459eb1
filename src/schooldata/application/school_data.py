"""Commercial dataset use cases: inspections, results, admissions, finance, compare, rankings.

Rules:
- Inspections: Ofsted only (no independent-school inspectorate material), newest first; graded
  outcomes are historic and not comparable with report cards; report-card areas and
  safeguarding are their own fields, never mapped onto 1-4.
- Results: per key stage, each measure's latest period and its trend, each value with its own
  status. Progress 8 for 2024/25 (and 2025/26) is null with reason `no_ks2_baseline`, never an
  older value shown as current. 16-18 destinations are the 2022/23 institution cohort. Each
  year says its release (provisional, revised, final; null where the file did not say) per
  dataset its figures come from.
- History across conversions (`include_predecessors`): results and inspections of the
  school's predecessors through GIAS conversion and amalgamation links (domain.links),
  each predecessor apart, naming its URN and the link that led there; without it the
  answer is the school's own, as ever.
- Compare: 2..plan maximum distinct URNs (six-digit strings, or the integers they spell); a
  malformed one -> invalid_urn naming `urns`; an unknown URN -> not found naming it.
- Rankings: a documented metric, a required phase, optional local authority; schools whose
  value is suppressed, missing or not comparable are excluded and counted by reason; ties
  break by URN.

Compare and rankings come in two steps, as the lists do: the operations read the arguments
(`operations.reading`: every parameter rule, nothing looked up, so what it raises is the
caller's mistake), `compare_schools` and `rank` answer the typed request.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from attrs import frozen

from schooldata.application.lineage import (
    HistoryRequest,
    InspectionHistory,
    PredecessorInspections,
    PredecessorTopics,
    SchoolTopics,
    TopicSeries,
    by_year,
    releases_of,
)
from schooldata.domain.catalogue import MEASURES, RESULT_TOPICS, Topic, codes_of, spec_of
from schooldata.domain.errors import SchoolNotFound
from schooldata.domain.links import Predecessor, predecessors
from schooldata.domain.measure import Measure, MeasureStatus, missing
from schooldata.domain.ofsted import inspection_history
from schooldata.domain.phase import Phase
from schooldata.domain.releases import Release
from schooldata.domain.results import (
    DESTINATIONS_COHORT_PERIOD,
    NO_KS2_BASELINE,
    MeasureRecord,
    apply_publication_rules,
    build_series,
    preferred,
)
from schooldata.domain.school import School
from schooldata.domain.scoring import HEADLINE_MEASURE
from schooldata.domain.search import SchoolQuery
from schooldata.domain.urn import Urn
from schooldata.ports.schools import InspectionReader, LinkReader, MeasureReader, SchoolReader

RANKING_METRICS: tuple[str, ...] = (
    "svc_score",
    *sorted(code for code, spec in MEASURES.items() if spec.rankable),
)
COMPARE_MINIMUM = 2
# Headline measures shown even when unpublished, so their absence is explained, not hidden.
# Each result topic's national headline: its newest period is the topic's current year.
TOPIC_HEADLINE: dict[Topic, str] = {
    Topic.KS2: "ks2_rwm_expected_percent",
    Topic.KS4: "ks4_attainment8_average",
    Topic.KS5: "ks5_aps_per_entry",
    Topic.DESTINATIONS: "ks5_sustained_destination_percent",
}
ALWAYS_SHOWN: dict[Topic, tuple[str, ...]] = {
    Topic.KS4: ("ks4_attainment8_average", "ks4_progress8_average"),
    Topic.KS2: ("ks2_rwm_expected_percent",),
}


@frozen(kw_only=True)
class Comparison:
    schools: tuple[School, ...]
    measures: dict[Urn, dict[str, tuple[str | None, Measure]]]  # code -> (period, measure)


@frozen(kw_only=True)
class RankedSchool:
    rank: int
    school: School
    value: float
    period: str | None


@frozen(kw_only=True)
class RankingRequest:
    """A rankings question whose every parameter is valid."""

    metric: str
    phase: Phase
    local_authority: str | None
    descending: bool
    page: int
    per_page: int


@frozen(kw_only=True)
class Ranking:
    metric: str
    phase: Phase
    period: str | None
    page: int
    per_page: int
    total: int
    items: tuple[RankedSchool, ...]
    excluded: dict[str, int]


class SchoolData:
    def __init__(
        self,
        *,
        schools: SchoolReader,
        measures: MeasureReader,
        inspections: InspectionReader,
        links: LinkReader,
    ) -> None:
        self._schools = schools
        self._measures = measures
        self._inspections = inspections
        self._links = links

    def _school(self, raw_urn: object) -> School:
        urn = Urn.parse(raw_urn)
        school = self._schools.get(urn=urn)
        if school is None:
            raise SchoolNotFound(urn)
        return school

    def inspections(
        self, raw_urn: object, *, include_predecessors: bool = False
    ) -> InspectionHistory:
        school = self._school(raw_urn)
        records = inspection_history(self._inspections.inspections_for(urn=school.urn))
        found = None
        if include_predecessors:
            found = tuple(
                PredecessorInspections(
                    predecessor=p,
                    inspections=tuple(
                        inspection_history(self._inspections.inspections_for(urn=p.urn))
                    ),
                )
                for p in self._predecessors(school.urn)
            )
        return InspectionHistory(school=school, inspections=tuple(records), predecessors=found)

    def history(self, request: HistoryRequest) -> InspectionHistory:
        return self.inspections(request.urn, include_predecessors=request.include_predecessors)

    def results(self, raw_urn: object, *, include_predecessors: bool = False) -> SchoolTopics:
        school = self._school(raw_urn)
        releases = by_year(self._measures.releases())
        topics = self._topics(school.urn, RESULT_TOPICS, releases)
        found = None
        if include_predecessors:
            found = tuple(
                PredecessorTopics(
                    predecessor=p, topics=self._topics(p.urn, RESULT_TOPICS, releases)
                )
                for p in self._predecessors(school.urn)
            )
        return SchoolTopics(school=school, topics=topics, predecessors=found)

    def results_of(self, request: HistoryRequest) -> SchoolTopics:
        return self.results(request.urn, include_predecessors=request.include_predecessors)

    def admissions(self, raw_urn: object) -> SchoolTopics:
        school = self._school(raw_urn)
        return SchoolTopics(school=school, topics=self._topics(school.urn, (Topic.ADMISSIONS,)))

    def finance(self, raw_urn: object) -> SchoolTopics:
        school = self._school(raw_urn)
        return SchoolTopics(school=school, topics=self._topics(school.urn, (Topic.FINANCE,)))

    def _predecessors(self, urn: Urn) -> list[Predecessor]:
        return predecessors(urn, lambda at: self._links.links_for(urn=at))

    def _topics(
        self,
        urn: Urn,
        topics: Sequence[Topic],
        releases: dict[tuple[str, str], Release] | None = None,
    ) -> tuple[TopicSeries, ...]:
        return topic_series(self._measures.measures_for(urn=urn), topics, releases)

    def compare_schools(self, urns: Sequence[Urn]) -> Comparison:
        """Compare prepared URNs; the first one that names no open school -> not found."""
        schools = []
        for urn in urns:
            school = self._schools.get(urn=urn)
            if school is None:
                raise SchoolNotFound(urn)
            schools.append(school)
        measures = {s.urn: self._latest_headlines(s) for s in schools}
        return Comparison(schools=tuple(schools), measures=measures)

    def _latest_headlines(self, school: School) -> dict[str, tuple[str | None, Measure]]:
        """The latest comparable measures for the school's phase, each with its status."""
        phase = school.phase
        codes: list[str] = []
        if phase in (Phase.PRIMARY,):
            codes = ["ks2_rwm_expected_percent", "ks2_rwm_higher_percent"]
        elif phase in (Phase.SECONDARY, Phase.ALL_THROUGH):
            codes = [
                "ks4_attainment8_average",
                "ks4_progress8_average",
                "ks4_english_maths_grade5_percent",
            ]
        if phase in (Phase.SIXTH_FORM, Phase.SECONDARY, Phase.ALL_THROUGH):
            codes += ["ks5_aps_per_entry", "ks5_sustained_destination_percent"]
        records = self._measures.measures_for(urn=school.urn)
        out: dict[str, tuple[str | None, Measure]] = {}
        for code in codes:
            # The topic's newest period is the current one (as in results): a measure that
            # period lacks is shown missing for it, never an older value as current (Progress
            # 8 in 2024/25).
            topic = spec_of(code).topic
            in_topic = [r for r in records if spec_of(r.code).topic is topic]
            periods = {r.period for r in in_topic} | _always_held(topic, in_topic)
            if not periods:
                out[code] = (None, Measure(MeasureStatus.MISSING, None, "not_published"))
                continue
            current = max(periods)
            found: MeasureRecord | None = None
            for record in in_topic:
                if record.code == code and record.period == current:
                    found = preferred(found, apply_publication_rules(record))
            if found is None:
                found = apply_publication_rules(
                    MeasureRecord(school.urn, "", current, code, missing("not_published"))
                )
            out[code] = (current, found.measure)
        return out

    def rank(self, request: RankingRequest) -> Ranking:
        query = SchoolQuery(
            phases=frozenset({request.phase}),
            local_authority=request.local_authority,
            limit=1_000_000,
        )
        candidates = [h.school for h in self._schools.search(query=query).hits]
        values, excluded, period = self._metric_values(request.metric, candidates)
        sign = -1.0 if request.descending else 1.0
        values.sort(key=lambda item: (sign * item[1], item[0].urn.value))
        page, per_page = request.page, request.per_page
        items = []
        start = (page - 1) * per_page
        for position, (school, value) in enumerate(
            values[start : start + per_page], start=start + 1
        ):
            items.append(RankedSchool(rank=position, school=school, value=value, period=period))
        return Ranking(
            metric=request.metric,
            phase=request.phase,
            period=period,
            page=page,
            per_page=per_page,
            total=len(values),
            items=tuple(items),
            excluded=dict(sorted(excluded.items())),
        )

    def _metric_values(
        self, metric: str, schools: list[School]
    ) -> tuple[list[tuple[School, float]], Counter[str], str | None]:
        excluded: Counter[str] = Counter()
        values: list[tuple[School, float]] = []
        if metric == "svc_score":
            for school in schools:
                if school.svc_score is None:
                    excluded[school.score_suppressed_reason or "no_comparable_evidence"] += 1
                else:
                    values.append((school, school.svc_score))
            return values, excluded, None
        latest: dict[Urn, MeasureRecord] = {}
        for stored in self._measures.measures_with_code(code=metric):
            ruled = apply_publication_rules(stored)
            latest[ruled.urn] = preferred(latest.get(ruled.urn), ruled)
        roster = {s.urn for s in schools}
        periods = {r.period for u, r in latest.items() if u in roster}
        # The current year is the topic's newest (as in results): a year whose file lacks the
        # metric (Progress 8 in 2024/25) ranks nobody on last year's figure.
        anchor = TOPIC_HEADLINE.get(spec_of(metric).topic)
        if anchor is not None and anchor != metric:
            periods |= {
                r.period for r in self._measures.measures_with_code(code=anchor) if r.urn in roster
            }
        period = max(periods, default=None)
        unpublished = (
            None
            if period is None
            else apply_publication_rules(
                MeasureRecord(Urn(0), "", period, metric, missing("not_published"))
            ).measure
        )
        for school in schools:
            record = latest.get(school.urn)
            if (record is None or record.period != period) and (
                unpublished is not None and unpublished.reason == NO_KS2_BASELINE
            ):
                excluded[NO_KS2_BASELINE] += 1
            elif record is None:
                excluded["no_comparable_evidence"] += 1
            elif record.period != period:
                excluded["stale_evidence"] += 1
            elif not record.measure.is_reported or record.measure.value is None:
                excluded[record.measure.reason or record.measure.status.value] += 1
            elif (
                record.cohort is not None
                and record.cohort < 10
                and metric in HEADLINE_MEASURE.values()
            ):
                excluded["small_cohort"] += 1
            else:
                values.append((school, record.measure.value))
        return values, excluded, period


def topic_series(
    records: Sequence[MeasureRecord],
    topics: Sequence[Topic],
    releases: dict[tuple[str, str], Release] | None = None,
) -> tuple[TopicSeries, ...]:
    """One school's records as each topic's periods and series (each measure's latest value
    and trend) and, given the datasets' `releases`, each year's release: what its results,
    admissions or finance answer holds, and its export."""
    out = []
    for topic in topics:
        wanted = set(codes_of(topic))
        chosen = [r for r in records if r.code in wanted]
        periods = sorted({r.period for r in chosen} | _always_held(topic, chosen))
        out.append(
            TopicSeries(
                topic=topic,
                periods=tuple(periods),
                series=tuple(build_series(chosen, periods, ALWAYS_SHOWN.get(topic, ())))
                if periods
                else (),
                releases=() if releases is None else releases_of(chosen, releases),
            )
        )
    return tuple(out)


def _always_held(topic: Topic, records: Sequence[MeasureRecord]) -> set[str]:
    """Periods a topic shows even without a record: the 16-18 destinations cohort the product
    serves (2022/23), so an older cohort's figures are history, never the current value."""
    if topic is Topic.DESTINATIONS and records:
        return {DESTINATIONS_COHORT_PERIOD}
    return set()


def metric_label(metric: str) -> str:
    return "svcScore comparison signal" if metric == "svc_score" else spec_of(metric).label
