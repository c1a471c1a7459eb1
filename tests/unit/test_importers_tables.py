"""DfE school-level tables in EES's long layout: a school's figure is its headline row only.

The real `202425_performance_tables_schools_*.csv` has, for each school, an all-pupils row
beside rows for pupil groups (sex, disadvantage, first language...), and rows for England and
each local authority. The columns below are the publisher's names for that release.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from schooldata.adapters.importers.performance import KS4_RESULTS, parse_table
from schooldata.domain.errors import ImportRejected
from schooldata.domain.measure import reported, suppressed
from schooldata.domain.results import MeasureRecord
from schooldata.ports.imports import RejectLog

HEADER = [
    "time_period",
    "time_identifier",
    "geographic_level",
    "country_code",
    "country_name",
    "la_name",
    "school_urn",
    "school_name",
    "establishment_type_group",
    "breakdown_topic",
    "breakdown",
    "sex",
    "disadvantage_status",
    "first_language",
    "prior_attainment",
    "mobility",
    "pupil_count",
    "attainment8_average",
    "engmath_95_percent",
    "engmath_94_percent",
    "ebacc_entering_percent",
    "progress8_pupil_count",
    "progress8_average",
    "progress8_lower_95_ci",
    "progress8_upper_95_ci",
]
TOTALS = ["Total"] * 7  # breakdown_topic .. mobility


def row(level: str, urn: str, groups: list[str], figures: list[str]) -> list[str]:
    place = ["202425", "Academic year", level, "E92000001", "England", "Camden", urn]
    return [*place, f"School {urn}", "Academies", *groups, *figures]


def write(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out, quoting=csv.QUOTE_MINIMAL)
        writer.writerow(HEADER)
        writer.writerows(rows)
    return path


def disadvantaged() -> list[str]:
    return ["Disadvantage", "Disadvantaged", "Total", "Disadvantaged", "Total", "Total", "Total"]


def parse(path: Path) -> tuple[dict[tuple[int, str], MeasureRecord], RejectLog]:
    log = RejectLog()
    found = {(r.urn.value, r.code): r for r in parse_table(KS4_RESULTS, path, log)}
    return found, log


FIGURES = ["150", "41.5", "40.2", "61.0", "38.5", "140", "z", "z", "z"]


def test_the_headline_row_is_the_schools_figure_not_a_pupil_group(tmp_path: Path) -> None:
    path = write(
        tmp_path / "202425_performance_tables_schools_revised.csv",
        [
            row("National", "", TOTALS, ["600000", "45.9", "45.2", "64.2", "40.1", "0", *"zzz"]),
            row(
                "Local authority", "", TOTALS, ["2000", "50.1", "52.0", "70.3", "55.0", "0", *"zzz"]
            ),
            row("School", "100101", TOTALS, FIGURES),
            row("School", "100101", disadvantaged(), ["20", "89.0", "9", "10", "5", "20", *"zzz"]),
        ],
    )
    found, log = parse(path)
    assert found[(100101, "ks4_attainment8_average")].measure == reported(41.5)
    assert found[(100101, "ks4_attainment8_average")].cohort == 150
    assert found[(100101, "ks4_end_pupil_count")].measure == reported(150)
    assert log.rejects == []
    assert log.skipped == 3  # England, the authority and the disadvantaged pupils


def test_the_releases_own_column_names_are_read(tmp_path: Path) -> None:
    path = write(tmp_path / "schools.csv", [row("School", "100101", TOTALS, FIGURES)])
    found, _ = parse(path)
    assert found[(100101, "ks4_english_maths_grade5_percent")].measure == reported(40.2)
    assert found[(100101, "ks4_ebacc_entry_percent")].measure == reported(38.5)
    # 2024/25 has no KS2 baseline: Progress 8 is null with its reason, never a figure.
    assert found[(100101, "ks4_progress8_average")].measure.reason == "no_ks2_baseline"


def test_a_small_cohort_is_known_from_the_pupil_count(tmp_path: Path) -> None:
    small = ["7", "65.0", "c", "c", "c", "7", *"zzz"]
    found, _ = parse(write(tmp_path / "schools.csv", [row("School", "100107", TOTALS, small)]))
    assert found[(100107, "ks4_attainment8_average")].cohort == 7
    assert found[(100107, "ks4_english_maths_grade5_percent")].measure == suppressed("small_cohort")


def test_a_second_headline_row_for_one_school_and_period_is_rejected(tmp_path: Path) -> None:
    path = write(
        tmp_path / "schools.csv",
        [row("School", "100101", TOTALS, FIGURES), row("School", "100101", TOTALS, FIGURES)],
    )
    found, log = parse(path)
    assert found[(100101, "ks4_attainment8_average")].measure == reported(41.5)
    assert len(log.rejects) == 1
    assert "second 2024/25 row" in log.rejects[0][1]


def test_a_file_with_only_a_pupil_count_is_not_a_results_table(tmp_path: Path) -> None:
    path = tmp_path / "202425_information_about_schools_provisional.csv"
    path.write_text("time_period,school_urn,endks4_pupil_count\n202425,100101,150\n")
    with pytest.raises(ImportRejected, match="none of the KS4 school results columns"):
        parse(path)
