"""Search: which open schools answer a question, and in what order.

One pure evaluator (`evaluate`) is the whole rule. Stores may prefilter candidates with their
own indexes, but every store hands its candidates to `evaluate`, so SQLite, PostgreSQL and the
in-memory store give the same answer to the same question by construction.

Rules:
- Text: every query token must prefix-match a token of the school's name, local authority or
  type (case-, accent- and punctuation-insensitive). Ranking prefers an exact name, then a name
  that starts with the query, then the whole query inside the name, then word matches in the
  name over matches in the authority or type. Ties break by URN, ascending.
- Proximity: great-circle miles from the origin; schools without a location never match a
  proximity question; nearest first; at most `radius_miles` when a radius is given.
- Filters (phase, authority, type, gender, Ofsted grade, minimum score) are exact matches on
  normalised values; a school lacking the filtered value does not match.
"""

from __future__ import annotations

import enum
import heapq
import math
from collections.abc import Callable, Iterable

from attrs import frozen

from schooldata.domain.errors import InvalidParameter, MissingSearchInput
from schooldata.domain.geo import Location, distance_miles, shown_distance
from schooldata.domain.phase import Phase
from schooldata.domain.school import School
from schooldata.domain.text import normalise

MIN_QUERY_LENGTH = 2
MIN_RADIUS_MILES = 0.1
MAX_RADIUS_MILES = 100.0
PUBLIC_DEFAULT_LIMIT = 10
PUBLIC_MAX_LIMIT = 25


class SortOrder(enum.Enum):
    RELEVANCE = "relevance"
    DISTANCE = "distance"
    NAME = "name"
    URN = "urn"
    SCORE = "score"


SORT_VALUES: tuple[str, ...] = tuple(s.value for s in SortOrder)


@frozen
class TextQuery:
    raw: str
    normalised: str
    tokens: tuple[str, ...]

    @classmethod
    def parse(cls, raw: str) -> TextQuery:
        # The contract's bound is on the text as sent ("minimum length 2"); a query that
        # normalises to nothing (`--`, two spaces) is a valid question that matches nothing.
        if len(raw) < MIN_QUERY_LENGTH:
            raise InvalidParameter("query", "query must be at least 2 characters long.")
        normalised = normalise(raw)
        return cls(raw=raw, normalised=normalised, tokens=tuple(normalised.split()))


@frozen
class Proximity:
    origin: Location
    radius_miles: float | None = None


@frozen(kw_only=True)
class SchoolQuery:
    """A fully validated question. Build it with the `validate_*` helpers, not by hand."""

    text: TextQuery | None = None
    near: Proximity | None = None
    phases: frozenset[Phase] = frozenset()
    local_authority: str | None = None
    type_name: str | None = None
    gender: str | None = None
    ofsted_rating: int | None = None
    min_score: float | None = None
    sort: SortOrder | None = None
    offset: int = 0
    limit: int = PUBLIC_DEFAULT_LIMIT

    @property
    def effective_sort(self) -> SortOrder:
        if self.sort is not None:
            return self.sort
        if self.near is not None:
            return SortOrder.DISTANCE
        if self.text is not None:
            return SortOrder.RELEVANCE
        return SortOrder.NAME


@frozen
class SearchHit:
    school: School
    distance_miles: float | None = None
    relevance: float = 0.0


@frozen
class SearchPage:
    total: int
    hits: tuple[SearchHit, ...] = ()


def validate_radius(radius: float | None) -> float | None:
    if radius is None:
        return None
    if not math.isfinite(radius) or not MIN_RADIUS_MILES <= radius <= MAX_RADIUS_MILES:
        raise InvalidParameter("radius_miles", "radius_miles must be between 0.1 and 100.")
    return float(radius)


def validate_limit(limit: object, *, default: int, maximum: int, name: str = "limit") -> int:
    """Any value a caller sent (hence `object`): None is the default, an integer in range is
    kept, anything else is an `InvalidParameter`."""
    if limit is None:
        return default
    if isinstance(limit, bool) or not isinstance(limit, int):  # 2.0 would reach a slice
        raise InvalidParameter(name, f"{name} must be an integer.")
    if not 1 <= limit <= maximum:
        raise InvalidParameter(name, f"{name} must be between 1 and {maximum}.")
    return limit


def require_some_input(query: str | None, postcode: str | None) -> None:
    if query is None and postcode is None:
        raise MissingSearchInput()


# ---------------------------------------------------------------------------- evaluation


def text_relevance(text: TextQuery, school: School) -> float | None:
    """The text score of a school, or None when some query token matches nothing."""
    if not text.tokens:
        return None
    text_of = school.search_text
    name_norm, name_tokens, other_tokens = text_of.name, text_of.name_tokens, text_of.other_tokens
    score = 0.0
    for token in text.tokens:
        best = _token_score(token, name_tokens, exact=30.0, prefix=20.0)
        if best == 0.0:
            best = _token_score(token, other_tokens, exact=10.0, prefix=5.0)
        if best == 0.0:
            return None
        score += best
    if name_norm == text.normalised:
        score += 1000.0
    elif name_norm.startswith(text.normalised):
        score += 500.0
    elif holds_phrase(name_norm, text.normalised):
        score += 200.0
    return score


def holds_phrase(name: str, phrase: str) -> bool:
    """Whether the normalised `name` holds the normalised `phrase` as whole consecutive words
    (` phrase ` in ` name `), found without building either padded string."""
    end_of_name = len(name)
    found = name.find(phrase)
    while found >= 0:
        end = found + len(phrase)
        if (found == 0 or name[found - 1] == " ") and (end == end_of_name or name[end] == " "):
            return True
        found = name.find(phrase, found + 1)
    return False


def _token_score(token: str, candidates: tuple[str, ...], *, exact: float, prefix: float) -> float:
    best = 0.0
    for candidate in candidates:
        if candidate == token:
            return exact
        if candidate.startswith(token):
            best = prefix
    return best


def matches_filters(query: SchoolQuery, school: School) -> bool:
    """The non-text, non-distance filters (phase, authority, type, gender, Ofsted, score)."""
    if query.phases and school.phase not in query.phases:
        return False
    if query.local_authority is not None and not _same_authority(query.local_authority, school):
        return False
    text_of = school.search_text
    if query.type_name is not None and text_of.type_name != query.type_name:
        return False
    if query.gender is not None and text_of.gender != query.gender:
        return False
    if query.ofsted_rating is not None and school.ofsted_rating != query.ofsted_rating:
        return False
    return query.min_score is None or (
        school.svc_score is not None and school.svc_score >= query.min_score
    )


def _same_authority(wanted: str, school: School) -> bool:
    return wanted == school.search_text.authority or wanted == (school.la_code or "").lower()


def match(query: SchoolQuery, school: School) -> SearchHit | None:
    """Does this school answer the question? If so, with what distance and relevance."""
    if not matches_filters(query, school):
        return None
    relevance = 0.0
    if query.text is not None:
        found = text_relevance(query.text, school)
        if found is None:
            return None
        relevance = found
    distance: float | None = None
    if query.near is not None:
        if school.location is None:
            return None
        distance = distance_miles(query.near.origin, school.location)
        if query.near.radius_miles is not None and distance > query.near.radius_miles:
            return None
    return SearchHit(school=school, distance_miles=distance, relevance=relevance)


def sort_key(order: SortOrder) -> Callable[[SearchHit], tuple[object, ...]]:
    """Total orders: every key ends with the URN, so paging is deterministic."""
    if order is SortOrder.DISTANCE:
        return lambda h: (
            shown_distance(h.distance_miles) if h.distance_miles is not None else math.inf,
            h.school.urn.value,
        )
    if order is SortOrder.RELEVANCE:
        return lambda h: (-h.relevance, h.school.urn.value)
    if order is SortOrder.NAME:
        return lambda h: (h.school.search_text.name, h.school.urn.value)
    if order is SortOrder.SCORE:
        return lambda h: (
            h.school.svc_score is None,
            -(h.school.svc_score or 0.0),
            h.school.urn.value,
        )
    return lambda h: (h.school.urn.value,)


def evaluate(query: SchoolQuery, candidates: Iterable[School]) -> SearchPage:
    """Answer a question from candidate schools (a superset of the true matches)."""
    return page_of(query, matches(query, candidates))


def matches(query: SchoolQuery, candidates: Iterable[School]) -> list[SearchHit]:
    """Every candidate that answers the question, unordered."""
    return [hit for school in candidates if (hit := match(query, school)) is not None]


def page_of(query: SchoolQuery, hits: list[SearchHit], total: int | None = None) -> SearchPage:
    """The question's page of `hits` in its order (`total`: every match, when `hits` is not)."""
    wanted = query.offset + query.limit
    ordered = heapq.nsmallest(wanted, hits, key=sort_key(query.effective_sort))
    return SearchPage(
        total=len(hits) if total is None else total, hits=tuple(ordered[query.offset : wanted])
    )
