"""Kinds of establishment: GIAS phases, types, statuses and reasons, and how often each
profile of school occurs."""

from __future__ import annotations

from dataclasses import dataclass

PHASES = {
    0: "Not applicable",
    1: "Nursery",
    2: "Primary",
    3: "Middle deemed primary",
    4: "Secondary",
    5: "Middle deemed secondary",
    6: "16 plus",
    7: "All-through",
}
# fmt: on

# fmt: off
GROUP_NAMES = {
    1: "Colleges", 3: "Independent schools", 4: "Local authority maintained schools",
    5: "Special schools", 10: "Academies", 11: "Free Schools",
}
# fmt: on


@dataclass(frozen=True)
class EstablishmentType:
    """A GIAS TypeOfEstablishment with the labels other publishers use for it."""

    code: int
    name: str
    group: int  # EstablishmentTypeGroup (code)
    ks4_group: str  # establishment_type_group in DfE performance tables
    ofsted: str  # "Type of education" in Ofsted MI ("" = not inspected under the schools MI)
    kind: str  # maintained | academy | free | independent | special_indep | fe
    special: bool = False
    alternative: bool = False  # pupil referral unit / alternative provision


# fmt: off
TYPES = {t.name: t for t in (
    EstablishmentType(1, "Community school", 4, "Community school", "Community", "maintained"),
    EstablishmentType(2, "Voluntary aided school", 4, "Voluntary aided school", "Voluntary Aided",
                      "maintained"),
    EstablishmentType(3, "Voluntary controlled school", 4, "Voluntary controlled school",
                      "Voluntary Controlled", "maintained"),
    EstablishmentType(5, "Foundation school", 4, "Foundation school", "Foundation", "maintained"),
    EstablishmentType(7, "Community special school", 5, "Community special school",
                      "Community Special", "maintained", special=True),
    EstablishmentType(8, "Non-maintained special school", 5, "Non-maintained special schools",
                      "Non-Maintained Special", "special_indep", special=True),
    EstablishmentType(10, "Other independent special school", 5, "Independent special schools",
                      "", "independent", special=True),
    EstablishmentType(11, "Other independent school", 3, "Independent schools", "",
                      "independent"),
    EstablishmentType(12, "Foundation special school", 5, "Foundation special school",
                      "Foundation Special", "maintained", special=True),
    EstablishmentType(14, "Pupil referral unit", 4, "Pupil referral unit", "Pupil Referral Unit",
                      "maintained", alternative=True),
    EstablishmentType(15, "Local authority nursery school", 4, "Local authority nursery school",
                      "LA Nursery School", "maintained"),
    EstablishmentType(18, "Further education", 1, "Further education", "", "fe"),
    EstablishmentType(28, "Academy sponsor led", 10, "Sponsored academies", "Academy Sponsor Led",
                      "academy"),
    EstablishmentType(33, "Academy special sponsor led", 10,
                      "Sponsored academies - special school", "Academy Special Sponsor Led",
                      "academy", special=True),
    EstablishmentType(34, "Academy converter", 10, "Converter academies", "Academy Converter",
                      "academy"),
    EstablishmentType(35, "Free schools", 11, "Free schools", "Free School", "free"),
    EstablishmentType(36, "Free schools special", 11, "Free schools - special school",
                      "Free School Special", "free", special=True),
    EstablishmentType(38, "Free schools alternative provision", 11,
                      "Free schools - alternative provision", "Free School Alternative Provision",
                      "free", alternative=True),
    EstablishmentType(39, "Free schools 16 to 19", 11, "Free schools 16 to 19",
                      "Free School 16-19", "free"),
    EstablishmentType(40, "University technical college", 11,
                      "University technical colleges (UTCs)", "University Technical College",
                      "free"),
    EstablishmentType(41, "Studio schools", 11, "Studio schools", "Studio School", "free"),
    EstablishmentType(42, "Academy alternative provision converter", 10,
                      "Converter academies - alternative provision",
                      "Academy Alternative Provision Converter", "academy", alternative=True),
    EstablishmentType(44, "Academy special converter", 10, "Converter academies - special school",
                      "Academy Special Converter", "academy", special=True),
    EstablishmentType(45, "Academy 16-19 converter", 10, "Academy 16-19 converter",
                      "Academy 16-19 Converter", "academy"),
    )
}
# fmt: on

STATUS_OPEN = (1, "Open")
STATUS_CLOSED = (2, "Closed")
STATUS_PROPOSED_TO_CLOSE = (3, "Open, but proposed to close")
STATUS_PROPOSED_TO_OPEN = (4, "Proposed to open")

# ReasonEstablishmentOpened/Closed: "00" Not applicable, "10" Academy Converter,
# "02" Closure and "06" For Academy are seen in real GIAS rows; the rest are illustrative.
# fmt: off
REASON_OPENED = {
    "na": ("00", "Not applicable"), "converter": ("10", "Academy Converter"),
    "sponsor": ("11", "Academy Sponsor Led"), "free": ("12", "Academy Free School"),
    "new": ("03", "New Provision"),
}
# fmt: on
# fmt: off
REASON_CLOSED = {
    "na": ("00", "Not applicable"), "closure": ("02", "Closure"),
    "academy": ("06", "For Academy"),
}
# fmt: on


# Profile -> weight, (phase, low, high) options, type table.
# fmt: off
PROFILE_WEIGHTS: list[tuple[str, float]] = [
    ("primary", 59.0), ("infant", 4.5), ("junior", 4.0), ("middle_primary", 0.8),
    ("middle_secondary", 0.7), ("secondary", 12.0), ("grammar", 0.0), ("all_through", 1.8),
    ("nursery", 1.5), ("sixteen_plus", 2.2), ("special", 5.5), ("pru", 1.6), ("independent", 5.2),
    ("independent_special", 1.2),
]
# fmt: on
# fmt: off
PRIMARY_TYPES = [
    ("Community school", 30.0), ("Voluntary aided school", 10.0),
    ("Voluntary controlled school", 8.0), ("Foundation school", 3.0), ("Academy converter", 31.0),
    ("Academy sponsor led", 13.0), ("Free schools", 3.0),
]
# fmt: on
# fmt: off
SECONDARY_TYPES = [
    ("Academy converter", 45.0), ("Academy sponsor led", 22.0), ("Free schools", 8.0),
    ("Community school", 9.0), ("Voluntary aided school", 8.0), ("Foundation school", 5.0),
    ("University technical college", 1.5), ("Studio schools", 1.0),
]
# fmt: on
# fmt: off
SPECIAL_TYPES = [
    ("Community special school", 45.0), ("Foundation special school", 6.0),
    ("Academy special converter", 26.0), ("Academy special sponsor led", 8.0),
    ("Free schools special", 12.0), ("Non-maintained special school", 3.0),
]
# fmt: on
# fmt: off
PRU_TYPES = [
    ("Pupil referral unit", 55.0), ("Academy alternative provision converter", 30.0),
    ("Free schools alternative provision", 15.0),
]
# fmt: on
# fmt: off
SIXTEEN_TYPES = [
    ("Further education", 50.0), ("Academy 16-19 converter", 25.0),
    ("Free schools 16 to 19", 25.0),
]
# fmt: on
