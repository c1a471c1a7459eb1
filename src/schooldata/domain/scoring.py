"""svcScore: a 0-100 comparison signal, or null with the reason it is withheld.

Method (also in docs/methodology.md):
1. Each phase has one headline measure, published nationally for every school of that phase:
   primary -> KS2 % meeting the expected standard in reading, writing and maths;
   secondary and all-through -> KS4 Attainment 8 average; sixth form -> 16-18 average point
   score per entry. Nursery schools and schools with no API phase have no comparable measure.
2. Only the latest period published for that measure counts; a school whose newest figure is
   older is `stale_evidence` (an old value is never shown as current).
3. A figure that is suppressed, not applicable or missing withholds the score with a reason.
   A reported figure from a cohort under MIN_COHORT pupils is `small_cohort`.
4. The score is the school's mid-rank percentile among all schools of the same phase with a
   reported, unsuppressed figure for that period: 100 * (below + 0.5 * equal) / peers, one
   decimal. Fewer than MIN_PEERS such schools -> `insufficient_peers`.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable

from attrs import frozen

from schooldata.domain.measure import Measure, MeasureStatus
from schooldata.domain.phase import Phase
from schooldata.domain.urn import Urn

MIN_COHORT = 10
MIN_PEERS = 5

HEADLINE_MEASURE: dict[Phase, str] = {
    Phase.PRIMARY: "ks2_rwm_expected_percent",
    Phase.SECONDARY: "ks4_attainment8_average",
    Phase.ALL_THROUGH: "ks4_attainment8_average",
    Phase.SIXTH_FORM: "ks5_aps_per_entry",
}


class SuppressionReason:
    NOT_COMPARABLE = "not_comparable"
    NO_EVIDENCE = "no_comparable_evidence"
    STALE = "stale_evidence"
    SMALL_COHORT = "small_cohort"
    MEASURE_SUPPRESSED = "measure_suppressed"
    INSUFFICIENT_PEERS = "insufficient_peers"


@frozen
class Evidence:
    """The newest headline figure of one school (period like `2024/25`)."""

    urn: Urn
    phase: Phase | None
    period: str
    measure: Measure
    cohort: int | None


@frozen
class Score:
    value: float | None
    reason: str | None

    @property
    def suppressed(self) -> bool:
        return self.value is None


def withheld(reason: str) -> Score:
    return Score(None, reason)


def score_schools(
    schools: Iterable[tuple[Urn, Phase | None]], evidence: Iterable[Evidence]
) -> dict[Urn, Score]:
    """Score every school; a school without evidence gets a reason, never a number."""
    by_urn = {e.urn: e for e in evidence}
    latest: dict[Phase, str] = {}
    for e in by_urn.values():
        if e.phase is not None and e.period > latest.get(e.phase, ""):
            latest[e.phase] = e.period
    peers = _peer_values(by_urn.values(), latest)
    return {urn: _score_one(phase, by_urn.get(urn), latest, peers) for urn, phase in schools}


def _comparable_value(e: Evidence) -> float | None:
    if e.measure.status is not MeasureStatus.REPORTED or e.measure.value is None:
        return None
    if e.cohort is not None and e.cohort < MIN_COHORT:
        return None
    return e.measure.value


def _peer_values(
    evidence: Iterable[Evidence], latest: dict[Phase, str]
) -> dict[Phase, list[float]]:
    values: dict[Phase, list[float]] = defaultdict(list)
    for e in evidence:
        if e.phase is None or e.period != latest.get(e.phase):
            continue
        value = _comparable_value(e)
        if value is not None:
            values[e.phase].append(value)
    return {phase: sorted(vs) for phase, vs in values.items()}


def _score_one(
    phase: Phase | None,
    e: Evidence | None,
    latest: dict[Phase, str],
    peers: dict[Phase, list[float]],
) -> Score:
    if phase is None or phase not in HEADLINE_MEASURE:
        return withheld(SuppressionReason.NOT_COMPARABLE)
    if e is None or e.phase != phase:
        return withheld(SuppressionReason.NO_EVIDENCE)
    if e.period != latest.get(phase):
        return withheld(SuppressionReason.STALE)
    status = e.measure.status
    if status is MeasureStatus.SUPPRESSED:
        small = e.measure.reason == "small_cohort"
        return withheld(
            SuppressionReason.SMALL_COHORT if small else SuppressionReason.MEASURE_SUPPRESSED
        )
    if status is MeasureStatus.NOT_APPLICABLE:
        return withheld(SuppressionReason.NOT_COMPARABLE)
    if status is MeasureStatus.MISSING or e.measure.value is None:
        return withheld(SuppressionReason.NO_EVIDENCE)
    if e.cohort is not None and e.cohort < MIN_COHORT:
        return withheld(SuppressionReason.SMALL_COHORT)
    values = peers.get(phase, [])
    if len(values) < MIN_PEERS:
        return withheld(SuppressionReason.INSUFFICIENT_PEERS)
    below = bisect.bisect_left(values, e.measure.value)
    equal = bisect.bisect_right(values, e.measure.value) - below
    return Score(mid_rank_score(below, equal, len(values)), None)


def mid_rank_score(below: int, equal: int, peers: int) -> float:
    """100 x (below + equal/2) / peers to one decimal, kept within 0.1..99.9: a mid-rank
    percentile is strictly between 0 and 100, and rounding must not turn the lowest of
    thousands of peers into a 0.0 that reads as "zero" (or the highest into 100)."""
    return min(99.9, max(0.1, round(100.0 * (below + 0.5 * equal) / peers, 1)))
