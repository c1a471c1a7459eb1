"""Public search (operation `searchSchools`, MCP `search_schools` without a key)."""

from __future__ import annotations

import re

from attrs import frozen

from schooldata.application.locate import locate_postcode
from schooldata.application.parameters import decimal
from schooldata.domain.errors import InvalidParameter
from schooldata.domain.phase import parse_phase
from schooldata.domain.postcode import parse_postcode
from schooldata.domain.search import (
    PUBLIC_DEFAULT_LIMIT,
    PUBLIC_MAX_LIMIT,
    Proximity,
    SchoolQuery,
    SearchPage,
    TextQuery,
    require_some_input,
    validate_limit,
    validate_radius,
)
from schooldata.ports.postcodes import PostcodeDirectory
from schooldata.ports.schools import SchoolReader


@frozen(kw_only=True)
class PublicSearchRequest:
    query: str | None = None
    postcode: str | None = None
    phase: str | None = None
    radius_miles: float | None = None
    limit: int | None = None


@frozen(kw_only=True)
class PublicSearchAnswer:
    request: PublicSearchRequest
    limit: int
    page: SearchPage
    with_distance: bool


class SearchSchools:
    """Search open schools by name, local authority or type, or nearest a postcode.

    - At least one of `query` or `postcode`; each at least 2 characters.
    - `postcode` is a full UK postcode or an outward code; unknown -> error, never (0, 0).
    - With a postcode, results are nearest first and carry their distance in miles;
      `radius_miles` (0.1-100) bounds the distance.
    - `phase` is one of primary, secondary, nursery, sixth form, all-through.
    - `limit` 1-25, default 10. `total` counts every match, not just the page.
    """

    def __init__(self, *, schools: SchoolReader, postcodes: PostcodeDirectory) -> None:
        self._schools = schools
        self._postcodes = postcodes

    def execute(self, request: PublicSearchRequest) -> PublicSearchAnswer:
        require_some_input(request.query, request.postcode)
        text = TextQuery.parse(request.query) if request.query is not None else None
        if request.postcode is not None:
            parse_postcode(request.postcode)  # shape errors before any other parameter
        phases = frozenset({parse_phase(request.phase)}) if request.phase is not None else None
        radius = validate_radius(request.radius_miles)
        limit = validate_limit(
            request.limit, default=PUBLIC_DEFAULT_LIMIT, maximum=PUBLIC_MAX_LIMIT
        )
        near = None
        if request.postcode is not None:
            near = Proximity(locate_postcode(self._postcodes, request.postcode), radius)
        query = SchoolQuery(text=text, near=near, phases=phases or frozenset(), limit=limit)
        page = self._schools.search(query=query)
        return PublicSearchAnswer(
            request=request, limit=limit, page=page, with_distance=near is not None
        )


_INTEGER = re.compile(r"[+-]?[0-9]{1,12}")


def parse_int_parameter(name: str, raw: str | None) -> int | None:
    """Shared by the faces that receive text: '10' -> 10; '1.5', 'ten' -> a clear error."""
    if raw is None:
        return None
    text = raw.strip()
    if _INTEGER.fullmatch(text) is None:
        raise InvalidParameter(name, f"{name} must be an integer.")
    return int(text)


def parse_float_parameter(name: str, raw: str | None) -> float | None:
    """'2.5' -> 2.5; '1_0', '１', 'nan', 'inf' -> a clear error (see parameters.decimal)."""
    return None if raw is None else decimal(name, raw)
