"""The public contract's shapes (camelCase): the search answer, the school record and the error.

Which fields each requires is the contract's table (service-description, "Resources and their
fields"): a field with a default here is not in `required`, though the answer always sends it.
Declared apart from `public` (which builds them, compiled: setup.py) because mypyc does not
compile a msgspec Struct's class body.
"""

from __future__ import annotations

from typing import Annotated, ClassVar

from msgspec import UNSET, Meta, Struct, UnsetType

from schooldata.domain.search import PUBLIC_MAX_LIMIT
from schooldata.entrypoints.wire.common import (
    Count,
    Distance,
    Location,
    OfstedRating,
    SvcScore,
    Uri,
)


class SchoolSearchResult(Struct, kw_only=True, forbid_unknown_fields=True, rename="camel"):
    """A school in the public search; `distanceMiles` only when a postcode was given."""

    urn: int
    name: str
    phase: str | None = None
    type: str | None = None
    local_authority: str | None = None
    location: Location | None = None
    distance_miles: Distance | UnsetType = UNSET
    ofsted_rating: OfstedRating | None = None
    svc_score: SvcScore | None = None
    score_suppressed: bool = False
    url: Uri


class SearchResponse(Struct, kw_only=True, forbid_unknown_fields=True, rename="camel"):
    """The public search answer: the question echoed, the true total, at most `limit` results."""

    query: str | None
    postcode: str | None
    phase: str | None
    radius_miles: float | None
    total: Count
    limit: Annotated[int, Meta(ge=1, le=PUBLIC_MAX_LIMIT)]
    results: Annotated[list[SchoolSearchResult], Meta(max_length=PUBLIC_MAX_LIMIT)]


class Error(Struct, kw_only=True):
    """A public refusal: the message, and the machine code when there is one."""

    open_object: ClassVar[bool] = True

    error: str
    code: str | UnsetType = UNSET
