"""svcScore: a 0-100 percentile among comparable peers, or null with the reason."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.domain.measure import Measure, missing, not_applicable, reported, suppressed
from schooldata.domain.phase import Phase
from schooldata.domain.scoring import (
    MIN_COHORT,
    MIN_PEERS,
    Evidence,
    Score,
    SuppressionReason,
    mid_rank_score,
    score_schools,
)
from schooldata.domain.urn import Urn

LATEST = "2024/25"
OLDER = "2023/24"


def evidence(
    urn: int,
    value: float | Measure,
    *,
    phase: Phase | None = Phase.PRIMARY,
    period: str = LATEST,
    cohort: int | None = 30,
) -> Evidence:
    measure = value if isinstance(value, Measure) else reported(value)
    return Evidence(urn=Urn(urn), phase=phase, period=period, measure=measure, cohort=cohort)


def five_peers(start: int = 200001, phase: Phase = Phase.PRIMARY) -> list[Evidence]:
    return [evidence(start + i, v, phase=phase) for i, v in enumerate([10, 20, 30, 40, 50])]


def score(target: Evidence, others: list[Evidence], phase: Phase | None = Phase.PRIMARY) -> Score:
    roster = [(e.urn, e.phase) for e in others] + [(target.urn, phase)]
    return score_schools(roster, [*others, target])[target.urn]


def test_the_score_is_the_mid_rank_percentile_among_peers() -> None:
    peers = five_peers()
    scores = score_schools([(e.urn, Phase.PRIMARY) for e in peers], peers)
    assert [scores[e.urn].value for e in peers] == [10.0, 30.0, 50.0, 70.0, 90.0]
    assert all(scores[e.urn].reason is None for e in peers)


def test_equal_figures_share_a_score() -> None:
    peers = [evidence(200001 + i, v) for i, v in enumerate([10, 20, 20, 30, 40, 50])]
    scores = score_schools([(e.urn, Phase.PRIMARY) for e in peers], peers)
    assert scores[Urn(200002)] == scores[Urn(200003)]
    assert scores[Urn(200002)].value == pytest.approx(100 * (1 + 0.5 * 2) / 6, abs=0.05)


def test_a_higher_figure_never_scores_lower() -> None:
    peers = [evidence(200001 + i, v) for i, v in enumerate([55, 12, 99, 40, 70, 3, 81])]
    scores = score_schools([(e.urn, Phase.PRIMARY) for e in peers], peers)
    by_value = sorted(peers, key=lambda e: e.measure.value or 0)
    values = [scores[e.urn].value for e in by_value]
    assert values == sorted(values)  # type: ignore[type-var]


def test_a_small_cohort_withholds_the_score() -> None:
    result = score(evidence(300001, 45, cohort=MIN_COHORT - 1), five_peers())
    assert result == Score(None, SuppressionReason.SMALL_COHORT)


def test_a_cohort_of_exactly_the_minimum_is_scored() -> None:
    assert score(evidence(300001, 45, cohort=MIN_COHORT), five_peers()).value is not None


def test_a_small_cohort_figure_is_not_counted_as_a_peer() -> None:
    peers = [*five_peers()[:4], evidence(200099, 100, cohort=3)]
    result = score(evidence(300001, 45), peers)
    # four full peers plus the target itself: five comparable figures
    assert result.value == pytest.approx(100 * 4.5 / 5)


def test_a_suppressed_small_cohort_measure_says_small_cohort() -> None:
    assert score(evidence(300001, suppressed("small_cohort")), five_peers()).reason == (
        SuppressionReason.SMALL_COHORT
    )


@pytest.mark.parametrize("reason", ["low_reliability", "rounds_to_zero"])
def test_another_suppressed_measure_says_measure_suppressed(reason: str) -> None:
    result = score(evidence(300001, suppressed(reason)), five_peers())
    assert result == Score(None, SuppressionReason.MEASURE_SUPPRESSED)


def test_a_not_applicable_measure_is_not_comparable() -> None:
    result = score(evidence(300001, not_applicable()), five_peers())
    assert result == Score(None, SuppressionReason.NOT_COMPARABLE)


def test_a_missing_measure_is_no_comparable_evidence() -> None:
    result = score(evidence(300001, missing()), five_peers())
    assert result == Score(None, SuppressionReason.NO_EVIDENCE)


def test_a_stale_period_withholds_the_score() -> None:
    result = score(evidence(300001, 45, period=OLDER), five_peers())
    assert result == Score(None, SuppressionReason.STALE)


def test_stale_figures_do_not_count_as_peers() -> None:
    peers = [*five_peers()[:4], evidence(200099, 45, period=OLDER)]
    result = score(evidence(300001, 45), peers)
    assert result.value == pytest.approx(100 * 4.5 / 5)


@pytest.mark.parametrize("phase", [Phase.NURSERY, None])
def test_nursery_or_unknown_phase_is_not_comparable(phase: Phase | None) -> None:
    result = score(evidence(300001, 45, phase=phase), five_peers(), phase=phase)
    assert result == Score(None, SuppressionReason.NOT_COMPARABLE)


def test_fewer_than_the_minimum_peers_withholds_every_score() -> None:
    peers = five_peers()[: MIN_PEERS - 1]
    scores = score_schools([(e.urn, Phase.PRIMARY) for e in peers], peers)
    assert {s.reason for s in scores.values()} == {SuppressionReason.INSUFFICIENT_PEERS}
    assert all(s.value is None for s in scores.values())


def test_peers_are_only_schools_of_the_same_phase() -> None:
    secondary = five_peers(start=400001, phase=Phase.SECONDARY)
    primaries = five_peers()[: MIN_PEERS - 2]  # plus the target: one short of MIN_PEERS
    result = score(evidence(300001, 45), [*secondary, *primaries])
    assert result.reason == SuppressionReason.INSUFFICIENT_PEERS


def test_a_school_without_evidence_gets_a_reason_not_a_number() -> None:
    scores = score_schools([(Urn(300001), Phase.PRIMARY)], five_peers())
    assert scores[Urn(300001)] == Score(None, SuppressionReason.NO_EVIDENCE)


def test_evidence_of_another_phase_does_not_count_for_the_school() -> None:
    target = evidence(300001, 45, phase=Phase.SECONDARY)
    peers = five_peers() + five_peers(start=400001, phase=Phase.SECONDARY)
    assert score(target, peers, phase=Phase.PRIMARY).reason == SuppressionReason.NO_EVIDENCE


def test_only_roster_schools_are_scored() -> None:
    peers = five_peers()
    scores = score_schools([(peers[0].urn, Phase.PRIMARY)], peers)
    assert set(scores) == {peers[0].urn}
    assert scores[peers[0].urn].value == 10.0


MEASURES = st.one_of(
    st.floats(min_value=0, max_value=100, allow_nan=False).map(reported),
    st.sampled_from(
        [suppressed("small_cohort"), suppressed("low_reliability"), not_applicable(), missing()]
    ),
)


@st.composite
def rosters(draw: st.DrawFn) -> tuple[list[tuple[Urn, Phase | None]], list[Evidence]]:
    count = draw(st.integers(min_value=0, max_value=25))
    roster: list[tuple[Urn, Phase | None]] = []
    found: list[Evidence] = []
    for i in range(count):
        urn = Urn(500000 + i)
        phase = draw(st.sampled_from([*Phase, None]))
        roster.append((urn, phase))
        if draw(st.booleans()):
            found.append(
                Evidence(
                    urn=urn,
                    phase=draw(st.sampled_from([phase, phase, Phase.PRIMARY])),
                    period=draw(st.sampled_from([LATEST, LATEST, OLDER])),
                    measure=draw(MEASURES),
                    cohort=draw(st.one_of(st.none(), st.integers(min_value=0, max_value=200))),
                )
            )
    return roster, found


@settings(max_examples=30)
@given(rosters())
def test_a_score_is_null_exactly_when_a_reason_is_given_and_within_0_to_100(
    data: tuple[list[tuple[Urn, Phase | None]], list[Evidence]],
) -> None:
    roster, found = data
    scores = score_schools(roster, found)
    assert set(scores) == {urn for urn, _ in roster}
    for result in scores.values():
        assert (result.value is None) == (result.reason is not None)
        assert result.suppressed == (result.value is None)
        if result.value is not None:
            assert 0 <= result.value <= 100
        else:
            assert result.reason in {
                SuppressionReason.NOT_COMPARABLE,
                SuppressionReason.NO_EVIDENCE,
                SuppressionReason.STALE,
                SuppressionReason.SMALL_COHORT,
                SuppressionReason.MEASURE_SUPPRESSED,
                SuppressionReason.INSUFFICIENT_PEERS,
            }


@settings(max_examples=300)
@given(st.integers(min_value=1, max_value=100_000), st.data())
def test_a_score_is_never_shown_as_zero_or_a_hundred(peers: int, data: st.DataObject) -> None:
    below = data.draw(st.integers(min_value=0, max_value=peers - 1))
    equal = data.draw(st.integers(min_value=1, max_value=peers - below))
    score = mid_rank_score(below, equal, peers)
    assert 0.1 <= score <= 99.9
    exact = 100.0 * (below + 0.5 * equal) / peers
    assert abs(score - exact) <= 0.1 + 1e-9


def test_the_lowest_of_thousands_of_peers_scores_a_tenth_not_zero() -> None:
    assert mid_rank_score(0, 1, 16_000) == 0.1
    assert mid_rank_score(15_999, 1, 16_000) == 99.9
