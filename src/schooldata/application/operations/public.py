"""The public operations: anonymous, public fields only, never metered."""

from __future__ import annotations

from schooldata.application.operations.declaration import Operation, Port
from schooldata.application.operations.param import Kind, Param
from schooldata.application.operations.params import PHASE, URN
from schooldata.application.operations.reading import prepare_public_search, prepare_urn
from schooldata.application.operations.uses import UseCases
from schooldata.application.search_schools import PreparedSearch, PublicSearchAnswer
from schooldata.domain.errors import SearchUnavailable
from schooldata.domain.school import School
from schooldata.domain.search import (
    MAX_RADIUS_MILES,
    MIN_QUERY_LENGTH,
    MIN_RADIUS_MILES,
    PUBLIC_DEFAULT_LIMIT,
    PUBLIC_MAX_LIMIT,
)
from schooldata.domain.urn import Urn

SEARCH_PARAMS = (
    Param(
        name="query",
        kind=Kind.TEXT,
        description=(
            "School name, local authority or school type to match (at least 2 characters). "
            "Every word must prefix-match, e.g. 'st marys westminster'."
        ),
        min_length=MIN_QUERY_LENGTH,
    ),
    Param(
        name="postcode",
        kind=Kind.POSTCODE,
        description=(
            "A full UK postcode ('SW1A 1AA') or an outward code ('SW1A'); case and spaces are "
            "ignored. Results are sorted nearest first and carry their distance in miles."
        ),
        min_length=2,
    ),
    PHASE,
    Param(
        name="radius_miles",
        kind=Kind.NUMBER,
        description="Maximum distance in miles from the postcode (0.1 to 100). Needs a postcode.",
        minimum=MIN_RADIUS_MILES,
        maximum=MAX_RADIUS_MILES,
    ),
    Param(
        name="limit",
        kind=Kind.INTEGER,
        description=f"Maximum number of results, 1 to {PUBLIC_MAX_LIMIT} (default {PUBLIC_DEFAULT_LIMIT}).",
        minimum=1,
        maximum=PUBLIC_MAX_LIMIT,
        default=PUBLIC_DEFAULT_LIMIT,
    ),
)


def _search(uses: UseCases, prepared: PreparedSearch) -> PublicSearchAnswer:
    return uses.search_schools.run(prepared)


SEARCH: Operation[PreparedSearch, PublicSearchAnswer] = Operation(
    name="searchSchools",
    summary="Search open schools by name, local authority or type, or nearest a postcode",
    method="GET",
    path="/api/v1/search",
    feature=None,
    params=SEARCH_PARAMS,
    prepare=prepare_public_search,
    run=_search,
    reads=frozenset({Port.SCHOOLS, Port.POSTCODES}),
    unavailable=SearchUnavailable,
    rules=(
        "- At least one of `query` or `postcode`; each at least 2 characters.\n"
        "- `postcode` is a full UK postcode or an outward code; unknown -> 400, never (0, 0).\n"
        "- With a postcode, results are nearest first and carry `distanceMiles`; "
        "`radius_miles` (0.1-100) bounds the distance.\n"
        "- `limit` 1-25, default 10; `total` counts every match.\n"
        "- Unavailable search -> 500 (the contract's status); other parameters are ignored."
    ),
)


def _school(uses: UseCases, urn: Urn) -> School:
    return uses.get_school.execute(urn)


GET_SCHOOL: Operation[Urn, School] = Operation(
    name="getSchool",
    summary="The current public record of one school",
    method="GET",
    path="/api/v1/schools/{urn}",
    feature=None,
    params=(URN,),
    prepare=prepare_urn,
    run=_school,
    reads=frozenset({Port.SCHOOLS}),
    rules=(
        "- The URN is exactly six digits (else invalid_urn, before any lookup).\n"
        "- Only open schools are served: a closed or unknown URN is not found."
    ),
)

GET_SCHOOL_LEGACY: Operation[Urn, School] = Operation(
    name="getSchoolLegacy",
    summary="Compatibility route with the same behaviour as getSchool",
    method="GET",
    path="/api/get-school",
    feature=None,
    params=(Param(name="urn", kind=Kind.URN, description=URN.description, required=True),),
    prepare=prepare_urn,
    run=_school,
    reads=frozenset({Port.SCHOOLS}),
    deprecated_for="getSchool",
    rules=GET_SCHOOL.rules,
)

PUBLIC_OPERATIONS = (SEARCH, GET_SCHOOL, GET_SCHOOL_LEGACY)
