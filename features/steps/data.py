"""Data a scenario adds to the hand-built dataset: published measures and inspections.

Written into the in-memory store in one transaction, the way an import writes them, so
every face reads them through the same ports.
"""

from __future__ import annotations

import datetime as dt

from pytest_bdd import given, parsers

from features.drivers.world import SCENARIO_DATASET, World
from schooldata.domain.measure import Measure, missing, not_applicable, reported, suppressed
from schooldata.domain.ofsted import (
    GradedInspection,
    InspectionRecord,
    ReportCard,
    ReportCardScale,
)
from schooldata.domain.results import MeasureRecord
from schooldata.domain.urn import Urn

KINDS = {"suppressed": suppressed, "missing": missing, "not applicable": not_applicable}


def measure_of(cell: str) -> Measure:
    """`0.52` is a published figure; `suppressed: small_cohort`, `missing: not_published` and
    `not applicable: not_applicable` are the publishers' reasons for having none."""
    if ":" in cell:
        kind, reason = (part.strip() for part in cell.split(":", 1))
        return KINDS[kind](reason)
    return reported(float(cell))


@given(parsers.parse("school {urn:d} has these published measures:"))
def _(world: World, urn: int, datatable: list[list[str]]) -> None:
    header, *rows = datatable
    records = []
    for row in rows:
        cells = dict(zip(header, row, strict=True))
        cohort = cells.get("cohort", "").strip()
        records.append(
            MeasureRecord(
                Urn(urn),
                SCENARIO_DATASET,
                cells["period"],
                cells["measure"],
                measure_of(cells["value"]),
                cohort=int(cohort) if cohort else None,
            )
        )
    world.add_measures(records)


@given(parsers.parse("school {urn:d} had a graded inspection on {date} judged {grade:d}"))
def _(world: World, urn: int, date: str, grade: int) -> None:
    inspection = GradedInspection(
        inspection_date=dt.date.fromisoformat(date),
        publication_date=None,
        inspection_type="Section 5",
        overall_effectiveness=grade,
        sub_grades={"quality_of_education": grade},
        safeguarding_effective=True,
    )
    world.add_inspections([InspectionRecord(Urn(urn), inspection, f"G{urn}{date}")])


@given(
    parsers.parse(
        'school {urn:d} had a report card inspection on {date} with "{area}" judged "{scale}"'
    )
)
def _(world: World, urn: int, date: str, area: str, scale: str) -> None:
    inspection = ReportCard(
        inspection_date=dt.date.fromisoformat(date),
        publication_date=None,
        inspection_type="Report card",
        areas={area: ReportCardScale(scale)},
        safeguarding_met=True,
    )
    world.add_inspections([InspectionRecord(Urn(urn), inspection, f"R{urn}{date}")])
