"""What the DfE performance tables share: which schools have results, a school's persistent
quality (so Ofsted, admissions and results agree), and the leading columns of an EES row."""

from __future__ import annotations

import datetime as dt
import random

from tools.demo.columns import LEVEL, PERIOD, URN
from tools.demo.config import SEED
from tools.demo.school import School

YEAR_STARTS = {
    "202223": dt.date(2022, 9, 1),
    "202324": dt.date(2023, 9, 1),
    "202425": dt.date(2024, 9, 1),
    "202526": dt.date(2025, 9, 1),
}


def has_ks4(s: School) -> bool:
    """Schools that enter pupils at the end of KS4 (age 16)."""
    if not s.is_open or s.etype.kind == "fe" or s.phase == 6:
        return False
    if s.phase in (4, 5, 7):
        return True
    return s.phase == 0 and s.low_age <= 14 and s.high_age >= 16


def has_ks2(s: School) -> bool:
    return s.is_open and s.phase in (2, 3) and s.high_age >= 11 and s.etype.kind != "independent"


def ees_symbol(rng: random.Random, rare: float = 0.004) -> str | None:
    """Now and then a value is unavailable (x) or not available (:)."""
    roll = rng.random()
    if roll < rare:
        return "x"
    if roll < 2 * rare:
        return ":"
    return None


def end_ks4_cohort(s: School) -> int:
    """Pupils at the end of KS4 in 2024/25; its own stream so every file agrees."""
    rng = random.Random(f"{SEED}/ks4_cohort/{s.urn}")
    if s.phase == 5:
        return 0
    if s.etype.special or s.etype.alternative:
        return rng.randint(1, 25)
    pupils = s.pupils or rng.randint(300, 1200)
    years: float = 5 if s.phase != 7 else 12
    if s.sixth_form:
        years += 1.5
    if s.is_independent:
        years = max(3, s.high_age - s.low_age)
    return max(1, round(pupils / years * rng.uniform(0.85, 1.05)))


def quality(s: School) -> float:
    """A school's persistent quality (z-score), so Ofsted, admissions and results agree."""
    return random.Random(f"{SEED}/quality/{s.urn}").gauss(0.0, 1.0)


def attainment_effect(s: School) -> float:
    """Quality plus intake: selection, disadvantage and special needs move raw results."""
    effect = quality(s)
    if s.selective:
        effect += 1.6
    if s.is_independent:
        effect += 0.8
    if s.fsm_percent is not None:
        effect -= (s.fsm_percent - 24.0) / 30.0
    if s.etype.special or s.etype.alternative:
        effect -= 2.5
    return effect


EES_PLACE = (
    PERIOD,
    "time_identifier",
    LEVEL,
    "country_code",
    "country_name",
    "old_la_code",
    "new_la_code",
    "la_name",
    "school_laestab",
    URN,
    "school_name",
)


def ees_place(period: str, s: School) -> list[str]:
    """The leading columns of an EES school-level row (EES_PLACE)."""
    return [
        period,
        "Academic year",
        "School",
        "E92000001",
        "England",
        s.la.code,
        s.la.gss,
        s.la.name,
        s.laestab,
        str(s.urn),
        s.name,
    ]
