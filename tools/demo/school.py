"""One synthetic establishment, and the choices that define it before it has a place: type,
phase, ages, religion and gender, coherent for its profile."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tools.demo.draws import weighted
from tools.demo.kinds import (
    PRIMARY_TYPES,
    PRU_TYPES,
    SECONDARY_TYPES,
    SIXTEEN_TYPES,
    SPECIAL_TYPES,
    STATUS_OPEN,
    STATUS_PROPOSED_TO_CLOSE,
    STATUS_PROPOSED_TO_OPEN,
    TYPES,
    EstablishmentType,
)

if TYPE_CHECKING:
    from tools.demo.codepoint import Postcode
    from tools.demo.places import LocalAuthority


@dataclass
class School:
    """One synthetic establishment; GIAS and every other file are projections of it."""

    urn: int
    la: LocalAuthority
    estab_number: int
    name: str
    etype: EstablishmentType
    phase: int
    low_age: int
    high_age: int
    status: tuple[int, str]
    pc: Postcode
    gender: str = "Mixed"
    religion: str = ""  # "", "CE", "RC"
    selective: bool = False
    open_date: dt.date | None = None
    close_date: dt.date | None = None
    reason_opened: str = "na"
    reason_closed: str = "na"
    capacity: int | None = None
    pupils: int | None = None
    fsm_percent: float | None = None
    trust: tuple[int, str] | None = None
    easting: int | None = None
    northing: int | None = None
    ukprn: int | None = None
    uprn: str = ""
    street: str = ""
    locality: str = ""
    town: str = ""
    county: str = ""
    phone: str = ""

    @property
    def full_address(self) -> str:
        parts = (self.street, self.locality, self.town, self.pc.postcode)
        return ", ".join(p for p in parts if p)

    @property
    def is_open(self) -> bool:
        return self.status in (STATUS_OPEN, STATUS_PROPOSED_TO_CLOSE)

    @property
    def is_state(self) -> bool:
        """State-funded: LA maintained, academies and free schools."""
        return self.etype.kind in ("maintained", "academy", "free")

    @property
    def is_independent(self) -> bool:
        """Independent schools, and non-maintained special schools (charities)."""
        return self.etype.kind in ("independent", "special_indep")

    @property
    def sixth_form(self) -> bool:
        if self.phase == 6:
            return True
        return self.high_age >= 18 and self.low_age <= 14 and not self.etype.alternative

    @property
    def laestab(self) -> str:
        return f"{self.la.code}{self.estab_number:04d}"

    def open_on(self, day: dt.date) -> bool:
        """Was the school open on ``day`` (so it has results for that year)?"""
        if self.status == STATUS_PROPOSED_TO_OPEN:
            return False
        return self.open_date is None or self.open_date <= day


@dataclass
class Draft:
    """A school's defining choices before identifiers and a place are given."""

    profile: str
    etype: EstablishmentType
    phase: int
    low: int
    high: int
    religion: str
    gender: str
    selective: bool
    name: str = ""


def draft_school(rng: random.Random, la: LocalAuthority, profile: str) -> Draft:
    """Choose type, phase, ages, religion and gender coherently for a profile."""
    religion, gender, selective = "", "Mixed", False
    if profile in ("primary", "infant", "junior", "middle_primary"):
        etype = TYPES[weighted(rng, PRIMARY_TYPES)]
        if profile == "middle_primary":
            phase, low, high = 3, rng.choice((8, 9)), 12
        elif profile == "infant":
            phase, low, high = 2, rng.choice((3, 4, 4)), 7
        elif profile == "junior":
            phase, low, high = 2, 7, 11
        else:
            phase, low, high = 2, rng.choice((3, 3, 4, 4, 4)), 11
        if etype.name == "Voluntary aided school":
            religion = "RC" if rng.random() < 0.45 else "CE"
        elif etype.name == "Voluntary controlled school":
            religion = "CE"
        elif etype.kind == "academy" and rng.random() < 0.25:
            religion = "CE" if rng.random() < 0.7 else "RC"
    elif profile in ("secondary", "grammar", "middle_secondary", "all_through"):
        etype = TYPES[weighted(rng, SECONDARY_TYPES)]
        if profile == "middle_secondary":
            etype = TYPES[rng.choice(("Community school", "Academy converter"))]
            phase, low, high = 5, rng.choice((9, 10)), 13
        elif profile == "all_through":
            etype = TYPES[
                weighted(
                    rng,
                    [
                        ("Academy converter", 40.0),
                        ("Free schools", 35.0),
                        ("Academy sponsor led", 15.0),
                        ("Community school", 10.0),
                    ],
                )
            ]
            phase, low, high = 7, rng.choice((3, 4, 4)), rng.choice((16, 18, 18, 19))
        elif etype.name in ("University technical college", "Studio schools"):
            phase, low, high = 4, 14, 19
        else:
            phase, low, high = 4, 11, rng.choice((16, 16, 18, 18, 18, 19))
        if profile == "grammar" or (
            profile == "secondary"
            and etype.kind in ("maintained", "academy")
            and rng.random() < la.selective_share
        ):
            selective = True
            etype = TYPES[
                rng.choice(
                    (
                        "Academy converter",
                        "Academy converter",
                        "Foundation school",
                        "Voluntary aided school",
                    )
                )
            ]
            high = 18
        if etype.name == "Voluntary aided school":
            religion = "RC" if rng.random() < 0.7 else "CE"
        elif etype.kind == "academy" and rng.random() < 0.15:
            religion = "RC" if rng.random() < 0.6 else "CE"
        roll = rng.random()
        gender = "Girls" if roll < 0.07 else ("Boys" if roll < 0.12 else "Mixed")
        if selective and rng.random() < 0.6:
            gender = rng.choice(("Boys", "Girls"))
    elif profile == "nursery":
        etype, phase, low, high = TYPES["Local authority nursery school"], 1, rng.choice((2, 3)), 5
    elif profile == "sixteen_plus":
        etype = TYPES[weighted(rng, SIXTEEN_TYPES)]
        phase, low = 6, 16
        high = 99 if etype.kind == "fe" else 19
    elif profile == "special":
        etype = TYPES[weighted(rng, SPECIAL_TYPES)]
        phase, low, high = 0, rng.choice((2, 3, 4, 5, 11)), rng.choice((11, 16, 19, 19))
        if low >= high - 3:
            low = 4
    elif profile == "pru":
        etype = TYPES[weighted(rng, PRU_TYPES)]
        phase, low, high = 0, rng.choice((5, 11, 11, 14)), 16
    elif profile == "independent":
        etype, phase = TYPES["Other independent school"], 0
        low, high = rng.choice(
            ((3, 11), (2, 13), (4, 18), (3, 18), (11, 18), (7, 18), (11, 16), (13, 18), (4, 16))
        )
        religion = "CE" if rng.random() < 0.08 else ""
        roll = rng.random()
        gender = "Girls" if roll < 0.14 else ("Boys" if roll < 0.25 else "Mixed")
    elif profile == "independent_special":
        etype, phase = TYPES["Other independent special school"], 0
        low, high = rng.choice(((5, 16), (7, 19), (11, 18), (8, 19), (4, 19)))
    else:  # pragma: no cover - the profile table is closed
        raise ValueError(profile)
    return Draft(profile, etype, phase, low, high, religion, gender, selective)
