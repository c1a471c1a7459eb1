"""DfE school-level tables (performance tables, admissions, finance) -> MeasureRecord.

One reader for every such table: each dataset is a spec naming, per measure code, the columns
that may carry it (EES names first, the older performance-tables names after) and the column
holding the pupil count the figure rests on. Cells go through domain.measure.parse_ees, so
symbols (EES `c`, `z`, `x`, `:`, `low`, `u`; the older tables' `SUPP`, `NE`, `NP`, `NA`,
`LOWCOV`, `NEW`) become Measure kinds, never 0; publication rules (Progress 8 in 2024/25) are
applied to every record.

Three shapes of file are read:
- EES "long" tables. Besides the school's own row they carry rows for pupil groups
  (`breakdown_topic`/`breakdown`, `sex`, `disadvantage_status`, ...) and for England and each
  local authority (`geographic_level`). Only the school's headline row (every breakdown column
  `Total`) is the school's figure; the others are skipped, never stored in its place.
- Long tables split by a dimension whose value says which measures the row carries: KS2 by
  `subject` (reading, maths, ...), 16-18 results by `exam_cohort` (A level, Applied general,
  ...), admissions by `school_phase` (the primary and the secondary round of an all-through
  school). Each value is its own set of measures; values this product does not serve are
  skipped. Some tables also hold rows of a kind that is not the figure (16-18 destinations give
  each school a "Number of students" and a "Percentage" row): `keep` names the rows read.
- The older performance-tables downloads (`england_ks4final.csv`, `england_cfr.csv`): one
  row per school, upper-case names, no `time_period` (the period comes from `--period` or
  the file's name, e.g. `2018-2019/england_ks4final.csv`), and rows for local authorities and
  England without a URN (skipped).

A school with two headline rows for one period (and one value of the split) is an ambiguous
file: the second is rejected.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from attrs import field, frozen

from schooldata.adapters.importers.files import (
    Columns,
    DataPath,
    RowCounter,
    Source,
    ZipMember,
    csv_rows,
    label_of,
    single_file,
)
from schooldata.domain.errors import ImportRejected, InvalidUrn
from schooldata.domain.measure import EES_SYMBOLS, missing, parse_ees
from schooldata.domain.results import (
    DESTINATIONS_COHORT_PERIOD,
    NO_KS2_BASELINE_PERIODS,
    MeasureRecord,
    apply_publication_rules,
    period_label,
)
from schooldata.domain.urn import Urn
from schooldata.ports.imports import Progress, RejectLog

URN_COLUMNS = ("school_urn", "urn", "URN")
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
# `2023/24`, `202324`, `2023-24`, `2023-2024`: an academic or financial year.
_YEAR = re.compile(r"(?<![0-9])(20[0-9]{2})[-_/]?(20[0-9]{2}|[0-9]{2})(?![0-9])")


@frozen
class Field:
    """Where one measure is read: candidate columns in order of preference, and the columns
    holding the pupil count it rests on. `count` marks a measure that is itself a count (a
    file with only counts is not the table)."""

    names: tuple[str, ...]
    cohort: tuple[str, ...] = ()
    count: bool = False


Measures = Mapping[str, Field]


@frozen
class Split:
    """A long table's dimension: each value of `column` (compared lower-cased) carries its own
    measures; rows with other values are skipped. `shared` measures describe the whole school
    (the same on each of its rows) and are read once per school and period."""

    column: str
    groups: Mapping[str, Measures]
    shared: Measures = field(factory=dict)


@frozen
class TableSpec:
    dataset: str
    what: str
    measures: Measures  # a file without the split column (EES wide, or the older tables)
    split: Split | None = None
    # Rows are read only where each of these columns, when the file has it, holds one of the
    # values (lower-cased); others are skipped.
    keep: Mapping[str, frozenset[str]] = field(factory=dict)
    # Rows of later periods are skipped: the product serves this period as the newest.
    newest_period: str | None = None
    # Codes said unpublished (then ruled by apply_publication_rules) for a period whose file
    # no longer has their column: Progress 8 has no 2024/25 column, and no value either.
    unpublished: frozenset[str] = frozenset()


def _fields(cohort: tuple[str, ...], **codes: tuple[str, ...]) -> dict[str, Field]:
    return {code: Field(names, cohort) for code, names in codes.items()}


KS4_COHORT = ("pupil_count", "endks4_pupil_count", "t_pupils", "TPUP")
KS4_RESULTS = TableSpec(
    "ks4_results",
    "KS4 school results",
    {
        "ks4_end_pupil_count": Field(KS4_COHORT, KS4_COHORT, count=True),
        **_fields(
            KS4_COHORT,
            ks4_attainment8_average=("attainment8_average", "avg_att8", "ATT8SCR"),
            ks4_progress8_average=("progress8_average", "avg_p8score", "P8MEA"),
            ks4_progress8_lower_95_ci=("progress8_lower_95_ci", "p8score_ci_low", "P8CILOW"),
            ks4_progress8_upper_95_ci=("progress8_upper_95_ci", "p8score_ci_upp", "P8CIUPP"),
            ks4_english_maths_grade5_percent=(
                "engmath_95_percent",
                "english_maths_grade5_percent",
                "pt_l2basics_95",
                "PTL2BASICS_95",
            ),
            ks4_ebacc_entry_percent=(
                "ebacc_entering_percent",
                "ebacc_entry_percent",
                "pt_ebacc_e_ptq_ee",
                "PTEBACC_E_PTQ_EE",
            ),
        ),
    },
    unpublished=frozenset(
        {"ks4_progress8_average", "ks4_progress8_lower_95_ci", "ks4_progress8_upper_95_ci"}
    ),
)

# KS2: EES publishes one row per school, subject and pupil group (`ks2_school_attainment_data`);
# the older download (`england_ks2final.csv`) one wide row per school.
KS2_COUNT = ("eligible_pupil_count", "pupil_count")
KS2_RESULTS = TableSpec(
    "ks2_results",
    "KS2 school results",
    {
        "ks2_pupil_count": Field(("TELIG",), ("TELIG",), count=True),
        **_fields(
            ("TELIG",),
            ks2_rwm_expected_percent=("PTRWM_EXP",),
            ks2_rwm_higher_percent=("PTRWM_HIGH",),
            ks2_reading_average_scaled_score=("READ_AVERAGE",),
            ks2_maths_average_scaled_score=("MAT_AVERAGE",),
        ),
    },
    split=Split(
        "subject",
        {
            "reading, writing and maths": {
                "ks2_pupil_count": Field(KS2_COUNT, KS2_COUNT, count=True),
                **_fields(
                    KS2_COUNT,
                    ks2_rwm_expected_percent=("expected_standard_pupil_percent",),
                    ks2_rwm_higher_percent=("higher_standard_pupil_percent",),
                ),
            },
            "reading": _fields(
                KS2_COUNT,
                ks2_reading_expected_percent=("expected_standard_pupil_percent",),
                ks2_reading_average_scaled_score=("average_scaled_score",),
            ),
            "maths": _fields(
                KS2_COUNT,
                ks2_maths_expected_percent=("expected_standard_pupil_percent",),
                ks2_maths_average_scaled_score=("average_scaled_score",),
            ),
            "writing": _fields(
                KS2_COUNT, ks2_writing_expected_percent=("expected_standard_pupil_percent",)
            ),
            "grammar, punctuation and spelling": _fields(
                KS2_COUNT,
                ks2_gps_expected_percent=("expected_standard_pupil_percent",),
                ks2_gps_average_scaled_score=("average_scaled_score",),
            ),
        },
    ),
)

# 16-18: EES publishes a row per school, `exam_cohort` and `disadvantage_status`, each with the
# students its figure rests on (`aps_per_entry_student_count`). The A level average point score
# is the headline; the other qualification types are their own measures, never its stand-in.
KS5_STUDENTS = ("end1618_student_count", "TPUP1618", "tpup1618")
KS5_ENTRANTS = ("aps_per_entry_student_count",)
KS5_RESULTS = TableSpec(
    "ks5_results",
    "16-18 school and college results",
    {
        "ks5_students_count": Field(KS5_STUDENTS, KS5_STUDENTS, count=True),
        "ks5_aps_per_entry": Field(("TALLPPE_ALEV_1618",), ("TALLPUP_ALEV_1618",)),
        "ks5_aps_per_entry_academic": Field(("TALLPPE_ACAD_1618",), ("TALLPUP_ACAD_1618",)),
        "ks5_aps_per_entry_applied_general": Field(("TALLPPE_AGEN",), ("TALLPUP_AGEN",)),
        "ks5_aps_per_entry_tech_level": Field(("TALLPPE_TLEV",), ("TALLPUP_TLEV",)),
    },
    split=Split(
        "exam_cohort",
        {
            "a level": _fields(KS5_ENTRANTS, ks5_aps_per_entry=("aps_per_entry",)),
            "academic": _fields(KS5_ENTRANTS, ks5_aps_per_entry_academic=("aps_per_entry",)),
            "applied general": _fields(
                KS5_ENTRANTS, ks5_aps_per_entry_applied_general=("aps_per_entry",)
            ),
            "tech level": _fields(KS5_ENTRANTS, ks5_aps_per_entry_tech_level=("aps_per_entry",)),
            "technical certificate": _fields(
                KS5_ENTRANTS, ks5_aps_per_entry_technical_certificate=("aps_per_entry",)
            ),
        },
        shared={"ks5_students_count": Field(KS5_STUDENTS, KS5_STUDENTS, count=True)},
    ),
)

# 16-18 destinations (institution level): a "Number of students" and a "Percentage" row per
# school, qualification level and pupil group; the headline is the Percentage row of the whole
# cohort (every level, every pupil). `overall` is the sustained-destination share.
DESTINATIONS_COHORT = ("cohort",)
KS5_DESTINATIONS = TableSpec(
    "ks5_destinations",
    "16-18 destination measures",
    {
        "ks5_destinations_cohort": Field(DESTINATIONS_COHORT, DESTINATIONS_COHORT, count=True),
        **_fields(
            DESTINATIONS_COHORT,
            ks5_sustained_destination_percent=("overall",),
            ks5_education_destination_percent=("education",),
            ks5_higher_education_destination_percent=("he",),
            ks5_further_education_destination_percent=("fe",),
            ks5_apprenticeship_destination_percent=("appren",),
            ks5_employment_destination_percent=("all_work",),
            ks5_not_sustained_destination_percent=("all_notsust",),
            ks5_destination_unknown_percent=("all_unknown",),
        ),
    },
    keep={"data_type": frozenset({"percentage"})},
    newest_period=DESTINATIONS_COHORT_PERIOD,
)


def _admissions(phase: str) -> dict[str, Field]:
    return {
        f"admissions_{phase}_{measure}": Field(names)
        for measure, names in (
            ("places_offered", ("total_number_places_offered",)),
            ("applications", ("times_put_as_any_preferred_school",)),
            ("first_preferences", ("times_put_as_1st_preference",)),
            ("offers", ("number_preferred_offers",)),
            ("first_preference_offers", ("number_1st_preference_offers",)),
            (
                "first_preferences_per_first_preference_offer",
                ("proportion_1stprefs_v_1stprefoffers",),
            ),
            ("first_preferences_per_place", ("proportion_1stprefs_v_totaloffers",)),
        )
    }


# DfE school-level applications and offers (`AppsandOffers_YYYY_SchoolLevel.csv`): one row per
# school and application round (`school_phase`), so an all-through school has two.
ADMISSIONS = TableSpec(
    "admissions",
    "school admissions (applications and offers)",
    {},
    split=Split(
        "school_phase", {"primary": _admissions("primary"), "secondary": _admissions("secondary")}
    ),
)

# Finance: the performance-tables spend-per-pupil download (`england_cfr.csv`, maintained
# schools' CFR returns: per-pupil figures and shares), and time_period tables in EES style.
FINANCE_PUPILS = ("pupils_fte", "PUPILS")
FINANCE = TableSpec(
    "finance",
    "school finance (income, expenditure and balances)",
    {
        "finance_pupils_fte": Field(FINANCE_PUPILS, FINANCE_PUPILS, count=True),
        **_fields(
            FINANCE_PUPILS,
            finance_total_income=("total_income",),
            finance_total_expenditure=("total_expenditure",),
            finance_income_per_pupil=("income_per_pupil", "TOTALINCOME"),
            finance_expenditure_per_pupil=("expenditure_per_pupil", "TOTALEXPENDITURE"),
            finance_staff_costs_percent=("staff_costs_percent",),
            finance_teaching_staff_percent=("PTEACHINGSTAFF",),
            finance_in_year_balance=("in_year_balance",),
            finance_revenue_reserve=("revenue_reserve",),
        ),
    },
)
TABLES: dict[str, TableSpec] = {
    spec.dataset: spec
    for spec in (KS4_RESULTS, KS2_RESULTS, KS5_RESULTS, KS5_DESTINATIONS, ADMISSIONS, FINANCE)
}


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


def academic_year(text: str) -> str | None:
    """`2023/24` from `2023/24`, `202324`, `2023-24` or `2023-2024`; None if it is none."""
    match = _YEAR.search(text)
    if match is None:
        return None
    first, second = int(match.group(1)), match.group(2)
    last = int(second) if len(second) == 4 else 2000 + int(second)
    if last != first + 1:
        return None
    return f"{first}/{last % 100:02d}"


def period_from_name(path: DataPath) -> str | None:
    """The year an older performance-tables download names: its file name, else its folder
    (the download is `Performancetables_NNNNNN/2018-2019/england_ks4final.csv`)."""
    names = [path.name, *reversed(path.parts[-3:-1])]
    if isinstance(path, ZipMember):
        names.append(path.archive.name)
    for name in names:
        found = academic_year(name)
        if found is not None:
            return found
    return None


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
