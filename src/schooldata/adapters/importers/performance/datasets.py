"""The DfE tables this product reads, one TableSpec each: the publisher's column names for
every measure code, for each layout DfE has published the table in."""

from __future__ import annotations

from schooldata.adapters.importers.performance.spec import Field, Split, TableSpec
from schooldata.domain.results import DESTINATIONS_COHORT_PERIOD


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
