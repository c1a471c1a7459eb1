"""The measures the service publishes: what each code means, where it comes from, how it compares.

Importers write MeasureRecords with these codes; results, admissions, finance, compare and
rankings read them. `rankable` marks measures with a meaningful national ordering.
"""

from __future__ import annotations

import enum

from attrs import frozen


class Topic(enum.Enum):
    KS2 = "ks2"
    KS4 = "ks4"
    KS5 = "16_18"
    DESTINATIONS = "16_18_destinations"
    ADMISSIONS = "admissions"
    FINANCE = "finance"
    CONTEXT = "context"


@frozen
class MeasureSpec:
    code: str
    label: str
    topic: Topic
    unit: str
    higher_is_better: bool | None = None
    rankable: bool = False


def _admissions(phase: str) -> tuple[MeasureSpec, ...]:
    """One application round's measures (DfE's school-level applications and offers: an
    all-through school has a primary and a secondary round, each its own figures)."""
    heading = {"primary": "Primary round", "secondary": "Secondary round"}[phase]

    def spec(measure: str, label: str, unit: str) -> MeasureSpec:
        return MeasureSpec(
            f"admissions_{phase}_{measure}", f"{heading}: {label}", Topic.ADMISSIONS, unit
        )

    return (
        spec("places_offered", "places offered", "places"),
        spec("applications", "times named as a preference", "applications"),
        spec("first_preferences", "first preferences", "applications"),
        spec("offers", "offers to applicants who named the school", "offers"),
        spec("first_preference_offers", "offers to first-preference applicants", "offers"),
        # DfE's proportion_1stprefs_v_1stprefoffers: first preferences divided by the offers
        # made to them (42 / 30 = 1.4). A demand ratio, not a share: 1 or less means every
        # first preference could be met.
        spec(
            "first_preferences_per_first_preference_offer",
            "first preferences per first-preference offer",
            "ratio",
        ),
        # proportion_1stprefs_v_totaloffers: first preferences per place offered.
        spec("first_preferences_per_place", "first preferences per place offered", "ratio"),
    )


_SPECS: tuple[MeasureSpec, ...] = (
    MeasureSpec("ks2_pupil_count", "KS2 pupils", Topic.KS2, "pupils"),
    MeasureSpec(
        "ks2_rwm_expected_percent",
        "Reading, writing and maths: % at expected standard",
        Topic.KS2,
        "percent",
        True,
        True,
    ),
    MeasureSpec(
        "ks2_rwm_higher_percent",
        "Reading, writing and maths: % at higher standard",
        Topic.KS2,
        "percent",
        True,
        True,
    ),
    MeasureSpec(
        "ks2_reading_average_scaled_score",
        "Reading average scaled score",
        Topic.KS2,
        "scaled score",
        True,
        True,
    ),
    MeasureSpec(
        "ks2_maths_average_scaled_score",
        "Maths average scaled score",
        Topic.KS2,
        "scaled score",
        True,
        True,
    ),
    MeasureSpec(
        "ks2_reading_expected_percent", "Reading: % at expected standard", Topic.KS2, "percent"
    ),
    MeasureSpec(
        "ks2_writing_expected_percent",
        "Writing (teacher assessment): % at expected standard",
        Topic.KS2,
        "percent",
    ),
    MeasureSpec(
        "ks2_maths_expected_percent", "Maths: % at expected standard", Topic.KS2, "percent"
    ),
    MeasureSpec(
        "ks2_gps_expected_percent",
        "Grammar, punctuation and spelling: % at expected standard",
        Topic.KS2,
        "percent",
    ),
    MeasureSpec(
        "ks2_gps_average_scaled_score",
        "Grammar, punctuation and spelling average scaled score",
        Topic.KS2,
        "scaled score",
    ),
    MeasureSpec("ks4_end_pupil_count", "Pupils at the end of KS4", Topic.KS4, "pupils"),
    MeasureSpec("ks4_attainment8_average", "Attainment 8 average", Topic.KS4, "points", True, True),
    MeasureSpec("ks4_progress8_average", "Progress 8 average", Topic.KS4, "score", True, True),
    MeasureSpec(
        "ks4_progress8_lower_95_ci", "Progress 8 lower 95% confidence limit", Topic.KS4, "score"
    ),
    MeasureSpec(
        "ks4_progress8_upper_95_ci", "Progress 8 upper 95% confidence limit", Topic.KS4, "score"
    ),
    MeasureSpec(
        "ks4_english_maths_grade5_percent",
        "English and maths grade 5 or above",
        Topic.KS4,
        "percent",
        True,
        True,
    ),
    MeasureSpec("ks4_ebacc_entry_percent", "EBacc entry", Topic.KS4, "percent", True, True),
    MeasureSpec(
        "ks4_attainment8_disadvantaged_gap",
        "Attainment 8: disadvantaged pupils' difference from national",
        Topic.KS4,
        "points",
    ),
    MeasureSpec(
        "ks4_progress8_disadvantaged_gap",
        "Progress 8: disadvantaged pupils' difference from national",
        Topic.KS4,
        "score",
    ),
    MeasureSpec(
        "ks2_baseline_average_scaled_score",
        "KS2 baseline of the KS4 cohort",
        Topic.KS4,
        "scaled score",
    ),
    MeasureSpec("sen_pupil_percent", "Pupils with SEN support", Topic.CONTEXT, "percent"),
    MeasureSpec("sen_with_ehcp_pupil_percent", "Pupils with an EHC plan", Topic.CONTEXT, "percent"),
    MeasureSpec("ks5_students_count", "16-18 students", Topic.KS5, "students"),
    MeasureSpec(
        "ks5_aps_per_entry",
        "Average point score per entry (A level)",
        Topic.KS5,
        "points",
        True,
        True,
    ),
    MeasureSpec(
        "ks5_aps_per_entry_academic",
        "Average point score per entry (academic qualifications)",
        Topic.KS5,
        "points",
    ),
    MeasureSpec(
        "ks5_aps_per_entry_applied_general",
        "Average point score per entry (applied general qualifications)",
        Topic.KS5,
        "points",
    ),
    MeasureSpec(
        "ks5_aps_per_entry_tech_level",
        "Average point score per entry (tech levels)",
        Topic.KS5,
        "points",
    ),
    MeasureSpec(
        "ks5_aps_per_entry_technical_certificate",
        "Average point score per entry (technical certificates, level 2)",
        Topic.KS5,
        "points",
    ),
    MeasureSpec(
        "ks5_destinations_cohort",
        "Students in the destinations cohort",
        Topic.DESTINATIONS,
        "students",
    ),
    MeasureSpec(
        "ks5_sustained_destination_percent",
        "Sustained education, apprenticeship or employment",
        Topic.DESTINATIONS,
        "percent",
        True,
        True,
    ),
    MeasureSpec(
        "ks5_education_destination_percent", "Sustained education", Topic.DESTINATIONS, "percent"
    ),
    MeasureSpec(
        "ks5_higher_education_destination_percent",
        "Sustained higher education",
        Topic.DESTINATIONS,
        "percent",
    ),
    MeasureSpec(
        "ks5_further_education_destination_percent",
        "Sustained further education",
        Topic.DESTINATIONS,
        "percent",
    ),
    MeasureSpec(
        "ks5_apprenticeship_destination_percent",
        "Sustained apprenticeship",
        Topic.DESTINATIONS,
        "percent",
    ),
    MeasureSpec(
        "ks5_employment_destination_percent", "Sustained employment", Topic.DESTINATIONS, "percent"
    ),
    MeasureSpec(
        "ks5_not_sustained_destination_percent",
        "Destination not sustained",
        Topic.DESTINATIONS,
        "percent",
    ),
    MeasureSpec(
        "ks5_destination_unknown_percent", "Activity not captured", Topic.DESTINATIONS, "percent"
    ),
    *(spec for phase in ("primary", "secondary") for spec in _admissions(phase)),
    MeasureSpec("finance_pupils_fte", "Pupils (FTE)", Topic.FINANCE, "pupils"),
    MeasureSpec("finance_total_income", "Total income", Topic.FINANCE, "GBP"),
    MeasureSpec("finance_total_expenditure", "Total expenditure", Topic.FINANCE, "GBP"),
    MeasureSpec("finance_income_per_pupil", "Income per pupil", Topic.FINANCE, "GBP"),
    MeasureSpec("finance_expenditure_per_pupil", "Expenditure per pupil", Topic.FINANCE, "GBP"),
    MeasureSpec(
        "finance_staff_costs_percent",
        "Staff costs as a share of expenditure",
        Topic.FINANCE,
        "percent",
    ),
    MeasureSpec(
        "finance_teaching_staff_percent",
        "Teaching staff as a share of expenditure",
        Topic.FINANCE,
        "percent",
    ),
    MeasureSpec("finance_in_year_balance", "In-year balance", Topic.FINANCE, "GBP"),
    MeasureSpec("finance_revenue_reserve", "Revenue reserve", Topic.FINANCE, "GBP"),
)

MEASURES: dict[str, MeasureSpec] = {spec.code: spec for spec in _SPECS}

RESULT_TOPICS = (Topic.KS2, Topic.KS4, Topic.KS5, Topic.DESTINATIONS)


def spec_of(code: str) -> MeasureSpec:
    return MEASURES.get(code, MeasureSpec(code, code.replace("_", " "), Topic.CONTEXT, "value"))


def codes_of(topic: Topic) -> tuple[str, ...]:
    return tuple(spec.code for spec in _SPECS if spec.topic is topic)
