"""DfE school-level tables (performance tables, admissions, finance) -> MeasureRecord.

One reader for every such table: each dataset is a spec naming, per measure code, the columns
that may carry it (EES names first, the older performance-tables names after), and the column
holding the pupil count the figure rests on. Cells go through domain.measure.parse_ees, so
symbols (c, z, x, :, low, u) become Measure kinds, never 0; publication rules (Progress 8 in
2024/25) are applied to every record.

EES school files are "long": besides the school's own row they carry rows for pupil groups
(`breakdown_topic`/`breakdown`, `sex`, `disadvantage_status`, ...) and for England and each
local authority (`geographic_level`). Only the school's headline row (every breakdown column
`Total`) is the school's figure; the others are skipped, never stored in its place. A school
with two headline rows for one period is an ambiguous file: the second is rejected.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from attrs import frozen

from schooldata.adapters.importers.files import Columns, RowCounter, Source, csv_rows, single_file
from schooldata.domain.errors import ImportRejected, InvalidUrn
from schooldata.domain.measure import parse_ees
from schooldata.domain.results import (
    DESTINATIONS_COHORT_PERIOD,
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
    "sen_status",
    "free_school_meals",
)
HEADLINE_VALUES = frozenset({"total", "all pupils", "all"})


@frozen
class TableSpec:
    dataset: str
    what: str
    measures: dict[str, tuple[str, ...]]  # code -> candidate columns, in order of preference
    cohort: tuple[str, ...] = ()
    fixed_period: str | None = None  # destinations: always the 2022/23 institution cohort

    @property
    def counts_only(self) -> frozenset[str]:
        """Codes read from a cohort column: a file with only these is not this table (the KS4
        information file has `endks4_pupil_count` too, but none of the results)."""
        return frozenset(
            code for code, names in self.measures.items() if set(names) & set(self.cohort)
        )


KS4_RESULTS = TableSpec(
    "ks4_results",
    "KS4 school results",
    {
        "ks4_end_pupil_count": ("pupil_count", "endks4_pupil_count", "t_pupils", "TPUP"),
        "ks4_attainment8_average": ("attainment8_average", "avg_att8", "ATT8SCR"),
        "ks4_progress8_average": ("progress8_average", "avg_p8score", "P8MEA"),
        "ks4_progress8_lower_95_ci": ("progress8_lower_95_ci", "p8score_ci_low", "P8CILOW"),
        "ks4_progress8_upper_95_ci": ("progress8_upper_95_ci", "p8score_ci_upp", "P8CIUPP"),
        "ks4_english_maths_grade5_percent": (
            "engmath_95_percent",
            "english_maths_grade5_percent",
            "pt_l2basics_95",
            "PTL2BASICS_95",
        ),
        "ks4_ebacc_entry_percent": (
            "ebacc_entering_percent",
            "ebacc_entry_percent",
            "pt_ebacc_e_ptq_ee",
            "PTEBACC_E_PTQ_EE",
        ),
    },
    cohort=("pupil_count", "endks4_pupil_count", "t_pupils", "TPUP"),
)
KS2_RESULTS = TableSpec(
    "ks2_results",
    "KS2 school results",
    {
        "ks2_pupil_count": ("ks2_pupil_count", "t_elig", "TELIG"),
        "ks2_rwm_expected_percent": (
            "rwm_expected_percent",
            "pt_rwm_met_expected_standard",
            "PTRWM_EXP",
        ),
        "ks2_rwm_higher_percent": (
            "rwm_higher_percent",
            "pt_rwm_met_higher_standard",
            "PTRWM_HIGH",
        ),
        "ks2_reading_average_scaled_score": (
            "reading_average_scaled_score",
            "read_average",
            "READ_AVERAGE",
        ),
        "ks2_maths_average_scaled_score": (
            "maths_average_scaled_score",
            "mat_average",
            "MAT_AVERAGE",
        ),
    },
    cohort=("ks2_pupil_count", "t_elig", "TELIG"),
)
KS5_RESULTS = TableSpec(
    "ks5_results",
    "16-18 school and college results",
    {
        "ks5_students_count": ("students_count", "tpup1618", "TPUP1618"),
        "ks5_aps_per_entry": ("aps_per_entry", "tallppe_alev_1618", "TALLPPE_ALEV_1618"),
    },
    cohort=("students_count", "tpup1618", "TPUP1618"),
)
KS5_DESTINATIONS = TableSpec(
    "ks5_destinations",
    "16-18 destination measures",
    {
        "ks5_destinations_cohort": ("cohort", "COHORT"),
        "ks5_sustained_destination_percent": ("sustained_destination_percent", "overall_sustained"),
        "ks5_education_destination_percent": ("education_percent", "education"),
        "ks5_apprenticeship_destination_percent": ("apprenticeship_percent", "appren"),
        "ks5_employment_destination_percent": ("employment_percent", "all_work"),
    },
    cohort=("cohort", "COHORT"),
    fixed_period=DESTINATIONS_COHORT_PERIOD,
)
ADMISSIONS = TableSpec(
    "admissions",
    "school admissions (applications and offers)",
    {
        "admissions_places_offered": ("total_places_offered",),
        "admissions_applications": ("applications_received", "times_put_as_any_preferred_school"),
        "admissions_first_preferences": ("first_preferences", "times_put_as_1st_preference"),
        "admissions_first_preference_offers": (
            "first_preference_offers",
            "number_1st_preference_offers",
        ),
        "admissions_offers": ("offers_made", "number_preferred_offers"),
        "admissions_first_preference_offer_rate": (
            "proportion_first_preference_offered",
            "proportion_1stprefs_v_1stprefoffers",
        ),
    },
)
FINANCE = TableSpec(
    "finance",
    "school finance (income, expenditure and balances)",
    {
        "finance_pupils_fte": ("pupils_fte", "number_of_pupils"),
        "finance_total_income": ("total_income",),
        "finance_total_expenditure": ("total_expenditure",),
        "finance_income_per_pupil": ("income_per_pupil",),
        "finance_expenditure_per_pupil": ("expenditure_per_pupil",),
        "finance_staff_costs_percent": ("staff_costs_percent",),
        "finance_in_year_balance": ("in_year_balance",),
        "finance_revenue_reserve": ("revenue_reserve",),
    },
    cohort=("pupils_fte", "number_of_pupils"),
)
TABLES: dict[str, TableSpec] = {
    spec.dataset: spec
    for spec in (KS4_RESULTS, KS2_RESULTS, KS5_RESULTS, KS5_DESTINATIONS, ADMISSIONS, FINANCE)
}


def _first_present(columns: Columns, candidates: tuple[str, ...]) -> int | None:
    for name in candidates:
        index = columns.index(name)
        if index is not None:
            return index
    return None


def parse_table(
    spec: TableSpec, source: Source, log: RejectLog, *, progress: Progress | None = None
) -> Iterator[MeasureRecord]:
    """Measure records from one table; the header is checked before any row is read."""
    path = single_file(source, f"A {spec.what} table")
    columns = Columns.read(path, required=(), what=spec.what)
    urn_at = _first_present(columns, URN_COLUMNS)
    period_at = _first_present(columns, PERIOD_COLUMNS)
    if urn_at is None:
        raise ImportRejected(
            f"{path.name} is not a {spec.what} file: no URN column ({', '.join(URN_COLUMNS)})."
        )
    if period_at is None and spec.fixed_period is None:
        raise ImportRejected(f"{path.name} is not a {spec.what} file: no time_period column.")
    positions = {
        code: at
        for code, names in spec.measures.items()
        if (at := _first_present(columns, names)) is not None
    }
    if not set(positions) - spec.counts_only:
        raise ImportRejected(f"{path.name} has none of the {spec.what} columns this reads.")
    cohort_at = _first_present(columns, spec.cohort) if spec.cohort else None
    layout = _Layout(
        width=columns.width,
        urn_at=urn_at,
        period_at=period_at,
        level_at=columns.index(LEVEL_COLUMN),
        breakdown_at=tuple(
            at for name in BREAKDOWN_COLUMNS if (at := columns.index(name)) is not None
        ),
        positions=positions,
        cohort_at=cohort_at,
    )
    return _records(spec, path, layout, log, RowCounter(log, progress))


@frozen
class _Layout:
    """Where a table's columns are (read from its header once)."""

    width: int
    urn_at: int
    period_at: int | None
    level_at: int | None
    breakdown_at: tuple[int, ...]
    positions: dict[str, int]
    cohort_at: int | None

    def is_school_headline(self, row: list[str]) -> bool:
        """A school's own all-pupils row (not England's, an authority's or a pupil group's)."""
        if self.level_at is not None and row[self.level_at].strip().lower() not in SCHOOL_LEVELS:
            return False
        return all(row[at].strip().lower() in HEADLINE_VALUES for at in self.breakdown_at)


def _records(
    spec: TableSpec, path: Path, layout: _Layout, log: RejectLog, counter: RowCounter
) -> Iterator[MeasureRecord]:
    rows = csv_rows(path)
    next(rows)
    seen: dict[tuple[Urn, str], int] = {}  # (school, period) -> the line of its headline row
    for line, row in rows:
        counter.row()
        if len(row) != layout.width:
            log.reject(line, f"has {len(row)} fields; the header has {layout.width}")
            continue
        if not layout.is_school_headline(row):
            log.skipped += 1
            continue
        try:
            urn = Urn.parse(row[layout.urn_at].strip())
        except InvalidUrn as err:
            log.reject(line, err.message)
            continue
        period_at = layout.period_at
        period = spec.fixed_period or period_label(
            row[period_at].strip() if period_at is not None else ""
        )
        if not period:
            log.reject(line, f"URN {urn}: time_period is blank")
            continue
        first = seen.setdefault((urn, period), line)
        if first != line:
            log.reject(line, f"URN {urn}: a second {period} row (the first is line {first})")
            continue
        cohort = _count(row[layout.cohort_at]) if layout.cohort_at is not None else None
        for code, at in layout.positions.items():
            record = MeasureRecord(urn, spec.dataset, period, code, parse_ees(row[at]), cohort)
            yield apply_publication_rules(record)
    counter.done()


def _count(raw: str) -> int | None:
    value = parse_ees(raw).value
    if value is None or not value.is_integer():
        return None
    return int(value)
