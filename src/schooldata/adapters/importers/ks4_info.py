"""DfE KS4 "information about schools" (explore-education-statistics CSV) -> MeasureRecord.

Each school row gives several measures, keyed by `school_urn`, for the period in
`time_period` (`202425` -> `2024/25`). Cells go through domain.measure.parse_ees, so the
publisher's symbols (c, z, x, :, low, u) become Measure kinds and never 0.

Progress 8 has no KS2 baseline for the 2024/25 and 2025/26 cohorts (KS2 tests were not sat in
2020 and 2021), so for those periods it is always missing with reason `no_ks2_baseline`,
whatever the cell says (domain.results.apply_publication_rules): an older or placeholder
figure must never pass as current.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from schooldata.adapters.importers.files.columns import Columns
from schooldata.adapters.importers.files.counting import RowCounter
from schooldata.adapters.importers.files.rows import csv_rows
from schooldata.adapters.importers.files.sources import DataPath, Source, single_file
from schooldata.domain.errors import ImportRejected, InvalidUrn
from schooldata.domain.measure import Measure, missing, parse_ees
from schooldata.domain.releases import parse_release_status, release_status_in_name
from schooldata.domain.results import (
    NO_KS2_BASELINE_PERIODS,
    PROGRESS8_CODES,
    MeasureRecord,
    apply_publication_rules,
    period_label,
)
from schooldata.domain.urn import Urn
from schooldata.ports.imports import Progress, RejectLog

DATASET = "ks4_information"
URN, PERIOD, LEVEL, VERSION = "school_urn", "time_period", "geographic_level", "version"
END_COUNT, ALL_COUNT = "endks4_pupil_count", "allks_pupil_count"

# measure code -> (source column, the pupil count the figure rests on)
MEASURES: dict[str, tuple[str, str]] = {
    "ks4_end_pupil_count": (END_COUNT, END_COUNT),
    "ks4_attainment8_disadvantaged_gap": ("attainment8_diffn", END_COUNT),
    "ks4_progress8_disadvantaged_gap": ("progress8_diffn", END_COUNT),
    "ks2_baseline_average_scaled_score": ("ks2_scaledscore_average", END_COUNT),
    # Shares of the whole school roll, not of the year 11 cohort.
    "sen_pupil_percent": ("sen_pupil_percent", ALL_COUNT),
    "sen_with_ehcp_pupil_percent": ("sen_with_ehcp_pupil_percent", ALL_COUNT),
}
REQUIRED = (URN, PERIOD)
COLUMNS_READ = (URN, PERIOD, LEVEL, ALL_COUNT, *(column for column, _ in MEASURES.values()))


def parse_ks4_information(
    source: Source, log: RejectLog, *, progress: Progress | None = None
) -> Iterator[MeasureRecord]:
    """Measure records from one KS4 information-about-schools file; header checked first."""
    path = single_file(source, "A KS4 information-about-schools table")
    columns = Columns.read(path, required=REQUIRED, what="KS4 information about schools")
    if not any(column in columns for column, _ in MEASURES.values()):
        raise ImportRejected(f"{path.name} has none of the KS4 measure columns this reads.")
    return _records(path, columns, log, RowCounter(log, progress))


def _records(
    path: DataPath, columns: Columns, log: RejectLog, counter: RowCounter
) -> Iterator[MeasureRecord]:
    """Each year's release is its rows' `version` (else the file name's); a row that
    contradicts its year's earlier rows is rejected."""
    named = release_status_in_name(path.name)
    records = csv_rows(path)
    next(records)  # the header, already checked
    for line, row in records:
        counter.row()
        if len(row) != columns.width:
            log.reject(line, f"has {len(row)} fields; the header has {columns.width}")
            continue
        cell = _cells(columns, row)
        level = cell(LEVEL)
        if level is not None and level.lower() != "school":
            log.skipped += 1  # national or LA rows: aggregates, not a school's figures
            continue
        try:
            urn = Urn.parse(cell(URN) or "")
        except InvalidUrn as err:
            log.reject(line, err.message)
            continue
        period = period_label(cell(PERIOD) or "")
        if not period:
            log.reject(line, f"URN {urn}: {PERIOD} is blank")
            continue
        release = parse_release_status(cell(VERSION)) or named
        held = log.releases.setdefault(period, release)
        if held is not release:
            log.reject(line, f"URN {urn}: {VERSION} differs from the earlier rows of {period}")
            continue
        for code, (column, cohort_column) in MEASURES.items():
            measure = _measure(code, period, cell(column), column in columns)
            if measure is not None:
                cohort = _count(cell(cohort_column))
                record = MeasureRecord(urn, DATASET, period, code, measure, cohort)
                yield apply_publication_rules(record)
    counter.done()


def _measure(code: str, period: str, raw: str | None, published: bool) -> Measure | None:
    if published:
        return parse_ees(raw)
    if code in PROGRESS8_CODES and period in NO_KS2_BASELINE_PERIODS:
        # Said even when the column is gone: the rule below turns it into `no_ks2_baseline`.
        return missing()
    return None  # a measure this file does not carry: say nothing rather than "missing"


def _cells(columns: Columns, row: list[str]) -> Callable[[str], str | None]:
    def cell(name: str) -> str | None:
        index = columns.index(name)
        return None if index is None else (row[index].strip() or None)

    return cell


def _count(raw: str | None) -> int | None:
    measure = parse_ees(raw)
    if measure.value is None or not measure.value.is_integer():
        return None
    return int(measure.value)
