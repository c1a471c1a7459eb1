"""Measures: a published figure or the honest reason there is none. Absence is never zero.

Publishers (DfE explore-education-statistics) write symbols in place of numbers. Each symbol
maps to one kind here, and a kind other than `Reported` always serialises as `null` plus a
status and a reason.
"""

from __future__ import annotations

import enum
import math

from attrs import frozen


class MeasureStatus(enum.Enum):
    REPORTED = "reported"
    SUPPRESSED = "suppressed"
    NOT_APPLICABLE = "not_applicable"
    MISSING = "missing"


@frozen
class Measure:
    """One figure of one school for one period.

    `value` is set only when `status` is REPORTED. `reason` says why there is no value
    (for example `small_cohort`, `no_ks2_baseline`), or flags a reported value's caveat
    (`low_reliability`).
    """

    status: MeasureStatus
    value: float | None = None
    reason: str | None = None

    def __attrs_post_init__(self) -> None:
        if (self.status is MeasureStatus.REPORTED) != (self.value is not None):
            raise ValueError("a Measure has a value exactly when it is reported")
        if self.value is not None and not math.isfinite(self.value):
            raise ValueError("a reported Measure must be a finite number")

    @property
    def is_reported(self) -> bool:
        return self.status is MeasureStatus.REPORTED


def reported(value: float, reason: str | None = None) -> Measure:
    return Measure(MeasureStatus.REPORTED, float(value), reason)


def suppressed(reason: str) -> Measure:
    return Measure(MeasureStatus.SUPPRESSED, None, reason)


def not_applicable(reason: str = "not_applicable") -> Measure:
    return Measure(MeasureStatus.NOT_APPLICABLE, None, reason)


def missing(reason: str = "not_published") -> Measure:
    return Measure(MeasureStatus.MISSING, None, reason)


# EES symbol -> measure kind. `low` is a positive figure that rounds to zero: publishing it as
# 0 would be the exact error the contract forbids, so it is suppressed with that reason.
# `u` marks low reliability; where it stands alone (no number) the figure is withheld.
# The older performance-tables downloads (`england_ks4final.csv` ...) wrote codes instead:
# SUPP suppressed (small cohort), NE no entries, NP not published, NA not applicable, LOWCOV
# too few pupils covered to publish, NEW a new institution with no results yet.
EES_SYMBOLS: dict[str, Measure] = {
    "c": suppressed("small_cohort"),
    "z": not_applicable("not_applicable"),
    "x": missing("unavailable"),
    ":": missing("not_available"),
    "low": suppressed("rounds_to_zero"),
    "u": suppressed("low_reliability"),
    "supp": suppressed("small_cohort"),
    "ne": not_applicable("no_entries"),
    "np": missing("not_published"),
    "na": not_applicable("not_applicable"),
    "lowcov": suppressed("low_coverage"),
    "new": not_applicable("new_institution"),
}


def parse_ees(raw: str | None, *, percent: bool = False) -> Measure:
    """Parse one EES cell: a number, one of the symbols, or blank (missing).

    Numbers may carry thousands separators, a leading `£` or a trailing `%`. Anything else
    unparseable is reported as missing with reason `unparseable` rather than guessed.
    """
    text = (raw or "").strip()
    if not text:
        return missing("not_published")
    symbol = EES_SYMBOLS.get(text.lower())
    if symbol is not None:
        return symbol
    cleaned = text.replace(",", "").removeprefix("£").replace("-£", "-")
    if percent or cleaned.endswith("%"):
        cleaned = cleaned.rstrip("%")
    try:
        number = float(cleaned)
    except ValueError:
        return missing("unparseable")
    if not math.isfinite(number):
        return missing("unparseable")
    return reported(number)
