"""Per-school measures by period, as imported from the DfE performance tables and others."""

from __future__ import annotations

from attrs import frozen

from schooldata.domain.measure import Measure, missing
from schooldata.domain.urn import Urn


def period_label(time_period: str) -> str:
    """EES `202425` -> `2024/25`; anything else is kept as given."""
    text = time_period.strip()
    if len(text) == 6 and text.isdigit():
        return f"{text[:4]}/{text[4:]}"
    return text


@frozen
class MeasureRecord:
    """One measure of one school for one period from one dataset.

    `code` names the measure (`ks4_attainment8_average`); `cohort` is the pupil count the
    figure rests on, when the publisher gives one.
    """

    urn: Urn
    dataset: str
    period: str
    code: str
    measure: Measure
    cohort: int | None = None


# Progress 8 needs a KS2 baseline; the 2024/25 and 2025/26 KS4 cohorts have none (KS2 tests
# were cancelled in 2020 and 2021). Whatever a file says, these periods' P8 is not published.
NO_KS2_BASELINE_PERIODS = frozenset({"2024/25", "2025/26"})
PROGRESS8_CODES = frozenset(
    {
        "ks4_progress8_average",
        "ks4_progress8_lower_95_ci",
        "ks4_progress8_upper_95_ci",
        "ks4_progress8_disadvantaged_gap",
    }
)
NO_KS2_BASELINE = "no_ks2_baseline"
DESTINATIONS_COHORT_PERIOD = "2022/23"
DESTINATIONS_NOTE = (
    "2022/23 institution cohort: students who completed 16-18 study at this institution, "
    "not the school's Year 11 cohort."
)


def apply_publication_rules(record: MeasureRecord) -> MeasureRecord:
    """Rules that hold whatever the source file says (applied at import and at read)."""
    unpublished = record.code in PROGRESS8_CODES and record.period in NO_KS2_BASELINE_PERIODS
    if unpublished and (record.measure.reason != NO_KS2_BASELINE or record.measure.is_reported):
        return MeasureRecord(
            record.urn,
            record.dataset,
            record.period,
            record.code,
            missing(NO_KS2_BASELINE),
            record.cohort,
        )
    return record


def preferred(current: MeasureRecord | None, candidate: MeasureRecord) -> MeasureRecord:
    """Of two records of one measure of one school, the one to serve: the newer period; for
    the same period (one figure published in two files, as the KS4 pupil count is in both the
    information and the results files) a reported figure wins over a suppressed or missing one,
    so one file's `c` never hides the number the other published."""
    if current is None or candidate.period > current.period:
        return candidate
    if (
        candidate.period == current.period
        and candidate.measure.is_reported
        and not current.measure.is_reported
    ):
        return candidate
    return current


@frozen
class YearValue:
    """One period's figure of a series; `record` is the stored record it was read from (None:
    nothing was published for the period, and the figure says why)."""

    period: str
    measure: Measure
    cohort: int | None = None
    record: MeasureRecord | None = None


@frozen
class MeasureSeries:
    """One measure across years: the latest period's value (whatever its status) and the trend.

    `latest` is always the newest period the school's source publishes; a missing newest value
    is shown as missing, never replaced by an older one."""

    code: str
    latest: YearValue
    trend: tuple[YearValue, ...]
    note: str | None = None


def build_series(
    records: list[MeasureRecord], periods: list[str], always: tuple[str, ...] = ()
) -> list[MeasureSeries]:
    """Group a topic's records into series over `periods` (newest last); gaps become missing.

    Codes in `always` get a series even with no record, so a measure that was not published
    (Progress 8 in 2024/25) is shown as null with its reason rather than silently absent."""
    by_code: dict[str, dict[str, MeasureRecord]] = {code: {} for code in always}
    for record in records:
        by_period = by_code.setdefault(record.code, {})
        ruled = apply_publication_rules(record)
        by_period[record.period] = preferred(by_period.get(record.period), ruled)
    series = []
    for code in sorted(by_code):
        points = []
        for period in periods:
            found = by_code[code].get(period)
            if found is None:
                placeholder = apply_publication_rules(
                    MeasureRecord(Urn(0), "", period, code, missing("not_published"))
                )
                points.append(YearValue(period, placeholder.measure))
            else:
                points.append(YearValue(period, found.measure, found.cohort, found))
        note = DESTINATIONS_NOTE if code.startswith("ks5_") and "destination" in code else None
        series.append(MeasureSeries(code, points[-1], tuple(points), note))
    return series
