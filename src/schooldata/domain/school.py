"""The school record: every field the service can serve, as the register and imports hold it."""

from __future__ import annotations

import datetime as dt
from functools import cached_property
from sys import intern

from attrs import field, frozen

from schooldata.domain.geo import Location
from schooldata.domain.ofsted import HistoricGrade
from schooldata.domain.phase import GiasPhase, Phase, api_phase
from schooldata.domain.text import normalise, tokens
from schooldata.domain.urn import Urn


@frozen
class SearchText:
    name: str
    name_tokens: tuple[str, ...]
    other_tokens: tuple[str, ...]
    authority: str
    type_name: str
    gender: str


OPEN_STATUSES = frozenset({"Open", "Open, but proposed to close"})


def is_servable_status(status: str) -> bool:
    """Only open establishments are served (DECISIONS: Open, or Open but proposed to close)."""
    return status.strip() in OPEN_STATUSES


@frozen(kw_only=True)
class School:
    """One establishment. Optional fields are None when the publisher left them blank."""

    urn: Urn
    name: str
    status: str = "Open"
    la_code: str | None = None
    la_name: str | None = None
    establishment_number: str | None = None
    type_name: str | None = None
    type_group: str | None = None
    gias_phase: GiasPhase | None = None
    statutory_low_age: int | None = None
    statutory_high_age: int | None = None
    gender: str | None = None
    religious_character: str | None = None
    admissions_policy: str | None = None
    boarders: str | None = None
    nursery_provision: str | None = None
    official_sixth_form: str | None = None
    capacity: int | None = None
    pupils: int | None = None
    percentage_fsm: float | None = None
    trust_name: str | None = None
    street: str | None = None
    locality: str | None = None
    address3: str | None = None
    town: str | None = None
    county: str | None = None
    postcode: str | None = None
    website: str | None = None
    telephone: str | None = None
    region: str | None = None
    district: str | None = None
    ward: str | None = None
    parliamentary_constituency: str | None = None
    urban_rural: str | None = None
    ukprn: str | None = None
    uprn: str | None = None
    open_date: dt.date | None = None
    location: Location | None = None
    ofsted: HistoricGrade | None = None
    # Never served (personal data / independent inspectorate); kept only so the licensing
    # registry can prove they are withheld from every face.
    head_name: str | None = field(default=None, repr=False)
    inspectorate_name: str | None = None
    # The derived comparison signal (see domain/scoring.py and docs/methodology.md).
    svc_score: float | None = None
    score_suppressed_reason: str | None = None

    @property
    def phase(self) -> Phase | None:
        return api_phase(self.gias_phase)

    @cached_property
    def search_text(self) -> SearchText:
        """Normalised name, name words and authority/type words: computed once per record,
        because search compares them for every candidate of every query. Words and the
        normalised authority, type and gender are interned: thousands of schools share each."""
        name = normalise(self.name)
        return SearchText(
            name=name,
            name_tokens=tuple(map(intern, name.split())),
            other_tokens=tuple(map(intern, (*tokens(self.la_name), *tokens(self.type_name)))),
            authority=intern(normalise(self.la_name or "")),
            type_name=intern(normalise(self.type_name or "")),
            gender=intern(normalise(self.gender or "")),
        )

    @property
    def score_suppressed(self) -> bool:
        return self.svc_score is None

    @property
    def ofsted_rating(self) -> int | None:
        return None if self.ofsted is None else self.ofsted.grade
