"""Measures: a number, or null with the reason there is none. Absence is never zero."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.domain.measure import (
    EES_SYMBOLS,
    Measure,
    MeasureStatus,
    missing,
    not_applicable,
    parse_ees,
    reported,
    suppressed,
)

SYMBOLS = ["c", "z", "x", ":", "low", "u"]
# The older performance-tables downloads (england_ks4final.csv, england_cfr.csv ...).
LEGACY_CODES = ["supp", "ne", "np", "na", "lowcov", "new"]


@pytest.mark.parametrize(
    ("symbol", "status", "reason"),
    [
        ("c", MeasureStatus.SUPPRESSED, "small_cohort"),
        ("z", MeasureStatus.NOT_APPLICABLE, "not_applicable"),
        ("x", MeasureStatus.MISSING, "unavailable"),
        (":", MeasureStatus.MISSING, "not_available"),
        ("low", MeasureStatus.SUPPRESSED, "rounds_to_zero"),
        ("u", MeasureStatus.SUPPRESSED, "low_reliability"),
    ],
)
def test_each_ees_symbol_is_a_non_reported_measure_with_its_reason(
    symbol: str, status: MeasureStatus, reason: str
) -> None:
    measure = parse_ees(symbol)
    assert measure.status is status
    assert measure.value is None
    assert measure.reason == reason
    assert not measure.is_reported


def test_the_symbol_table_covers_exactly_the_documented_symbols() -> None:
    assert set(EES_SYMBOLS) == set(SYMBOLS) | set(LEGACY_CODES)


@pytest.mark.parametrize(
    ("code", "status", "reason"),
    [
        ("SUPP", MeasureStatus.SUPPRESSED, "small_cohort"),
        ("NE", MeasureStatus.NOT_APPLICABLE, "no_entries"),
        ("NP", MeasureStatus.MISSING, "not_published"),
        ("NA", MeasureStatus.NOT_APPLICABLE, "not_applicable"),
        ("LOWCOV", MeasureStatus.SUPPRESSED, "low_coverage"),
        ("NEW", MeasureStatus.NOT_APPLICABLE, "new_institution"),
    ],
)
def test_each_older_performance_tables_code_is_a_non_zero_kind_with_its_reason(
    code: str, status: MeasureStatus, reason: str
) -> None:
    measure = parse_ees(code)
    assert (measure.status, measure.value, measure.reason) == (status, None, reason)


def test_a_pound_sign_and_thousands_separators_are_read_as_the_number() -> None:
    assert parse_ees("£5,123") == reported(5123)
    assert parse_ees("-£1,200") == reported(-1200)


@pytest.mark.parametrize("symbol", ["C", " c ", "LOW", " Low\t", "Z", "X", "U"])
def test_symbols_are_recognised_in_any_case_and_with_surrounding_space(symbol: str) -> None:
    assert parse_ees(symbol).value is None
    assert parse_ees(symbol).reason is not None


@settings(max_examples=50)
@given(
    symbol=st.sampled_from(SYMBOLS),
    upper=st.booleans(),
    pad=st.sampled_from(["", " ", "\t", "  "]),
    percent=st.booleans(),
)
def test_a_symbol_is_never_reported_as_zero(
    symbol: str, upper: bool, pad: str, percent: bool
) -> None:
    text = pad + (symbol.upper() if upper else symbol) + pad
    measure = parse_ees(text, percent=percent)
    assert not measure.is_reported
    assert measure.value is None
    assert measure.reason


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("0", 0.0),
        ("42", 42.0),
        ("-0.35", -0.35),
        ("1,234", 1234.0),
        ("12,345.6", 12345.6),
        ("65%", 65.0),
        (" 7.5 ", 7.5),
    ],
)
def test_numbers_parse_as_reported_values(raw: str, value: float) -> None:
    measure = parse_ees(raw)
    assert measure.is_reported
    assert measure.value == pytest.approx(value)
    assert measure.reason is None


def test_percent_cells_drop_a_trailing_percent_sign() -> None:
    assert parse_ees("65%", percent=True).value == 65.0
    assert parse_ees("65", percent=True).value == 65.0


@pytest.mark.parametrize("raw", [None, "", "   "])
def test_a_blank_cell_is_missing_not_zero(raw: str | None) -> None:
    measure = parse_ees(raw)
    assert measure.status is MeasureStatus.MISSING
    assert measure.value is None
    assert measure.reason == "not_published"


@pytest.mark.parametrize("raw", ["n/a", "abc", "nan", "inf", "-inf", "1e999", "--", "5 pupils"])
def test_unparseable_or_non_finite_cells_are_missing_with_a_reason(raw: str) -> None:
    measure = parse_ees(raw)
    assert measure.status is MeasureStatus.MISSING
    assert measure.value is None
    assert measure.reason == "unparseable"


@settings(max_examples=50)
@given(st.text(max_size=10))
def test_parse_ees_returns_a_value_exactly_when_it_reports_a_finite_number(raw: str) -> None:
    measure = parse_ees(raw)
    assert (measure.value is not None) == measure.is_reported
    if measure.value is not None:
        assert math.isfinite(measure.value)
    else:
        assert measure.reason


@settings(max_examples=50)
@given(st.floats(allow_nan=False, allow_infinity=False, width=32))
def test_any_finite_number_written_out_parses_back(value: float) -> None:
    measure = parse_ees(repr(value))
    assert measure.is_reported
    assert measure.value == pytest.approx(value)


def test_a_reported_measure_needs_a_value() -> None:
    with pytest.raises(ValueError, match="value"):
        Measure(MeasureStatus.REPORTED, None)


@pytest.mark.parametrize(
    "status", [MeasureStatus.SUPPRESSED, MeasureStatus.MISSING, MeasureStatus.NOT_APPLICABLE]
)
def test_a_non_reported_measure_cannot_carry_a_value(status: MeasureStatus) -> None:
    with pytest.raises(ValueError, match="value"):
        Measure(status, 0.0, "small_cohort")


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_a_reported_measure_must_be_finite(value: float) -> None:
    with pytest.raises(ValueError, match="finite"):
        reported(value)


def test_constructors_build_the_matching_kinds() -> None:
    assert reported(3).value == 3.0
    assert reported(3, "low_reliability").reason == "low_reliability"
    assert suppressed("small_cohort") == Measure(MeasureStatus.SUPPRESSED, None, "small_cohort")
    assert not_applicable().reason == "not_applicable"
    assert missing().reason == "not_published"
