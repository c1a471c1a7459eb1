"""Recompute every school's svcScore from the stored headline measures."""

from __future__ import annotations

from collections.abc import Iterable

from schooldata.domain.results import MeasureRecord, preferred
from schooldata.domain.school import School
from schooldata.domain.scoring import HEADLINE_MEASURE, Evidence, Score, score_schools
from schooldata.domain.urn import Urn


def compute_scores(
    schools: Iterable[School], measures: Iterable[MeasureRecord]
) -> dict[Urn, Score]:
    """Each school's newest figure of its own phase's headline measure is its evidence."""
    roster = [(s.urn, s.phase) for s in schools]
    phase_of = dict(roster)
    newest: dict[Urn, MeasureRecord] = {}
    for record in measures:
        phase = phase_of.get(record.urn)
        if phase is None or HEADLINE_MEASURE.get(phase) != record.code:
            continue
        newest[record.urn] = preferred(newest.get(record.urn), record)
    evidence = [
        Evidence(
            urn=r.urn, phase=phase_of[r.urn], period=r.period, measure=r.measure, cohort=r.cohort
        )
        for r in newest.values()
    ]
    return score_schools(roster, evidence)
