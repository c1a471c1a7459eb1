"""The small shapes several answers share, and the value conversions every shape uses.

A field's type here is its JSON Schema: `Annotated` bounds become `minimum`/`maximum`,
`X | None` a nullable type, and a field typed `X | UnsetType` (default `UNSET`) is left out
of the JSON when unset and out of the schema's `required`. A closed shape says so (`forbid_unknown_fields`: its schema has
`additionalProperties: false`); an open one sets the class variable `open_object`
(`additionalProperties: true`); the others leave it unsaid.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

from schooldata.domain.geo import Location as GeoLocation
from schooldata.domain.ofsted import REPORT_CARDS_START
from schooldata.domain.ofsted import HistoricGrade as DomainGrade
from schooldata.domain.phase import GiasPhase, Phase
from schooldata.domain.school import School
from schooldata.domain.urn import Urn

Uri = Annotated[str, Meta(extra_json_schema={"format": "uri"})]
OfstedRating = Annotated[int, Meta(ge=1, le=4)]
SvcScore = Annotated[float, Meta(ge=0, le=100)]
Count = Annotated[int, Meta(ge=0)]
Distance = Annotated[float, Meta(ge=0)]
Instant = Annotated[dt.datetime, Meta(tz=True)]  # always sent in UTC, with a `Z`

GRADE_NOTE = (
    "Single-word overall grades are historic after "
    f"{REPORT_CARDS_START.isoformat()} and not comparable with report-card outcomes."
)


class Location(Struct, forbid_unknown_fields=True):
    latitude: float
    longitude: float


def location(value: GeoLocation | None) -> Location | None:
    return None if value is None else Location(value.latitude, value.longitude)


class HistoricGrade(Struct, kw_only=True):
    """A graded-framework overall judgement: historic after report cards began, and never
    comparable with them."""

    grade: OfstedRating
    label: str
    inspection_date: dt.date | None
    framework: str
    historic: bool
    comparable: bool
    note: str


# The same judgement inside the public record, whose keys are camelCase.
PublicHistoricGrade = msgspec.defstruct(
    "PublicHistoricGrade",
    [(f.name, f.type) for f in msgspec.structs.fields(HistoricGrade)],
    kw_only=True,
    rename="camel",
    namespace={"__doc__": HistoricGrade.__doc__},
)


def historic_grade(grade: DomainGrade | None) -> HistoricGrade | None:
    return None if grade is None else HistoricGrade(**_grade_fields(grade))


def public_historic_grade(grade: DomainGrade | None) -> Struct | None:
    return None if grade is None else PublicHistoricGrade(**_grade_fields(grade))


def _grade_fields(grade: DomainGrade) -> dict[str, Any]:
    return {
        "grade": grade.grade,
        "label": grade.label,
        "inspection_date": grade.inspection_date,
        "framework": "graded",
        "historic": True,
        "comparable": grade.comparable,
        "note": GRADE_NOTE,
    }


class SchoolHeading(Struct, kw_only=True):
    """Which school a dataset answer is about."""

    urn: int
    name: str
    phase: str | None
    type: str | None
    local_authority: str | None


def heading(school: School) -> SchoolHeading:
    return SchoolHeading(
        urn=school.urn.value,
        name=school.name,
        phase=phase(school.phase),
        type=school.type_name,
        local_authority=school.la_name,
    )


def phase(value: Phase | GiasPhase | None) -> str | None:
    return None if value is None else value.value


def suppressed_reason(school: School) -> str | UnsetType:
    """`score_suppressed_reason` is sent only with a suppressed score."""
    if not school.score_suppressed:
        return UNSET
    return school.score_suppressed_reason or "no_comparable_evidence"


def school_url(base_url: str, urn: Urn) -> str:
    return f"{base_url.rstrip('/')}/api/v1/schools/{urn}"


def timestamp(value: dt.datetime) -> dt.datetime:
    """An instant as every answer shows it: in UTC (encoded with a `Z`)."""
    return value.astimezone(dt.UTC)


def optional_timestamp(value: dt.datetime | None) -> dt.datetime | None:
    return None if value is None else timestamp(value)
