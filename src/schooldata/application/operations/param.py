"""A parameter as every face reads it: the one statement of its name, type, bounds, default
and plan bound. `Arguments` validates with it and the OpenAPI document and MCP schemas are
generated from it.
"""

from __future__ import annotations

import enum

from attrs import frozen


class Kind(enum.Enum):
    """What a parameter's value is, as every face reads it."""

    TEXT = "text"
    INTEGER = "integer"
    NUMBER = "number"
    CHOICE = "choice"  # one of `choices`, in any case
    URN = "urn"  # six digits, or the integer they spell
    POSTCODE = "postcode"  # a full UK postcode or an outward code
    URNS = "urns"  # an array of URNs (a JSON body)
    BOOLEAN = "boolean"  # true or false (as text on a query string: `true`, `false`)
    VERSION = "version"  # a data version id (domain.versions)


class Place(enum.Enum):
    """Where a parameter travels in an HTTP request (the other faces pass names and values)."""

    QUERY = "query"
    PATH = "path"
    BODY = "body"


class PlanBound(enum.Enum):
    """A bound that depends on the caller's plan."""

    PER_PAGE = "per_page"
    COMPARE = "compare"
    LOOKUP = "lookup"


@frozen(kw_only=True)
class Param:
    name: str
    kind: Kind
    description: str
    required: bool = False
    place: Place = Place.QUERY
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    min_items: int | None = None
    choices: tuple[str, ...] = ()
    default: object = None
    plan_bound: PlanBound | None = None
