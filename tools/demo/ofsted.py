"""Ofsted's state-funded schools management information: the latest graded inspections
(framework to August 2024) and the report cards from 10 November 2025."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

from tools.demo.draws import random_date, substream
from tools.demo.output import Output, clip, ees_csv, ofsted_date, write_gz
from tools.demo.performance import quality
from tools.demo.school import School

OFSTED_COMMON = (
    "URN",
    "School name",
    "Ofsted phase",
    "Type of education",
    "Local authority",
    "Inspection number",
    "Inspection type",
    "Inspection start date",
    "Publication date",
)
GRADED_HEADER = (
    *OFSTED_COMMON,
    "Overall effectiveness",
    "Quality of education",
    "Behaviour and attitudes",
    "Personal development",
    "Effectiveness of leadership and management",
    "Safeguarding is effective?",
    "Early years provision (where applicable)",
    "Sixth form provision (where applicable)",
)
REPORT_CARD_HEADER = (
    *OFSTED_COMMON,
    "Inclusion",
    "Curriculum and teaching",
    "Achievement",
    "Attendance and behaviour",
    "Personal development and well-being",
    "Leadership and governance",
    "Early years",
    "Post-16",
    "Safeguarding",
)
REPORT_CARD_SCALE = (
    "Exceptional",
    "Strong standard",
    "Expected standard",
    "Needs attention",
    "Urgent improvement",
)


def ofsted_inspected(s: School) -> bool:
    """State-funded schools in Ofsted's schools MI (not FE colleges, not independents)."""
    return s.is_open and s.is_state and bool(s.etype.ofsted) and s.etype.kind != "fe"


def ofsted_phase(s: School) -> str:
    if s.etype.special:
        return "Special"
    if s.etype.alternative:
        return "PRU"
    return {1: "Nursery", 2: "Primary", 3: "Primary"}.get(s.phase, "Secondary")


def has_early_years(s: School) -> bool:
    return s.low_age <= 5 and s.phase in (1, 2, 7)


def write_ofsted(out: Path, schools: Sequence[School]) -> tuple[Output, Output]:
    rng = substream("ofsted")
    inspected = [s for s in schools if ofsted_inspected(s)]
    graded = sorted(rng.sample(inspected, round(0.70 * len(inspected))), key=lambda s: s.urn)
    graded_urns = {s.urn for s in graded}
    n_cards = round(0.15 * len(inspected))
    from_graded = rng.sample(graded, round(0.85 * n_cards))
    not_graded = [s for s in inspected if s.urn not in graded_urns]
    cards = sorted(
        from_graded + rng.sample(not_graded, n_cards - len(from_graded)), key=lambda s: s.urn
    )

    inspection_numbers = iter(rng.sample(range(10_000_000, 10_400_000), len(graded) + n_cards))
    rows: list[list[str]] = []
    for s in graded:
        start = random_date(rng, dt.date(2015, 9, 7), dt.date(2024, 7, 19))
        published = start + dt.timedelta(days=rng.randint(18, 45))
        effect = quality(s)
        # Roughly the last graded picture: ~20% outstanding, ~65% good, ~12% RI, ~3% inadequate.
        overall = int(clip(round(1.9 - 0.4 * effect + rng.gauss(0, 0.3)), 1, 3))
        if rng.random() < 0.03:
            overall = 4

        def sub(grade: int = overall) -> str:
            return str(int(clip(grade + rng.choice((-1, 0, 0, 0, 0, 1)), 1, 4)))

        early = sub() if has_early_years(s) else ""
        sixth = sub() if s.sixth_form else ""
        if early and rng.random() < 0.02:
            early = "9"  # judgement not made
        safeguarding = "No" if overall == 4 and rng.random() < 0.6 else "Yes"
        rows.append(
            [
                str(s.urn),
                s.name,
                ofsted_phase(s),
                s.etype.ofsted,
                s.la.name,
                str(next(inspection_numbers)),
                "S5 Inspection",
                ofsted_date(start),
                ofsted_date(published),
                str(overall),
                sub(),
                sub(),
                sub(),
                sub(),
                safeguarding,
                early,
                sixth,
            ]
        )
    graded_path = out / "ofsted_graded_demo.csv.gz"
    write_gz(graded_path, ees_csv(GRADED_HEADER, rows))

    card_rows: list[list[str]] = []
    for s in cards:
        start = random_date(rng, dt.date(2025, 11, 10), dt.date(2026, 6, 30))
        published = start + dt.timedelta(days=rng.randint(14, 35))
        effect = quality(s)
        centre = clip(1.8 - 0.45 * effect, 0, 4)  # "Expected standard" is the mode

        def area(centre: float = centre) -> str:
            return REPORT_CARD_SCALE[int(clip(round(centre + rng.gauss(0, 0.55)), 0, 4))]

        early = area() if has_early_years(s) else ""
        post16 = area() if s.sixth_form else ""
        safeguarding = "Not met" if rng.random() < 0.02 else "Met"
        card_rows.append(
            [
                str(s.urn),
                s.name,
                ofsted_phase(s),
                s.etype.ofsted,
                s.la.name,
                str(next(inspection_numbers)),
                "Full inspection",
                ofsted_date(start),
                ofsted_date(published),
                area(),
                area(),
                area(),
                area(),
                area(),
                area(),
                early,
                post16,
                safeguarding,
            ]
        )
    card_path = out / "ofsted_demo.csv.gz"
    write_gz(card_path, ees_csv(REPORT_CARD_HEADER, card_rows))
    common = {
        "publisher": "Ofsted",
        "encoding": "utf-8",
        "line_endings": "LF",
        "note": "Layout modelled on Ofsted's published state-funded schools "
        "management information (MI); values are synthetic.",
    }
    return (
        Output(
            card_path,
            len(card_rows),
            {
                **common,
                "format": "ofsted_report_card",
                "dataset": "Ofsted state-funded schools inspections: report cards "
                "(inspections from 10 November 2025)",
                "period": ["2025-11-10/2026-06-30"],
            },
        ),
        Output(
            graded_path,
            len(rows),
            {
                **common,
                "format": "ofsted_graded",
                "dataset": "Ofsted state-funded schools inspections: latest graded inspection "
                "(framework to August 2024)",
                "period": ["2015-09-01/2024-08-31"],
            },
        ),
    )
