"""KS4 information about schools: EES symbols become Measure kinds, never 0; P8 rule for 2024/25."""

from __future__ import annotations

from pathlib import Path

import pytest

from schooldata.adapters.importers.ks4_info import DATASET, parse_ks4_information
from schooldata.domain.errors import ImportRejected
from schooldata.domain.measure import MeasureStatus, missing, not_applicable, reported, suppressed
from schooldata.domain.results import MeasureRecord
from schooldata.ports.imports import RejectLog

KS4 = (
    Path(__file__).parent.parent
    / "fixtures"
    / "importers"
    / ("202425_information_about_schools_provisional.csv")
)


def records(path: Path = KS4) -> tuple[dict[tuple[int, str], MeasureRecord], RejectLog]:
    log = RejectLog()
    return {(r.urn.value, r.code): r for r in parse_ks4_information(path, log)}, log


def test_numbers_are_reported_with_period_dataset_and_cohort() -> None:
    found, _ = records()
    gap = found[(100001, "ks4_attainment8_disadvantaged_gap")]
    assert (gap.dataset, gap.period, gap.measure, gap.cohort) == (
        DATASET,
        "2024/25",
        reported(-12.3),
        100,
    )
    assert found[(100001, "ks4_end_pupil_count")].measure == reported(100)
    assert found[(100001, "ks2_baseline_average_scaled_score")].measure == reported(105.2)
    assert found[(100001, "sen_pupil_percent")].measure == reported(12.4)
    assert found[(100001, "sen_pupil_percent")].cohort == 1015  # the whole roll, "1,015"


def test_symbols_become_measure_kinds_never_zero() -> None:
    found, _ = records()
    assert found[(100002, "ks4_end_pupil_count")].measure == suppressed("small_cohort")
    assert found[(100002, "ks2_baseline_average_scaled_score")].measure == suppressed(
        "rounds_to_zero"
    )
    assert found[(100002, "sen_pupil_percent")].measure == missing("unavailable")
    assert found[(100002, "sen_with_ehcp_pupil_percent")].measure == missing("not_available")
    assert found[(100002, "ks4_attainment8_disadvantaged_gap")].measure == suppressed(
        "low_reliability"
    )
    assert found[(100544, "ks4_attainment8_disadvantaged_gap")].measure == not_applicable()
    assert found[(100002, "ks4_end_pupil_count")].cohort is None  # "c" is not a count
    for record in found.values():
        assert record.measure.value != 0.0 or record.measure.status is MeasureStatus.REPORTED


def test_progress8_for_2024_25_is_always_missing_without_a_ks2_baseline() -> None:
    found, _ = records()
    for urn in (100544, 100001, 100002):  # cells "z", "0.45" and "c"
        assert found[(urn, "ks4_progress8_disadvantaged_gap")].measure == missing("no_ks2_baseline")


def test_progress8_of_an_older_period_is_kept() -> None:
    found, _ = records()
    older = found[(100003, "ks4_progress8_disadvantaged_gap")]
    assert (older.period, older.measure) == ("2023/24", reported(-0.21))


def test_aggregate_rows_are_skipped_and_bad_urns_rejected() -> None:
    _, log = records()
    assert log.rows_read == 6
    assert log.skipped == 1  # the National row
    assert log.rejects == [(6, "URN must be exactly six digits; got '1234567'.")]


def test_progress8_is_said_even_when_the_column_is_gone(tmp_path: Path) -> None:
    path = tmp_path / "ks4.csv"
    path.write_text('"time_period","school_urn","attainment8_diffn"\n"202526","100001","-3"\n')
    found, _ = records(path)
    assert found[(100001, "ks4_progress8_disadvantaged_gap")].measure == missing("no_ks2_baseline")
    assert (100001, "sen_pupil_percent") not in found  # a column not published: no record


def test_a_file_without_keys_or_measures_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ks4.csv"
    path.write_text('"time_period","school_name"\n"202425","X"\n')
    with pytest.raises(ImportRejected, match=r"missing column.*'school_urn'"):
        parse_ks4_information(path, RejectLog())
    path.write_text('"time_period","school_urn"\n"202425","100001"\n')
    with pytest.raises(ImportRejected, match="none of the KS4 measure columns"):
        parse_ks4_information(path, RejectLog())
