"""The two shapes projected through field licensing: the public `SchoolRecord` and the
commercial `SchoolProfile`.

Each is a Struct built once, at import, from `domain.licensing.served_fields(tier)` and the
types of `School`'s fields, so a field licensed in the domain appears in the answer and in its
schema together, and a licensed field of a type with no JSON form fails here, at start.
Licensing is resolved once per shape, never per field per request.
"""

from __future__ import annotations

import datetime as dt
import enum
import operator
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any

import msgspec
from attrs import frozen
from msgspec import UNSET, Struct, UnsetType

from schooldata.domain.geo import Location as GeoLocation
from schooldata.domain.licensing import Tier, served_fields
from schooldata.domain.school import School
from schooldata.domain.urn import Urn
from schooldata.entrypoints.wire.common import (
    HistoricGrade,
    Location,
    OfstedRating,
    PublicHistoricGrade,
    SvcScore,
    Uri,
    historic_grade,
    location,
    public_historic_grade,
    suppressed_reason,
)

Getter = Callable[[School], object]
# (JSON key, type, getter, required)
Field = tuple[str, Any, Getter, bool]

# Attribute -> public JSON key; attributes not listed keep their camelCased name.
PUBLIC_KEYS = {"type_name": "type", "la_name": "localAuthority"}
# Attribute -> commercial JSON key; attributes not listed keep their name.
COMMERCIAL_KEYS = {
    "type_name": "type",
    "la_name": "local_authority",
    "la_code": "local_authority_code",
    "gias_phase": "phase_of_education",
}


def commercial_key(name: str) -> str:
    """The profile's name of a changed field (domain.changes: the historic grade whole is
    `ofsted`, the profile's `ofsted_historic_grade`)."""
    return "ofsted_historic_grade" if name == "ofsted" else COMMERCIAL_KEYS.get(name, name)


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


# ---------------------------------------------------------------------------- types


_HINTS = typing.get_type_hints(School)
_SCALARS = (str, int, float, bool, dt.date, type(None))


def _wire(tp: Any, name: str) -> tuple[Any, Callable[[Any], object]]:
    """A `School` field's JSON type and the conversion of its value to it."""
    if typing.get_origin(tp) in (types.UnionType, typing.Union):
        members = [_wire(member, name) for member in typing.get_args(tp)]
        wire_type = members[0][0]
        for member_type, _ in members[1:]:
            wire_type = wire_type | member_type
        convert = next((c for (t, c) in members if t is not type(None)), _same)
        return wire_type, lambda value: None if value is None else convert(value)
    if tp is Urn:
        return int, lambda urn: urn.value
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return str, lambda member: member.value
    if tp is GeoLocation:
        return Location, location
    if tp in _SCALARS:
        return tp, _same
    raise TypeError(f"School.{name} is licensed but {tp!r} has no JSON form: give it one here")


def _same(value: object) -> object:
    return value


def _attribute(name: str, key: str, *, required: bool) -> Field:
    wire_type, convert = _wire(_HINTS[name], name)
    if _is_same(_HINTS[name]):  # read as it is: a C getter (every record reads ~40 fields)
        return key, wire_type, operator.attrgetter(name), required
    return key, wire_type, lambda school: convert(getattr(school, name)), required


def _is_same(tp: Any) -> bool:
    """True when a value of `tp` is its own JSON form (scalars, optional or not)."""
    if typing.get_origin(tp) in (types.UnionType, typing.Union):
        return all(_is_same(member) for member in typing.get_args(tp))
    return tp in _SCALARS


def _phase(school: School) -> object:
    return None if school.phase is None else school.phase.value


@frozen
class Projection:
    """A licensed shape and how each of its fields is read from a `School`."""

    shape: type[Struct]
    getters: tuple[tuple[str, Getter], ...]

    def of(self, school: School, **rest: object) -> Any:
        return self.shape(**{key: get(school) for key, get in self.getters}, **rest)


def _project(
    name: str,
    doc: str,
    fields: list[Field],
    rest: list[tuple[str, Any] | tuple[str, Any, Any]],
    *,
    open_object: bool = False,
) -> Projection:
    """A Struct of `fields` then `rest` (the fields the caller fills itself). A field that is
    not required gets a default, so it is left out of the schema's `required`: UNSET (left
    out of the JSON too) for an omittable one, else None (sent, as null)."""
    spec = [
        (key, tp) if required else (key, tp, UNSET if _omittable(tp) else None)
        for key, tp, _, required in fields
    ]
    namespace: dict[str, Any] = {"__doc__": doc}
    if open_object:
        namespace["open_object"] = True
    shape = msgspec.defstruct(name, [*spec, *rest], kw_only=True, namespace=namespace)
    return Projection(shape, tuple((key, get) for key, _, get, _ in fields))


def _omittable(tp: Any) -> bool:
    return UnsetType in typing.get_args(tp)


def _served(tier: Tier, *, always: set[str]) -> tuple[str, ...]:
    """The fields `tier` may see; the ones a shape always carries must be among them."""
    served = served_fields(tier)
    withheld = always - set(served)
    if withheld:
        raise ValueError(f"{tier.value} shapes always carry {sorted(withheld)}: license them")
    return served


# ---------------------------------------------------------------------------- public

Synthetic = Annotated[
    bool,
    msgspec.Meta(
        description="true when the record comes from the bundled synthetic demo (an invented "
        "school); absent on real data."
    ),
]


def _public_fields() -> list[Field]:
    """The contract's listed fields first (only `urn` and `name` required), then every other
    public field in licensing order; `url` last."""
    head: list[Field] = [
        ("urn", int, operator.attrgetter("urn.value"), True),
        ("name", str, operator.attrgetter("name"), True),
        _attribute("postcode", "postcode", required=False),
        _attribute("town", "town", required=False),
        ("phase", str | None, _phase, False),
        _attribute("type_name", "type", required=False),
        ("svcScore", SvcScore | None, operator.attrgetter("svc_score"), False),
        ("scoreSuppressed", bool, operator.attrgetter("score_suppressed"), False),
        ("scoreSuppressedReason", str | UnsetType, suppressed_reason, False),
    ]
    fields = list(head)
    attributes = {"urn", "name", "postcode", "town", "phase", "type_name", "svc_score"}
    for name in _served(Tier.PUBLIC, always=attributes):
        if name in attributes:
            continue
        if name == "ofsted":
            fields.append(
                ("ofstedRating", OfstedRating | None, operator.attrgetter("ofsted_rating"), False)
            )
            fields.append(
                (
                    "ofstedRatingHistoric",
                    PublicHistoricGrade | None,
                    lambda s: public_historic_grade(s.ofsted),
                    False,
                )
            )
            continue
        fields.append(_attribute(name, PUBLIC_KEYS.get(name, camel(name)), required=False))
    return fields


PUBLIC_RECORD = _project(
    "SchoolRecord",
    "The public record of one open school: every publicly licensed field. Other properties "
    "may appear; availability varies by phase, type, source coverage and suppression.",
    _public_fields(),
    [
        ("url", Uri, None),  # (always sent; the contract requires only urn and name)
        ("synthetic", Synthetic | UnsetType, UNSET),  # (only on the demo's records)
    ],
    open_object=True,
)
SchoolRecord = PUBLIC_RECORD.shape


def public_record(school: School, *, url: str, synthetic: bool = False) -> Any:
    if synthetic:
        return PUBLIC_RECORD.of(school, url=url, synthetic=True)
    return PUBLIC_RECORD.of(school, url=url)


# ---------------------------------------------------------------------------- commercial


class Link(Struct, kw_only=True):
    """A predecessor, successor or other linked establishment: its name, status and dates as
    the register lists it, closed ones included (null where the register does not)."""

    urn: int
    name: str | None
    link_type: str
    established: dt.date | None
    status: str | None
    opened: dt.date | None
    closed: dt.date | None


class Resources(Struct, kw_only=True):
    """Where the school's other commercial resources are."""

    inspections: Uri
    results: Uri
    admissions: Uri
    finance: Uri


def _commercial_fields() -> list[Field]:
    """Every commercially licensed field, in licensing order; every one is always sent
    (null when unknown) except `score_suppressed_reason`."""
    fields: list[Field] = []
    for name in _served(Tier.COMMERCIAL, always={"urn", "name"}):
        if name == "svc_score":
            fields.append(("svc_score", SvcScore | None, operator.attrgetter("svc_score"), True))
            fields.append(("score_suppressed", bool, operator.attrgetter("score_suppressed"), True))
            fields.append(("score_suppressed_reason", str | UnsetType, suppressed_reason, False))
        elif name == "ofsted":
            fields.append(
                ("ofsted_rating", OfstedRating | None, operator.attrgetter("ofsted_rating"), True)
            )
            fields.append(
                (
                    "ofsted_historic_grade",
                    HistoricGrade | None,
                    lambda s: historic_grade(s.ofsted),
                    True,
                )
            )
        elif name == "phase":
            fields.append(("phase", str | None, _phase, True))
        else:
            fields.append(_attribute(name, COMMERCIAL_KEYS.get(name, name), required=True))
    return fields


PROFILE = _project(
    "SchoolProfile",
    "The stable joined profile: every field licensed for commercial use, the school's links "
    "and where its other resources are.",
    _commercial_fields(),
    [("links", list[Link]), ("resources", Resources), ("url", Uri)],
)
SchoolProfile = PROFILE.shape
