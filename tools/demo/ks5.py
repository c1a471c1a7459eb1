"""16-18: DfE's institution performance file (a row per school, qualification type and
disadvantage status) and the institution-level destination measures."""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from schooldata.adapters.importers.performance.datasets import KS5_DESTINATIONS, KS5_RESULTS
from tools.demo.columns import (
    BREAKDOWN,
    BREAKDOWN_TOPIC,
    COHORT_LEVEL,
    COHORT_LEVEL_GROUP,
    DISADVANTAGE,
    measure,
    split,
)
from tools.demo.columns import (
    cohort as cohort_column,
)
from tools.demo.draws import substream
from tools.demo.output import Output, clip, ees_csv, percent, write_gz
from tools.demo.performance import (
    EES_PLACE,
    YEAR_STARTS,
    attainment_effect,
    ees_place,
    ees_symbol,
)
from tools.demo.school import School

# The destination shares in the file's order (after the cohort).
DESTINATIONS = (
    "ks5_sustained_destination_percent",
    "ks5_education_destination_percent",
    "ks5_higher_education_destination_percent",
    "ks5_further_education_destination_percent",
    "ks5_apprenticeship_destination_percent",
    "ks5_employment_destination_percent",
    "ks5_not_sustained_destination_percent",
    "ks5_destination_unknown_percent",
)


def aps_grade(points: float) -> str:
    """DfE's grade for an average point score per A level entry (A*=60 ... E=10)."""
    if points >= 60:
        return "A*"
    if points < 10:
        return "E-"
    base = int(points // 10) * 10
    letter = {50: "A", 40: "B", 30: "C", 20: "D", 10: "E"}[base]
    third = (points - base) / 10
    return letter + ("-" if third < 1 / 3 else "" if third < 2 / 3 else "+")


def sixth_form_students(rng: random.Random, s: School) -> int:
    if s.etype.kind == "fe":
        return rng.randint(400, 2500)
    if s.phase == 6:
        return max(6, round((s.pupils or rng.randint(300, 1200)) * rng.uniform(0.8, 0.95)))
    if s.etype.special:
        return rng.randint(1, 15)
    return max(1, round((s.pupils or 900) * rng.uniform(0.08, 0.2)))


def ks5_row(
    place: list[str], students: int, cohort: str, group: str, entrants: int, points: float
) -> list[str]:
    if entrants < 6:
        return [*place, cohort, group, str(students), str(entrants), "c", "c"]
    grade = aps_grade(points)
    return [*place, cohort, group, str(students), str(entrants), f"{points:.2f}", grade]


def write_ks5(out: Path, schools: Sequence[School]) -> tuple[Output, Output]:
    """16-18 results as DfE's institution file: a row per school, qualification type
    (`exam_cohort`) and disadvantage status; and the institution destinations file."""
    rng = substream("ks5")
    header = (
        *EES_PLACE,
        split(KS5_RESULTS),
        DISADVANTAGE,
        cohort_column(KS5_RESULTS, "ks5_students_count"),
        cohort_column(KS5_RESULTS, "ks5_aps_per_entry", "a level"),
        measure(KS5_RESULTS, "ks5_aps_per_entry", "a level"),
        "aps_per_entry_grade",
    )
    rows: list[list[str]] = []
    eligible = [s for s in schools if s.is_open and s.sixth_form]
    for period in ("202324", "202425"):
        for s in eligible:
            if not s.open_on(YEAR_STARTS[period]):
                continue
            students = sixth_form_students(rng, s)
            place = ees_place(period, s)
            a_level = max(0, round(students * rng.uniform(0.55, 0.9)))
            applied = round(students * rng.uniform(0.0, 0.35))

            row = partial(ks5_row, place, students)

            effect = attainment_effect(s)
            aps = clip(rng.gauss(33 + 4 * effect, 3), 8, 58)
            if s.etype.special and rng.random() < 0.5:
                # No A level entries: other qualifications only.
                rows.append([*place, "A level", "Total", str(students), "0", "z", "z"])
            else:
                symbol = ees_symbol(rng)
                if symbol:
                    rows.append([*place, "A level", "Total", str(students), "z", symbol, symbol])
                else:
                    rows.append(row("A level", "Total", a_level, aps))
                    disadvantaged = round(a_level * rng.uniform(0.05, 0.25))
                    rows.append(row("A level", "Disadvantaged", disadvantaged, aps - 4))
            # Academic includes A levels: a different figure, never the A level one.
            rows.append(row("Academic", "Total", a_level + round(a_level * 0.03), aps + 0.4))
            if applied:
                rows.append(row("Applied general", "Total", applied, clip(rng.gauss(30, 4), 8, 50)))
    path = out / "ks5_results_demo.csv.gz"
    write_gz(path, ees_csv(header, rows))
    results = Output(
        path,
        len(rows),
        {
            "dataset": "A level and other 16 to 18 results: institution performance",
            "format": "ks5_results",
            "publisher": "Department for Education (explore education statistics)",
            "period": ["202324", "202425"],
            "real_file_name_pattern": "institution_performance_202225.csv",
            "encoding": "utf-8",
            "line_endings": "LF",
        },
    )

    drng = substream("ks5_destinations")
    dheader = (
        *EES_PLACE,
        "institution_group",
        "institution_type",
        COHORT_LEVEL_GROUP,
        COHORT_LEVEL,
        BREAKDOWN_TOPIC,
        BREAKDOWN,
        *KS5_DESTINATIONS.keep,  # data_type
        "version",
        measure(KS5_DESTINATIONS, "ks5_destinations_cohort"),
        *(measure(KS5_DESTINATIONS, code) for code in DESTINATIONS[:4]),
        "other_edu",  # not read: other education is inside `education`
        *(measure(KS5_DESTINATIONS, code) for code in DESTINATIONS[4:]),
    )
    drows: list[list[str]] = []
    for s in eligible:
        if not s.open_on(YEAR_STARTS["202223"]):
            continue
        cohort = max(1, round(sixth_form_students(drng, s) * drng.uniform(0.4, 0.55)))
        place = [
            *ees_place("202223", s),
            "State-funded mainstream schools" if s.is_state else "Independent schools",
            s.etype.ks4_group,
            "Total",
            "Total",
            "Total",
            "Total",
        ]
        if cohort < 6:
            for kind in ("Number of students", "Percentage"):
                drows.append([*place, kind, "Final", str(cohort), *["c"] * 9])
            continue
        if s.is_independent:
            for kind in ("Number of students", "Percentage"):
                drows.append([*place, kind, "Final", str(cohort), *["z"] * 9])
            continue
        effect = attainment_effect(s)
        sustained = clip(drng.gauss(88 + 2 * effect, 4), 40, 100)
        appr = clip(drng.gauss(6 - effect, 3), 0, 30)
        if appr < 0.5 and drng.random() < 0.5:
            appr = drng.uniform(0, 0.04)
        edu_share = clip(drng.gauss(0.78 + 0.05 * effect, 0.08), 0.3, 1.0)
        edu = max(0.0, sustained - appr) * edu_share
        emp = max(0.0, sustained - appr - edu)
        he = edu * clip(drng.gauss(0.8, 0.08), 0.3, 1.0)
        fe = edu - he
        unknown = clip(drng.gauss(3, 1.5), 0, 100 - sustained)
        shares = [sustained, edu, he, fe, 0.0, appr, emp, 100 - sustained - unknown, unknown]
        symbol = ees_symbol(drng)
        counts = [str(round(cohort * share / 100)) for share in shares]
        drows.append(
            [
                *place,
                "Number of students",
                "Final",
                str(cohort),
                *([symbol] * 9 if symbol else counts),
            ]
        )
        values = [percent(share) for share in shares]
        drows.append(
            [*place, "Percentage", "Final", str(cohort), *([symbol] * 9 if symbol else values)]
        )
    dpath = out / "ks5_destinations_demo.csv.gz"
    write_gz(dpath, ees_csv(dheader, drows))
    destinations = Output(
        dpath,
        len(drows),
        {
            "dataset": "16-18 destination measures: institution level (2022/23 cohort)",
            "format": "ks5_destinations",
            "publisher": "Department for Education (explore education statistics)",
            "period": ["202223"],
            "encoding": "utf-8",
            "line_endings": "LF",
        },
    )
    return results, destinations
