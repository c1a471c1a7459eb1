"""Commercial read use cases over the register: list, search, nearby, profile, authorities.

Rules (shared by REST, MCP and CLI):
- Paging: `page` >= 1, `per_page` 1..plan maximum (default 20); past the last page -> empty
  data with true totals. Ordering is by the sort key, then URN: deterministic within a release.
- Filters: `q` (>= 2 chars: name, authority, type), `postcode` or `latitude`+`longitude`
  (one origin, not both), `radius_miles` 0.1-100 (needs an origin), `local_authority`
  (name or code), `phase` (the five API values), `type`, `gender` (mixed/boys/girls),
  `ofsted_rating` 1-4 (historic graded outcome), `min_score` 0-100, `sort`.
- `sort`: relevance (needs q), distance (needs an origin), name, urn, score.
- Any other parameter -> unknown_parameter.

Two steps, so a face can tell a caller's mistake from what the data says: the operations read
the arguments into a `ListRequest` (`operations.reading`: every parameter rule, nothing looked
up), and `find` looks the postcode up (unknown -> unknown_postcode) and searches.
"""

from __future__ import annotations

from typing import NamedTuple

from attrs import frozen

from schooldata.application.locate import locate_parsed
from schooldata.application.paging import Page, PageRequest
from schooldata.domain.errors import SchoolNotFound
from schooldata.domain.geo import Location
from schooldata.domain.links import EstablishmentLink
from schooldata.domain.phase import Phase
from schooldata.domain.postcode import PostcodeQuery
from schooldata.domain.school import School
from schooldata.domain.search import (
    Proximity,
    SchoolQuery,
    SearchPage,
    SortOrder,
    TextQuery,
)
from schooldata.domain.text import normalise
from schooldata.domain.urn import Urn
from schooldata.ports.postcodes import PostcodeDirectory
from schooldata.ports.schools import LinkReader, SchoolReader


class ListAnswer(NamedTuple):
    """One page of a list. Named tuples (this and `ListRequest`): one of each is built on
    every list request, at half a frozen attrs instance's cost."""

    page: int
    per_page: int
    result: SearchPage
    with_distance: bool

    @property
    def total_pages(self) -> int:
        return (self.result.total + self.per_page - 1) // self.per_page


@frozen(kw_only=True)
class PostcodeOrigin:
    """A well-formed postcode, not yet looked up; `raw` is what the caller typed."""

    raw: str
    parsed: PostcodeQuery


class ListRequest(NamedTuple):
    """A list, search or nearby question whose every parameter is valid. Nothing has been
    looked up yet: `origin` is a point, or a postcode `find` will locate."""

    text: TextQuery | None
    origin: Location | PostcodeOrigin | None
    radius_miles: float | None
    phases: frozenset[Phase]
    local_authority: str | None
    type_name: str | None
    gender: str | None
    ofsted_rating: int | None
    min_score: float | None
    sort: SortOrder | None
    page: int
    per_page: int


@frozen(kw_only=True)
class Profile:
    school: School
    links: tuple[EstablishmentLink, ...]


@frozen(kw_only=True)
class AuthorityQuery:
    text: str | None
    page: PageRequest


@frozen(kw_only=True)
class AuthorityCount:
    code: str | None
    name: str
    schools: int


class CommercialSchools:
    def __init__(
        self, *, schools: SchoolReader, postcodes: PostcodeDirectory, links: LinkReader
    ) -> None:
        self._schools = schools
        self._postcodes = postcodes
        self._links = links

    def find(self, request: ListRequest) -> ListAnswer:
        """Answer a prepared question: locate its postcode (unknown -> unknown_postcode), search."""
        origin = request.origin
        if isinstance(origin, PostcodeOrigin):
            origin = locate_parsed(self._postcodes, origin.parsed, origin.raw)
        query = SchoolQuery(
            text=request.text,
            near=Proximity(origin, request.radius_miles) if origin is not None else None,
            phases=request.phases,
            local_authority=request.local_authority,
            type_name=request.type_name,
            gender=request.gender,
            ofsted_rating=request.ofsted_rating,
            min_score=request.min_score,
            sort=request.sort,
            offset=(request.page - 1) * request.per_page,
            limit=request.per_page,
        )
        result = self._schools.search(query=query)
        return ListAnswer(
            page=request.page,
            per_page=request.per_page,
            result=result,
            with_distance=origin is not None,
        )

    def profile(self, raw_urn: object) -> Profile:
        urn = Urn.parse(raw_urn)
        school = self._schools.get(urn=urn)
        if school is None:
            raise SchoolNotFound(urn)
        return Profile(school=school, links=tuple(self._links.links_for(urn=urn)))

    def local_authorities(self, request: AuthorityQuery) -> Page[AuthorityCount]:
        wanted = request.text
        return request.page.of(
            [
                AuthorityCount(code=code, name=name, schools=count)
                for code, name, count in self._schools.local_authorities()
                if wanted is None or normalise(wanted) in normalise(name) or wanted == code
            ]
        )
