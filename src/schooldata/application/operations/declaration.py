"""What an operation is: its address, its typed parameters, the plan feature it needs, how its
request is prepared and how it runs. Every face reads these declarations; none restates them.

A `Param` is the one statement of a parameter's name, type, bounds, default and plan bound:
`Arguments` validates with it and the OpenAPI document and MCP schemas are generated from it.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from attrs import field, frozen

from schooldata.domain.errors import DomainError
from schooldata.domain.plans import Feature

if TYPE_CHECKING:
    from schooldata.application.operations.arguments import Arguments
    from schooldata.application.operations.uses import UseCases

Request = TypeVar("Request")
Result = TypeVar("Result")


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


class Port(enum.Enum):
    """The driven ports an operation reads: a face runs it without a thread hop only when
    every one of them answers from memory."""

    SCHOOLS = "schools"
    POSTCODES = "postcodes"
    DATASETS = "datasets"
    LINKS = "links"
    MEASURES = "measures"
    INSPECTIONS = "inspections"
    CHANGES = "changes"


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


@frozen(kw_only=True)
class Operation(Generic[Request, Result]):
    """One operation of the service, whatever face asks it.

    `prepare` checks every parameter rule and looks nothing up (what it raises is the
    caller's mistake); `run` answers the prepared request. `feature` None means a public
    operation: anonymous, never metered. Undeclared parameters are refused (except where a
    face's rule says otherwise: `pipeline.Face`)."""

    name: str
    summary: str
    method: str
    path: str
    feature: Feature | None
    params: tuple[Param, ...]
    prepare: Callable[[Arguments], Request]
    run: Callable[[UseCases, Request], Result]
    reads: frozenset[Port]
    rules: str = ""
    paged: bool = False
    # URNs that name no open school are listed in the answer, never refused as not found.
    reports_missing: bool = False
    deprecated_for: str | None = None  # the operation a deprecated route is replaced by
    unavailable: Callable[[], DomainError] | None = None  # how it reports a dependency down
    reusable: bool = True  # its answer is a function of the request and the data version
    # Refusals of its own beyond the ones every operation has (each answered with the status
    # the error maps to, and documented so).
    refuses: tuple[type[DomainError], ...] = ()
    by_name: Mapping[str, Param] = field(init=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "by_name", {p.name: p for p in self.params})

    @property
    def public(self) -> bool:
        return self.feature is None

    @property
    def body_params(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.place is Place.BODY)


AnyOperation = Operation[Any, Any]


@frozen
class Entry:
    """One question as each tier asks it: what an anonymous caller gets (`public`) and what
    a keyed caller gets (`keyed`). With only `public`, a keyed caller gets the public answer,
    unmetered; with only `keyed`, an anonymous caller is refused (missing key)."""

    public: AnyOperation | None
    keyed: AnyOperation | None

    @property
    def name(self) -> str:
        operation = self.keyed or self.public
        if operation is None:  # pragma: no cover - an entry always holds one
            raise ValueError("an entry with no operation")
        return operation.name
