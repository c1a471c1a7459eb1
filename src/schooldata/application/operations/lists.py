"""The commercial lists of the register: schools by filters, by text, by place; authorities."""

from __future__ import annotations

from schooldata.application.commercial import (
    AuthorityCount,
    AuthorityQuery,
    ListAnswer,
    ListRequest,
)
from schooldata.application.operations.declaration import Operation, Port
from schooldata.application.operations.params import FILTERS, ORIGIN, PAGING, query
from schooldata.application.operations.reading import (
    prepare_authorities,
    prepare_list,
    prepare_nearby,
    prepare_search,
)
from schooldata.application.operations.uses import UseCases
from schooldata.application.paging import Page
from schooldata.domain.plans import Feature

LIST_RULES = (
    "- Paging: `page` >= 1, `per_page` 1..plan maximum (default 20); past the last page: "
    "empty data, true totals.\n"
    "- Ordering by the sort key, then URN: deterministic within a release.\n"
    "- One origin: a postcode or latitude+longitude; `radius_miles` needs one.\n"
    "- `sort`: relevance needs `q`, distance needs an origin.\n"
    "- Any other parameter -> unknown_parameter."
)
SCHOOL_READS = frozenset({Port.SCHOOLS, Port.POSTCODES, Port.DATASETS})


def _find(uses: UseCases, request: ListRequest) -> ListAnswer:
    return uses.commercial.find(request)


LIST: Operation[ListRequest, ListAnswer] = Operation(
    name="listSchools",
    summary="List open schools with bounded filters",
    method="GET",
    path="/api/v1/schools",
    feature=Feature.SCHOOLS_LIST,
    params=(query(required=False), *ORIGIN, *FILTERS, *PAGING),
    prepare=prepare_list,
    run=_find,
    reads=SCHOOL_READS,
    paged=True,
    rules=LIST_RULES,
)

SEARCH: Operation[ListRequest, ListAnswer] = Operation(
    name="searchSchoolsCommercial",
    summary="Search by name, authority and type",
    method="GET",
    path="/api/v1/schools/search",
    feature=Feature.SCHOOLS_SEARCH,
    params=(query(required=True), *FILTERS, *PAGING),
    prepare=prepare_search,
    run=_find,
    reads=SCHOOL_READS,
    paged=True,
    rules="- `q` (at least 2 characters) is required; most relevant first.\n" + LIST_RULES,
)

NEARBY: Operation[ListRequest, ListAnswer] = Operation(
    name="nearbySchools",
    summary="Proximity by postcode or coordinates, nearest first",
    method="GET",
    path="/api/v1/schools/nearby",
    feature=Feature.SCHOOLS_NEARBY,
    params=(query(required=False), *ORIGIN, *FILTERS, *PAGING),
    prepare=prepare_nearby,
    run=_find,
    reads=SCHOOL_READS,
    paged=True,
    rules="- A postcode or latitude+longitude is required; an unknown postcode is an error.\n"
    + LIST_RULES,
)


def _authorities(uses: UseCases, request: AuthorityQuery) -> Page[AuthorityCount]:
    return uses.commercial.local_authorities(request)


AUTHORITIES: Operation[AuthorityQuery, Page[AuthorityCount]] = Operation(
    name="listLocalAuthorities",
    summary="Authority catalogue and counts of open schools",
    method="GET",
    path="/api/v1/areas/local-authorities",
    feature=Feature.LOCAL_AUTHORITIES,
    params=(query(required=False), *PAGING),
    prepare=prepare_authorities,
    run=_authorities,
    reads=frozenset({Port.SCHOOLS, Port.DATASETS}),
    paged=True,
    rules="- `q` matches the authority's name (any case) or its code.",
)

LIST_OPERATIONS = (LIST, SEARCH, NEARBY, AUTHORITIES)
