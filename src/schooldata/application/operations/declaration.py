"""What an operation is: its address, its typed parameters (`param`), the plan feature it
needs, how its request is read from raw arguments (`reading`) and how it runs. Every face reads
these declarations; none restates them.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from attrs import field, frozen

from schooldata.application.operations.param import Param, Place
from schooldata.domain.errors import DomainError
from schooldata.domain.plans import Feature

if TYPE_CHECKING:
    from schooldata.application.operations.arguments import Arguments
    from schooldata.application.operations.uses import UseCases

Request = TypeVar("Request")
Result = TypeVar("Result")


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
