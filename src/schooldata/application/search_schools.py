"""Public search (operation `searchSchools`, MCP `search_schools` without a key)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from attrs import frozen

from schooldata.application import parameters as p
from schooldata.application.locate import locate_parsed
from schooldata.domain.errors import InvalidParameter
from schooldata.domain.phase import Phase, parse_phase
from schooldata.domain.postcode import PostcodeQuery, parse_postcode
from schooldata.domain.search import (
    PUBLIC_DEFAULT_LIMIT,
    PUBLIC_MAX_LIMIT,
    Proximity,
    SchoolQuery,
    SearchHit,
    SearchPage,
    TextQuery,
    require_some_input,
    validate_limit,
    validate_radius,
)
from schooldata.ports.postcodes import PostcodeDirectory
from schooldata.ports.schools import SchoolReader

PUBLIC_SEARCH_PARAMETERS = ("query", "postcode", "phase", "radius_miles", "limit")


@frozen(kw_only=True)
class PublicSearchRequest:
    query: str | None = None
    postcode: str | None = None
    phase: str | None = None
    radius_miles: float | None = None
    limit: int | None = None

    @classmethod
    def from_params(cls, params: Mapping[str, object]) -> PublicSearchRequest:
        """Read the five parameters from any face: text (a query string, a command line) or
        JSON values. `limit` is an integer ("10", 10 or 10.0, not "10.0" or 2.5) and
        `radius_miles` a finite number; the texts are kept as given (they are echoed).
        Other names are not the public search's: it ignores them."""
        return cls(
            query=_text(params, "query"),
            postcode=_text(params, "postcode"),
            phase=_text(params, "phase"),
            radius_miles=p.number(params, "radius_miles"),
            limit=p.integer(params, "limit"),
        )


@frozen(kw_only=True)
class PreparedSearch:
    """A public search whose every parameter is valid; the postcode is not looked up yet."""

    request: PublicSearchRequest
    text: TextQuery | None
    postcode: PostcodeQuery | None
    phases: frozenset[Phase]
    radius_miles: float | None
    limit: int


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
        return self.run(self.prepare(request))

    @staticmethod
    def prepare(request: PublicSearchRequest) -> PreparedSearch:
        """Every parameter rule, nothing looked up: what this raises is the caller's mistake."""
        require_some_input(request.query, request.postcode)
        text = TextQuery.parse(request.query) if request.query is not None else None
        # Shape errors of the postcode before any other parameter's.
        postcode = parse_postcode(request.postcode) if request.postcode is not None else None
        phases = frozenset({parse_phase(request.phase)}) if request.phase is not None else None
        radius = validate_radius(request.radius_miles)
        limit = validate_limit(
            request.limit, default=PUBLIC_DEFAULT_LIMIT, maximum=PUBLIC_MAX_LIMIT
        )
        return PreparedSearch(
            request=request,
            text=text,
            postcode=postcode,
            phases=phases or frozenset(),
            radius_miles=radius,
            limit=limit,
        )

    def run(self, prepared: PreparedSearch) -> PublicSearchAnswer:
        """Locate the postcode (unknown -> unknown_postcode) and search."""
        near = self._near(prepared)
        page = self._schools.search(query=self._query(prepared, near, 0, prepared.limit))
        return PublicSearchAnswer(
            request=prepared.request,
            limit=prepared.limit,
            page=page,
            with_distance=near is not None,
        )

    def every(self, request: PublicSearchRequest, *, batch: int = 1_000) -> Iterator[SearchHit]:
        """Every match of the public question, in the public order: the question `execute`
        answers, read `batch` at a time instead of cut at `limit` (the analysts' `search
        --all`). Its first `limit` hits are exactly `execute`'s results."""
        prepared = self.prepare(request)
        near = self._near(prepared)
        offset = 0
        while True:
            page = self._schools.search(query=self._query(prepared, near, offset, batch))
            yield from page.hits
            offset += len(page.hits)
            if not page.hits or offset >= page.total:
                return

    def _near(self, prepared: PreparedSearch) -> Proximity | None:
        request = prepared.request
        if prepared.postcode is None or request.postcode is None:
            return None
        location = locate_parsed(self._postcodes, prepared.postcode, request.postcode)
        return Proximity(location, prepared.radius_miles)

    @staticmethod
    def _query(
        prepared: PreparedSearch, near: Proximity | None, offset: int, limit: int
    ) -> SchoolQuery:
        return SchoolQuery(
            text=prepared.text, near=near, phases=prepared.phases, offset=offset, limit=limit
        )


def _text(params: Mapping[str, object], name: str) -> str | None:
    value = params.get(name)
    if value is None or isinstance(value, str):
        return value
    raise InvalidParameter(name, f"{name} must be a string.")
