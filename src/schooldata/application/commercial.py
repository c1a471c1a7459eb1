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

Two steps, so a face can tell a caller's mistake from what the data says: `prepare_*` checks
every parameter rule (cross-parameter ones included) and looks nothing up, so whatever it
raises is an argument error; `find` looks the postcode up (unknown -> unknown_postcode) and
searches. `list`, `search` and `nearby` do both.
"""

from __future__ import annotations

from collections.abc import Collection

from attrs import frozen

from schooldata.application import parameters as p
from schooldata.application.locate import locate_parsed
from schooldata.application.paging import Page, PageRequest
from schooldata.domain.errors import InvalidParameter, SchoolNotFound
from schooldata.domain.geo import Location
from schooldata.domain.links import EstablishmentLink
from schooldata.domain.phase import Phase, parse_phase
from schooldata.domain.plans import Plan
from schooldata.domain.postcode import PostcodeQuery, parse_postcode
from schooldata.domain.school import School
from schooldata.domain.search import (
    MAX_RADIUS_MILES,
    MIN_RADIUS_MILES,
    SORT_VALUES,
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

PAGING = ("page", "per_page")
FILTERS = ("local_authority", "phase", "type", "gender", "ofsted_rating", "min_score", "sort")
ORIGIN = ("postcode", "latitude", "longitude", "radius_miles")
# The commercial filter's bound on a postcode as sent (the longest real one, `SW1A 1AA`-shaped
# with spaces to spare); the public search has none (the contract gives only a minimum).
POSTCODE_MAX_LENGTH = 16
LIST_PARAMETERS = frozenset({"q", *ORIGIN, *FILTERS, *PAGING})
SEARCH_PARAMETERS = frozenset({"q", *FILTERS, *PAGING})
NEARBY_PARAMETERS = frozenset({"q", *ORIGIN, *FILTERS, *PAGING})
AUTHORITY_PARAMETERS = frozenset({"q", *PAGING})
GENDERS = ("mixed", "boys", "girls")


@frozen(kw_only=True)
class ListAnswer:
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


@frozen(kw_only=True)
class ListRequest:
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

    def list(self, params: p.Params, plan: Plan) -> ListAnswer:
        return self.find(self.prepare_list(params, plan))

    def search(self, params: p.Params, plan: Plan) -> ListAnswer:
        return self.find(self.prepare_search(params, plan))

    def nearby(self, params: p.Params, plan: Plan) -> ListAnswer:
        return self.find(self.prepare_nearby(params, plan))

    def prepare_list(self, params: p.Params, plan: Plan) -> ListRequest:
        return self._prepare(params, plan, LIST_PARAMETERS)

    def prepare_search(self, params: p.Params, plan: Plan) -> ListRequest:
        p.reject_unknown(params, SEARCH_PARAMETERS)  # unknown names first, on every list
        if params.get("q") is None:
            raise InvalidParameter("q", "q (at least 2 characters) is required for search.")
        return self._prepare(params, plan, SEARCH_PARAMETERS)

    def prepare_nearby(self, params: p.Params, plan: Plan) -> ListRequest:
        p.reject_unknown(params, NEARBY_PARAMETERS)
        if params.get("postcode") is None and params.get("latitude") is None:
            raise InvalidParameter(
                "postcode", "nearby needs a postcode, or latitude and longitude."
            )
        return self._prepare(params, plan, NEARBY_PARAMETERS)

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

    def local_authorities(self, params: p.Params, plan: Plan) -> Page[AuthorityCount]:
        p.reject_unknown(params, AUTHORITY_PARAMETERS)
        wanted = p.text(params, "q", min_length=2)
        page = PageRequest.parse(params, plan)
        return page.of(
            [
                AuthorityCount(code=code, name=name, schools=count)
                for code, name, count in self._schools.local_authorities()
                if wanted is None or normalise(wanted) in normalise(name) or wanted == code
            ]
        )

    # ------------------------------------------------------------------ shared query rules

    def _prepare(self, params: p.Params, plan: Plan, allowed: Collection[str]) -> ListRequest:
        p.reject_unknown(params, allowed)
        query_text = p.text(params, "q", min_length=2)
        # Parsed as sent (its two-character minimum counts the text as sent, as the public
        # query's does); normalising drops the spaces.
        text = TextQuery.parse(str(params["q"])) if query_text is not None else None
        origin, radius = self._origin(params)
        phase = p.text(params, "phase")
        sort_name = p.choice(params, "sort", SORT_VALUES)
        sort = SortOrder(sort_name) if sort_name is not None else None
        if sort is SortOrder.DISTANCE and origin is None:
            raise InvalidParameter("sort", "sort=distance needs a postcode or latitude/longitude.")
        if sort is SortOrder.RELEVANCE and text is None:
            raise InvalidParameter("sort", "sort=relevance needs q.")
        page = p.integer(params, "page", minimum=1, maximum=p.MAX_PAGE) or 1
        per_page = plan.per_page(p.integer(params, "per_page"))
        local_authority = p.text(params, "local_authority", min_length=1)
        type_name = p.text(params, "type", min_length=1)
        return ListRequest(
            text=text,
            origin=origin,
            radius_miles=radius,
            phases=frozenset({parse_phase(phase)}) if phase is not None else frozenset(),
            local_authority=normalise(local_authority) if local_authority is not None else None,
            type_name=normalise(type_name) if type_name is not None else None,
            gender=p.choice(params, "gender", GENDERS),
            ofsted_rating=p.integer(params, "ofsted_rating", minimum=1, maximum=4),
            min_score=p.number(params, "min_score", minimum=0, maximum=100),
            sort=sort,
            page=page,
            per_page=per_page,
        )

    @staticmethod
    def _origin(params: p.Params) -> tuple[Location | PostcodeOrigin | None, float | None]:
        postcode = p.text(params, "postcode", min_length=2, max_length=POSTCODE_MAX_LENGTH)
        latitude = p.number(params, "latitude", minimum=-90, maximum=90)
        longitude = p.number(params, "longitude", minimum=-180, maximum=180)
        radius = p.number(
            params, "radius_miles", minimum=MIN_RADIUS_MILES, maximum=MAX_RADIUS_MILES
        )
        if (latitude is None) != (longitude is None):
            raise InvalidParameter("latitude", "latitude and longitude go together.")
        if postcode is not None and latitude is not None:
            raise InvalidParameter("postcode", "Give a postcode or latitude/longitude, not both.")
        if postcode is not None:
            return PostcodeOrigin(raw=postcode, parsed=parse_postcode(postcode)), radius
        if latitude is not None and longitude is not None:
            return Location(latitude, longitude), radius
        if radius is not None:
            raise InvalidParameter(
                "radius_miles", "radius_miles needs a postcode or latitude/longitude."
            )
        return None, None
