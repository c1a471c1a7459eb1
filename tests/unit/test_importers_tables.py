"""DfE school-level tables: a school's figure is its headline row only, in each of the layouts
DfE publishes (EES long tables, tables split by subject / exam cohort / application round, and
the older performance-tables downloads).

The real `202425_performance_tables_schools_*.csv` has, for each school, an all-pupils row
beside rows for pupil groups (sex, disadvantage, first language...), and rows for England and
each local authority. The columns below are the publisher's names for that release.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from schooldata.adapters.importers.performance.datasets import (
    ADMISSIONS,
    FINANCE,
    KS2_RESULTS,
    KS4_RESULTS,
    KS5_DESTINATIONS,
    KS5_RESULTS,
    TABLES,
)
from schooldata.adapters.importers.performance.reader import parse_table
from schooldata.adapters.importers.performance.spec import TableSpec
from schooldata.domain.catalogue import MEASURES
from schooldata.domain.errors import ImportRejected
from schooldata.domain.measure import MeasureStatus, reported, suppressed
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


# ---- the publishers' other school-level tables (fixtures: tests/fixtures/importers) ----------

FIXTURES = Path(__file__).parent.parent / "fixtures" / "importers"


def records(
    spec: TableSpec, name: str, **kwargs: str
) -> tuple[dict[tuple[int, str, str], MeasureRecord], RejectLog]:
    log = RejectLog()
    found = {
        (r.urn.value, r.period, r.code): r
        for r in parse_table(spec, FIXTURES / name, log, **kwargs)
    }
    return found, log


def test_16_18_results_serve_the_a_level_row_as_a_level_not_the_first_row_of_the_school() -> None:
    found, log = records(KS5_RESULTS, "institution_performance_202225.csv")
    a_level = found[(100130, "2024/25", "ks5_aps_per_entry")]
    assert a_level.measure == reported(38.2)
    assert a_level.cohort == 142  # aps_per_entry_student_count of the A level row
    assert found[(100130, "2024/25", "ks5_aps_per_entry_academic")].measure == reported(36.1)
    assert log.rejects == []  # one row per exam cohort is the layout, not a duplicate


def test_16_18_results_keep_each_qualification_type_as_its_own_measure() -> None:
    found, log = records(KS5_RESULTS, "institution_performance_202225.csv")
    assert found[(100130, "2024/25", "ks5_aps_per_entry_applied_general")].measure == reported(29.4)
    tech = found[(100130, "2024/25", "ks5_aps_per_entry_tech_level")].measure
    assert tech == suppressed("small_cohort")
    assert found[(100130, "2024/25", "ks5_students_count")].measure == reported(180)
    # A national row, the disadvantaged pupils' row and "Alternative level 3" are skipped.
    assert log.skipped == 3
    assert found[(100130, "2023/24", "ks5_aps_per_entry")].measure == reported(37.0)


def test_16_18_destinations_read_the_percentage_row_of_the_whole_cohort() -> None:
    found, _ = records(KS5_DESTINATIONS, "1618_dm_institution_level_202223.csv")
    sustained = found[(100130, "2022/23", "ks5_sustained_destination_percent")]
    assert sustained.measure == reported(91.6)  # `overall`, a share, not the 141 students
    assert sustained.cohort == 154
    assert found[(100130, "2022/23", "ks5_apprenticeship_destination_percent")].measure == (
        reported(5.8)
    )
    assert found[(100130, "2022/23", "ks5_destinations_cohort")].measure == reported(154)


def test_16_18_destinations_keep_each_rows_own_year_and_serve_none_newer_than_2022_23() -> None:
    found, log = records(KS5_DESTINATIONS, "1618_dm_institution_level_202223.csv")
    assert {period for _, period, _ in found} == {"2021/22", "2022/23"}
    older = found[(100130, "2021/22", "ks5_sustained_destination_percent")]
    assert older.measure == reported(89.3)
    # Number rows, the level 3 row, the disadvantaged row and the 2023/24 row are skipped.
    assert log.skipped == 5
    assert log.rejects == []


def test_ks2_long_layout_reads_each_subjects_measures_from_its_headline_row() -> None:
    found, log = records(KS2_RESULTS, "ks2_school_attainment_data.csv")
    assert found[(100120, "2024/25", "ks2_rwm_expected_percent")].measure == reported(71)
    assert found[(100120, "2024/25", "ks2_rwm_higher_percent")].measure == reported(14)
    assert found[(100120, "2024/25", "ks2_reading_average_scaled_score")].measure == reported(107)
    assert found[(100120, "2024/25", "ks2_maths_average_scaled_score")].measure == reported(106)
    assert found[(100120, "2024/25", "ks2_writing_expected_percent")].measure == reported(74)
    assert found[(100120, "2024/25", "ks2_gps_average_scaled_score")].measure == reported(108)
    assert found[(100120, "2023/24", "ks2_rwm_expected_percent")].measure == reported(65)
    assert found[(100121, "2024/25", "ks2_rwm_expected_percent")].measure == suppressed(
        "small_cohort"
    )
    # England, the authority, the 3-year average, the disadvantaged pupils and science.
    assert log.skipped == 5
    assert log.rejects == []


def test_ks2_wide_layout_of_the_older_download_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "2018-2019" / "england_ks2final.csv"
    path.parent.mkdir()
    path.write_text(
        "RECTYPE,LEA,URN,SCHNAME,TELIG,PTRWM_EXP,PTRWM_HIGH,READ_AVERAGE,MAT_AVERAGE\n"
        "1,202,100120,Brookfield Primary School,30,71%,14%,107,106\n"
        "4,202,,Camden,1800,68%,11%,105,105\n"
    )
    log = RejectLog()
    found = {(r.code): r for r in parse_table(KS2_RESULTS, path, log)}
    assert found["ks2_rwm_expected_percent"].measure == reported(71)
    assert found["ks2_rwm_expected_percent"].period == "2018/19"
    assert found["ks2_rwm_expected_percent"].cohort == 30
    assert log.skipped == 1  # the authority's row has no URN


def test_admissions_keep_both_rounds_of_an_all_through_school() -> None:
    found, log = records(ADMISSIONS, "AppsandOffers_2025_SchoolLevel.csv")
    assert found[(100142, "2025/26", "admissions_primary_places_offered")].measure == reported(30)
    assert found[(100142, "2025/26", "admissions_secondary_places_offered")].measure == reported(60)
    assert log.rejects == []
    assert log.skipped == 1  # a row whose school_urn is "n/a"


def test_admissions_import_places_offered_and_the_first_preference_ratio_as_published() -> None:
    found, _ = records(ADMISSIONS, "AppsandOffers_2025_SchoolLevel.csv")
    assert found[(100140, "2025/26", "admissions_primary_places_offered")].measure == reported(60)
    # proportion_1stprefs_v_1stprefoffers is 72 first preferences / 49 such offers: a ratio.
    ratio = found[
        (100140, "2025/26", "admissions_primary_first_preferences_per_first_preference_offer")
    ]
    assert ratio.measure == reported(1.4694)
    per_place = found[(100140, "2025/26", "admissions_primary_first_preferences_per_place")]
    assert per_place.measure == reported(1.2)


def test_admissions_without_the_application_round_column_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "apps.csv"
    path.write_text("time_period,school_urn,total_number_places_offered\n202526,100140,60\n")
    with pytest.raises(ImportRejected, match=r"apps\.csv .*no 'school_phase' column"):
        parse_table(ADMISSIONS, path, RejectLog())


def test_the_older_ks4_download_takes_its_year_from_its_folder_and_maps_its_codes() -> None:
    found, log = records(KS4_RESULTS, "2018-2019/england_ks4final.csv")
    assert found[(139948, "2018/19", "ks4_attainment8_average")].measure == reported(46)
    assert found[(139948, "2018/19", "ks4_progress8_average")].measure == reported(0.22)
    assert found[(139948, "2018/19", "ks4_english_maths_grade5_percent")].measure == reported(34)
    assert found[(125500, "2018/19", "ks4_attainment8_average")].measure == suppressed(
        "small_cohort"
    )
    no_entries = found[(141200, "2018/19", "ks4_ebacc_entry_percent")].measure
    assert (no_entries.status, no_entries.value, no_entries.reason) == (
        MeasureStatus.NOT_APPLICABLE,
        None,
        "no_entries",
    )
    assert found[(148000, "2018/19", "ks4_progress8_average")].measure.reason == "not_published"
    assert found[(125600, "2018/19", "ks4_progress8_average")].measure.reason == "low_coverage"
    assert log.skipped == 2  # the authority's and England's rows: no URN
    assert log.rejects == []


def test_an_explicit_period_names_the_year_of_a_file_that_does_not(tmp_path: Path) -> None:
    path = tmp_path / "england_ks4final.csv"
    path.write_bytes((FIXTURES / "2018-2019" / "england_ks4final.csv").read_bytes())
    with pytest.raises(ImportRejected, match=r"england_ks4final.csv .*--period"):
        parse_table(KS4_RESULTS, path, RejectLog())
    periods = {r.period for r in parse_table(KS4_RESULTS, path, RejectLog(), period="2022/23")}
    assert periods == {"2022/23"}


def test_a_period_for_a_file_with_a_time_period_column_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "schools.csv", [row("School", "100101", TOTALS, FIGURES)])
    with pytest.raises(ImportRejected, match="has a time_period column"):
        parse_table(KS4_RESULTS, path, RejectLog(), period="2023/24")


def test_finance_reads_the_performance_tables_spend_per_pupil_file() -> None:
    found, log = records(FINANCE, "2022-2023/england_cfr.csv")
    assert found[(100150, "2022/23", "finance_income_per_pupil")].measure == reported(7345)
    assert found[(100150, "2022/23", "finance_expenditure_per_pupil")].measure == reported(7820)
    assert found[(100150, "2022/23", "finance_pupils_fte")].measure == reported(312.5)
    assert found[(100150, "2022/23", "finance_teaching_staff_percent")].measure == reported(49.9)
    assert found[(100151, "2022/23", "finance_income_per_pupil")].measure == suppressed(
        "small_cohort"
    )
    assert log.skipped == 1  # the England median row


def test_progress8_is_said_unpublished_for_2024_25_even_when_the_file_has_no_column(
    tmp_path: Path,
) -> None:
    path = tmp_path / "202425_performance_tables_schools_final.csv"
    path.write_text(
        "time_period,school_urn,pupil_count,attainment8_average\n202425,100101,150,41.5\n"
    )
    found = {r.code: r for r in parse_table(KS4_RESULTS, path, RejectLog())}
    assert found["ks4_progress8_average"].measure.reason == "no_ks2_baseline"
    assert found["ks4_progress8_average"].measure.value is None
    assert found["ks4_attainment8_average"].measure == reported(41.5)


def test_every_code_a_table_writes_is_in_the_catalogue() -> None:
    for spec in TABLES.values():
        codes = set(spec.measures)
        if spec.split is not None:
            codes |= {code for group in spec.split.groups.values() for code in group}
            codes |= set(spec.split.shared)
        assert codes <= set(MEASURES), (spec.dataset, codes - set(MEASURES))
