"""DfE's school-level applications and offers, one row per school and application round."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from schooldata.adapters.importers.performance.datasets import ADMISSIONS
from tools.demo.columns import LEVEL, PERIOD, URN, measure, split
from tools.demo.draws import substream
from tools.demo.output import Output, ees_csv, fmt1, write_gz
from tools.demo.performance import YEAR_STARTS, quality
from tools.demo.places import REGION_NAMES
from tools.demo.school import School


# DfE's school-level applications and offers (`AppsandOffers_YYYY_SchoolLevel.csv`), header
# as published: one row per school and application round, so an all-through school has a
# Primary (Reception) and a Secondary (Year 7) row.
def _read(measure_name: str) -> str:
    return measure(ADMISSIONS, f"admissions_primary_{measure_name}", "primary")


ADMISSIONS_HEADER = (
    PERIOD,
    "time_identifier",
    LEVEL,
    "country_code",
    "country_name",
    "region_code",
    "region_name",
    "old_la_code",
    "new_la_code",
    "la_name",
    split(ADMISSIONS),
    "school_laestab_as_used",
    "number_preferences_la",
    "school_name",
    _read("places_offered"),
    _read("offers"),
    _read("first_preference_offers"),
    "number_2nd_preference_offers",
    "number_3rd_preference_offers",
    _read("applications"),
    _read("first_preferences"),
    "times_put_as_2nd_preference",
    "times_put_as_3rd_preference",
    _read("first_preferences_per_first_preference_offer"),
    _read("first_preferences_per_place"),
    "all_applications_from_another_LA",
    "offers_to_applicants_from_another_LA",
    "establishment_type",
    "denomination",
    "FSM_eligible_percent",
    "admissions_policy",
    "urban_rural",
    "allthrough_school",
    "parliamentary_constituency_code",
    "parliamentary_constituency_name",
    URN,
    "entry_year",
)


def write_admissions(out: Path, schools: Sequence[School]) -> Output:
    rng = substream("admissions")
    rows: list[list[str]] = []
    for period in ("202425", "202526"):
        for s in schools:
            mainstream = s.phase in (2, 3, 4, 5, 7) and not s.etype.special
            if not (s.is_open and s.is_state and mainstream and s.open_on(YEAR_STARTS[period])):
                continue
            rounds: list[tuple[str, str]] = []
            if s.phase in (2, 3, 7):
                rounds.append(("Primary", "R" if s.low_age <= 4 else "3"))
            if s.phase in (4, 5, 7):
                late = s.etype.name in ("University technical college", "Studio schools")
                rounds.append(("Secondary", "10" if late else "7"))
            region_code, region_name = REGION_NAMES[s.la.gor]
            for phase, entry_year in rounds:
                secondary = phase == "Secondary"
                capacity = s.capacity or 210
                years = (
                    max(1, min(s.high_age, 16) - 10)
                    if secondary
                    else max(1, min(s.high_age, 11) - 4)
                )
                pan = max(5, round(capacity / years / (2 if s.phase == 7 else 1) / 5) * 5)
                popularity = math.exp(0.35 * quality(s) + rng.gauss(0, 0.25))
                first = max(0, round(pan * rng.uniform(0.45, 1.3) * popularity))
                second = round(first * rng.uniform(0.3, 0.7))
                third = round(first * rng.uniform(0.2, 0.5))
                named = first + second + third + round(pan * rng.uniform(0.0, 1.5) * popularity)
                first_offers = min(first, round(pan * rng.uniform(0.75, 1.0)))
                second_offers = min(second, max(0, round((pan - first_offers) * 0.6)))
                third_offers = min(third, max(0, round((pan - first_offers - second_offers) * 0.5)))
                preferred = first_offers + second_offers + third_offers
                places = min(pan, preferred + round(pan * rng.uniform(0.0, 0.1)))
                rows.append(
                    [
                        period,
                        "Academic year",
                        "School",
                        "E92000001",
                        "England",
                        region_code,
                        region_name,
                        s.la.code,
                        s.la.gss,
                        s.la.name,
                        phase,
                        s.laestab,
                        "6" if s.la.gor == "H" else "3",
                        s.name,
                        str(places),
                        str(preferred),
                        str(first_offers),
                        str(second_offers),
                        str(third_offers),
                        str(named),
                        str(first),
                        str(second),
                        str(third),
                        f"{first / first_offers:.4f}" if first_offers else "z",
                        f"{first / places:.4f}" if places else "z",
                        str(round(named * rng.uniform(0.0, 0.15))),
                        str(round(preferred * rng.uniform(0.0, 0.1))),
                        s.etype.name,
                        {"CE": "Church of England", "RC": "Roman Catholic"}.get(s.religion, "None"),
                        fmt1(s.fsm_percent) if s.fsm_percent is not None else "z",
                        ("Selective" if s.selective else "Non-selective")
                        if secondary
                        else "Not applicable",
                        "Urban",
                        "Yes" if s.phase == 7 else "No",
                        "",
                        "",
                        str(s.urn),
                        entry_year,
                    ]
                )
    path = out / "admissions_demo.csv.gz"
    write_gz(path, ees_csv(ADMISSIONS_HEADER, rows))
    return Output(
        path,
        len(rows),
        {
            "dataset": "Secondary and primary school applications and offers: school level",
            "format": "admissions",
            "publisher": "Department for Education (explore education statistics)",
            "period": ["202425", "202526"],
            "real_file_name_pattern": "AppsandOffers_YYYY_SchoolLevel.csv",
            "encoding": "utf-8",
            "line_endings": "LF",
        },
    )
