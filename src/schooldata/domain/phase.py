"""Phases of education: the publisher's (GIAS) vocabulary and the API's five filter values."""

from __future__ import annotations

import enum

from schooldata.domain.errors import InvalidParameter, shown_input


class GiasPhase(enum.Enum):
    """`PhaseOfEducation (name)` values as GIAS publishes them."""

    NOT_APPLICABLE = "Not applicable"
    NURSERY = "Nursery"
    PRIMARY = "Primary"
    MIDDLE_DEEMED_PRIMARY = "Middle deemed primary"
    SECONDARY = "Secondary"
    MIDDLE_DEEMED_SECONDARY = "Middle deemed secondary"
    SIXTEEN_PLUS = "16 plus"
    ALL_THROUGH = "All-through"


class Phase(enum.Enum):
    """The API's phase values (the `phase` filter and the `phase` field of every record)."""

    PRIMARY = "primary"
    SECONDARY = "secondary"
    NURSERY = "nursery"
    SIXTH_FORM = "sixth form"
    ALL_THROUGH = "all-through"


# Middle schools are "deemed" one side or the other by statute; the API follows that deeming.
# "16 plus" establishments are sixth forms. "Not applicable" (special schools, PRUs, most
# independent schools) has no API phase: such schools show `phase: null` and match no filter.
GIAS_TO_API: dict[GiasPhase, Phase | None] = {
    GiasPhase.NOT_APPLICABLE: None,
    GiasPhase.NURSERY: Phase.NURSERY,
    GiasPhase.PRIMARY: Phase.PRIMARY,
    GiasPhase.MIDDLE_DEEMED_PRIMARY: Phase.PRIMARY,
    GiasPhase.SECONDARY: Phase.SECONDARY,
    GiasPhase.MIDDLE_DEEMED_SECONDARY: Phase.SECONDARY,
    GiasPhase.SIXTEEN_PLUS: Phase.SIXTH_FORM,
    GiasPhase.ALL_THROUGH: Phase.ALL_THROUGH,
}

PHASE_VALUES: tuple[str, ...] = tuple(p.value for p in Phase)
# (a dict: iterating an Enum and reading `.value` run Python code on every request)
_BY_VALUE: dict[str, Phase] = {p.value: p for p in Phase}


def parse_phase(raw: str) -> Phase:
    """Parse the API filter value: exactly one of the five documented values (case-insensitive)."""
    phase = _BY_VALUE.get(raw.strip().lower())
    if phase is not None:
        return phase
    raise InvalidParameter(
        "phase", f"phase must be one of: {', '.join(PHASE_VALUES)}; got {shown_input(raw)}."
    )


def api_phase(gias: GiasPhase | None) -> Phase | None:
    return None if gias is None else GIAS_TO_API[gias]


def parse_gias_phase(raw: str) -> GiasPhase | None:
    """Map a GIAS phase name; blank or unrecognised -> None (unknown, never guessed)."""
    text = raw.strip()
    for phase in GiasPhase:
        if phase.value.lower() == text.lower():
            return phase
    return None
