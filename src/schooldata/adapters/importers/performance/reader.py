"""One reader for every DfE school-level table: the header is mapped once against the table's
spec, then only each school's headline rows become MeasureRecords.

Cells go through domain.measure.parse_ees, so symbols (EES `c`, `z`, `x`, `:`, `low`, `u`; the
older tables' `SUPP`, `NE`, `NP`, `NA`, `LOWCOV`, `NEW`) become Measure kinds, never 0;
publication rules (Progress 8 in 2024/25) are applied to every record.

Each year's release (provisional, revised, final) is what its rows' `version` column says,
else what the file's name says (`..._revised.csv`, `england_ks4final.csv`), else unknown; it
goes to the log's `releases`. A school row whose version differs from the one the year's
earlier rows gave is rejected: a year has one release.
"""

from __future__ import annotations

from collections.abc import Iterator

from attrs import frozen

from schooldata.adapters.importers.files.columns import Columns
from schooldata.adapters.importers.files.counting import RowCounter
from schooldata.adapters.importers.files.rows import csv_rows
from schooldata.adapters.importers.files.sources import DataPath, Source, label_of, single_file
from schooldata.adapters.importers.performance.periods import academic_year, period_from_name
from schooldata.adapters.importers.performance.spec import Measures, TableSpec
from schooldata.domain.errors import ImportRejected, InvalidUrn
from schooldata.domain.measure import EES_SYMBOLS, missing, parse_ees
from schooldata.domain.releases import (
    ReleaseStatus,
    parse_release_status,
    release_status_in_name,
)
from schooldata.domain.results import (
    NO_KS2_BASELINE_PERIODS,
    MeasureRecord,
    apply_publication_rules,
    period_label,
)
from schooldata.domain.urn import Urn
from schooldata.ports.imports import Progress, RejectLog

# Three shapes of file are read:
# - EES "long" tables. Besides the school's own row they carry rows for pupil groups
#   (`breakdown_topic`/`breakdown`, `sex`, `disadvantage_status`, ...) and for England and each
#   local authority (`geographic_level`). Only the school's headline row (every breakdown column
#   `Total`) is the school's figure; the others are skipped, never stored in its place.
# - Long tables split by a dimension whose value says which measures the row carries: KS2 by
#   `subject` (reading, maths, ...), 16-18 results by `exam_cohort` (A level, Applied general,
#   ...), admissions by `school_phase` (the primary and the secondary round of an all-through
#   school). Each value is its own set of measures; values this product does not serve are
#   skipped. Some tables also hold rows of a kind that is not the figure (16-18 destinations give
#   each school a "Number of students" and a "Percentage" row): `keep` names the rows read.
# - The older performance-tables downloads (`england_ks4final.csv`, `england_cfr.csv`): one
#   row per school, upper-case names, no `time_period` (the period comes from `--period` or
#   the file's name, e.g. `2018-2019/england_ks4final.csv`), and rows for local authorities and
#   England without a URN (skipped).
#
# A school with two headline rows for one period (and one value of the split) is an ambiguous
# file: the second is rejected.

URN_COLUMNS = ("school_urn", "urn", "URN")
VERSION_COLUMN = "version"
PERIOD_COLUMNS = ("time_period", "TIME_PERIOD")
LEVEL_COLUMN = "geographic_level"
SCHOOL_LEVELS = frozenset({"school", "institution", "provider"})
# EES filter columns: a row is the school's headline figure only when each one present is
# "Total" (the pupil-group rows beside it are subsets of the same cohort).
BREAKDOWN_COLUMNS = (
    "breakdown_topic",
    "breakdown",
    "sex",
    "disadvantage_status",
    "first_language",
    "prior_attainment",
    "mobility",
    "ethnicity_major",
    "ethnicity_minor",
    "sen_status",
    "sen_provision",
    "sen_primary_need",
    "free_school_meals",
    "fsm_status",
    "month_of_birth",
    # 16-18 destinations: the qualification level studied (Total = every level).
    "cohort_level_group",
    "cohort_level",
)
HEADLINE_VALUES = frozenset({"total", "all pupils", "all"})
# What EES writes in a URN cell of a row that names no school.
NO_URN = frozenset({"", "n/a", "na", *EES_SYMBOLS})


def parse_table(
    spec: TableSpec,
    source: Source,
    log: RejectLog,
    *,
    progress: Progress | None = None,
    period: str | None = None,
) -> Iterator[MeasureRecord]:
    """Measure records from one table; the header is checked before any row is read.

    `period` is for the older downloads, which have no `time_period` column; without it their
    period is read from the file's name or folder (`2018-2019`), else the file is refused."""
    path = single_file(source, f"A {spec.what} table")
    columns = Columns.read(path, required=(), what=spec.what)
    layout = _layout(spec, path, columns, period)
    return _records(spec, path, layout, log, RowCounter(log, progress))


@frozen
class _Reading:
    """One measure's cell and the cell of the pupil count it rests on."""

    code: str
    at: int
    cohort_at: int | None


@frozen
class _Layout:
    """Where a table's columns are (read from its header once)."""

    width: int
    urn_at: int
    period_at: int | None
    period: str | None  # the file's one period, when it has no period column
    level_at: int | None
    breakdown_at: tuple[int, ...]
    keep: tuple[tuple[int, frozenset[str]], ...]
    split_at: int | None
    groups: dict[str, tuple[_Reading, ...]]  # split value ("" without a split) -> readings
    shared: tuple[_Reading, ...]
    unpublished: frozenset[str]
    version_at: int | None  # the release each row states
    named_release: ReleaseStatus | None  # the release the file's name states

    def release(self, row: list[str]) -> ReleaseStatus | None:
        if self.version_at is not None:
            stated = parse_release_status(row[self.version_at])
            if stated is not None:
                return stated
        return self.named_release

    def is_school_headline(self, row: list[str]) -> bool:
        """A school's own all-pupils row (not England's, an authority's or a pupil group's)."""
        if self.level_at is not None and row[self.level_at].strip().lower() not in SCHOOL_LEVELS:
            return False
        return all(row[at].strip().lower() in HEADLINE_VALUES for at in self.breakdown_at)

    def is_kept(self, row: list[str]) -> bool:
        return all(row[at].strip().lower() in values for at, values in self.keep)


def _first_present(columns: Columns, candidates: tuple[str, ...]) -> int | None:
    for name in candidates:
        index = columns.index(name)
        if index is not None:
            return index
    return None


def _readings(columns: Columns, measures: Measures) -> tuple[_Reading, ...]:
    found = []
    for code, spec in measures.items():
        at = _first_present(columns, spec.names)
        if at is not None:
            found.append(_Reading(code, at, _first_present(columns, spec.cohort)))
    return tuple(found)


def _layout(spec: TableSpec, path: DataPath, columns: Columns, period: str | None) -> _Layout:
    name = label_of(path)
    urn_at = _first_present(columns, URN_COLUMNS)
    if urn_at is None:
        raise ImportRejected(
            f"{name} is not a {spec.what} file: no URN column ({', '.join(URN_COLUMNS)})."
        )
    period_at = _first_present(columns, PERIOD_COLUMNS)
    file_period = _file_period(spec, path, period_at, period)
    split = spec.split
    split_at = None if split is None else columns.index(split.column)
    if split is not None and split_at is not None:
        groups = {value: _readings(columns, measures) for value, measures in split.groups.items()}
        shared = _readings(columns, split.shared)
        every = {**{c: f for m in split.groups.values() for c, f in m.items()}, **split.shared}
    else:
        if not spec.measures:
            assert split is not None  # a spec has a wide layout, a split, or both
            raise ImportRejected(
                f"{name} is not a {spec.what} file: it has no '{split.column}' column."
            )
        groups, shared, every = {"": _readings(columns, spec.measures)}, (), dict(spec.measures)
    found = {r.code for readings in (*groups.values(), shared) for r in readings}
    if not {code for code in found if not every[code].count}:
        raise ImportRejected(f"{name} has none of the {spec.what} columns this reads.")
    return _Layout(
        width=columns.width,
        urn_at=urn_at,
        period_at=period_at,
        period=file_period,
        level_at=columns.index(LEVEL_COLUMN),
        breakdown_at=tuple(
            at for column in BREAKDOWN_COLUMNS if (at := columns.index(column)) is not None
        ),
        keep=tuple(
            (at, values)
            for column, values in spec.keep.items()
            if (at := columns.index(column)) is not None
        ),
        split_at=split_at,
        groups=groups,
        shared=shared,
        unpublished=spec.unpublished - found,
        version_at=columns.index(VERSION_COLUMN),
        named_release=release_status_in_name(name),
    )


def _file_period(
    spec: TableSpec, path: DataPath, period_at: int | None, given: str | None
) -> str | None:
    name = label_of(path)
    if period_at is not None:
        if given is not None:
            raise ImportRejected(
                f"{name} has a time_period column: its rows name their own periods, so "
                "--period does not apply."
            )
        return None
    if given is not None:
        period = academic_year(given)
        if period is None:
            raise ImportRejected(f"--period {given!r} is not an academic year such as 2023/24.")
        return period
    period = period_from_name(path)
    if period is None:
        raise ImportRejected(
            f"{name} is not a {spec.what} file with periods: it has no time_period column and "
            "its name does not say the year; give it with --period (e.g. --period 2023/24)."
        )
    return period


def _records(
    spec: TableSpec, path: DataPath, layout: _Layout, log: RejectLog, counter: RowCounter
) -> Iterator[MeasureRecord]:
    rows = csv_rows(path)
    next(rows)
    seen: dict[tuple[Urn, str, str], int] = {}  # (school, period, split value) -> first line
    described: set[tuple[Urn, str]] = set()  # (school, period) whose shared measures are read
    for line, row in rows:
        counter.row()
        if len(row) != layout.width:
            log.reject(line, f"has {len(row)} fields; the header has {layout.width}")
            continue
        if not (layout.is_kept(row) and layout.is_school_headline(row)):
            log.skipped += 1
            continue
        raw_urn = row[layout.urn_at].strip()
        if raw_urn.lower() in NO_URN:
            log.skipped += 1  # a local authority's or England's row, or one naming no school
            continue
        try:
            urn = Urn.parse(raw_urn)
        except InvalidUrn as err:
            log.reject(line, err.message)
            continue
        period = layout.period or period_label(
            row[layout.period_at].strip() if layout.period_at is not None else ""
        )
        if not period:
            log.reject(line, f"URN {urn}: time_period is blank")
            continue
        if spec.newest_period is not None and period > spec.newest_period:
            log.skipped += 1
            continue
        if not _one_release(log, period, layout.release(row), line, urn):
            continue
        shown = "" if layout.split_at is None else row[layout.split_at].strip()
        value = shown.lower()
        readings = layout.groups.get(value)
        if readings is None:
            log.skipped += 1  # a qualification type, subject or round this product does not serve
            continue
        first = seen.setdefault((urn, period, value), line)
        if first != line:
            what = f"{period} {shown}" if shown else period
            log.reject(line, f"URN {urn}: a second {what} row (the first is line {first})")
            continue
        if (urn, period) not in described:
            described.add((urn, period))
            readings = (*readings, *layout.shared)
            yield from _unpublished(spec.dataset, urn, period, layout.unpublished)
        for reading in readings:
            cohort = None if reading.cohort_at is None else _count(row[reading.cohort_at])
            measure = parse_ees(row[reading.at])
            record = MeasureRecord(urn, spec.dataset, period, reading.code, measure, cohort)
            yield apply_publication_rules(record)
    counter.done()


def _one_release(
    log: RejectLog, period: str, release: ReleaseStatus | None, line: int, urn: Urn
) -> bool:
    """Note the year's release; False (the row rejected) when it contradicts the year's."""
    held = log.releases.setdefault(period, release)
    if held is release:
        return True
    said = "no version" if release is None else f"version {release.value!r}"
    first = "none" if held is None else repr(held.value)
    log.reject(line, f"URN {urn}: {said} for {period}, whose earlier rows say {first}")
    return False


def _unpublished(
    dataset: str, urn: Urn, period: str, codes: frozenset[str]
) -> Iterator[MeasureRecord]:
    if period in NO_KS2_BASELINE_PERIODS:
        for code in sorted(codes):
            yield apply_publication_rules(MeasureRecord(urn, dataset, period, code, missing()))


def _count(raw: str) -> int | None:
    value = parse_ees(raw).value
    if value is None or not value.is_integer():
        return None
    return int(value)
