"""The public contract's answers built from domain types: the search answer, the school record
and the error (their shapes: `public_shapes`)."""

from __future__ import annotations

from typing import Any

from msgspec import UNSET
from msgspec.structs import replace

from schooldata.application.search_schools import PublicSearchAnswer
from schooldata.domain.errors import without_keys
from schooldata.domain.geo import shown_distance
from schooldata.domain.school import School
from schooldata.domain.search import SearchHit
from schooldata.entrypoints.wire.common import (
    location,
    phase,
    school_url,
)
from schooldata.entrypoints.wire.fragments import Members, cut_at_distance, encode
from schooldata.entrypoints.wire.memo import PerSchool
from schooldata.entrypoints.wire.public_shapes import Error as Error
from schooldata.entrypoints.wire.public_shapes import SchoolSearchResult as SchoolSearchResult
from schooldata.entrypoints.wire.public_shapes import SearchResponse as SearchResponse
from schooldata.entrypoints.wire.records import public_record


def _search_result(s: School, base_url: str) -> SchoolSearchResult:
    return SchoolSearchResult(
        urn=s.urn.value,
        name=s.name,
        phase=phase(s.phase),
        type=s.type_name,
        local_authority=s.la_name,
        location=location(s.location),
        ofsted_rating=s.ofsted_rating,
        svc_score=s.svc_score,
        score_suppressed=s.score_suppressed,
        url=school_url(base_url, s.urn),
    )


_DISTANCE = b',"distanceMiles":'


def _result_and_cut(s: School, base_url: str) -> tuple[SchoolSearchResult, bytes, bytes]:
    result = _search_result(s, base_url)
    return result, *cut_at_distance(result, _DISTANCE)


# A school's result and its JSON cut where a distance goes, side by side in one flat tuple: an
# answer made from the JSON and summarised from the Struct (MCP) reads one entry of one memo
# per school, and no tuple inside it.
_SEARCH_RESULTS = PerSchool(_result_and_cut)


def plain_search_result(school: School, base_url: str) -> SchoolSearchResult:
    """A school's search result without a distance, made once per data version."""
    return _SEARCH_RESULTS(school, base_url)[0]


def distance_shown(hit: SearchHit, with_distance: bool) -> float | None:
    """The distance a result shows (rounded as shown), or None: none asked for, or none."""
    distance = hit.distance_miles
    return shown_distance(distance) if with_distance and distance is not None else None


def search_result(hit: SearchHit, *, base_url: str, with_distance: bool) -> SchoolSearchResult:
    result = _SEARCH_RESULTS(hit.school, base_url)[0]
    distance = distance_shown(hit, with_distance)
    return result if distance is None else replace(result, distance_miles=distance)


def search_response(answer: PublicSearchAnswer, *, base_url: str) -> SearchResponse:
    with_distance = answer.with_distance
    results = [
        search_result(h, base_url=base_url, with_distance=with_distance) for h in answer.page.hits
    ]
    return _response(answer, results)


def search_head(answer: PublicSearchAnswer) -> SearchResponse:
    """The answer with no results: what it says besides them."""
    return _response(answer, [])


def _response(answer: PublicSearchAnswer, results: list[SchoolSearchResult]) -> SearchResponse:
    request = answer.request
    query: str | None = request.query
    return SearchResponse(
        # The question is repeated, except a key pasted into it (DECISIONS: Authentication 5).
        query=query if query is None else without_keys(query),
        postcode=request.postcode,
        phase=request.phase,
        radius_miles=request.radius_miles,
        total=answer.page.total,
        limit=answer.limit,
        results=results,
    )


def search_response_json(answer: PublicSearchAnswer, *, base_url: str) -> bytes:
    """`msgspec.json.encode(search_response(answer, ...))`, byte for byte, from each school's
    result encoded once per data version (`fragments`)."""
    head = encode(_response(answer, []))
    results = Members()
    with_distance = answer.with_distance
    for hit in answer.page.hits:
        shown = distance_shown(hit, with_distance)
        _, before, after = _SEARCH_RESULTS(hit.school, base_url)
        results.add(before, after, _DISTANCE, shown)
    return results.spliced(head, b'"results":[]')


def _school_record(school: School, base_url: str) -> Any:
    return public_record(school, url=school_url(base_url, school.urn))


def _synthetic_record(school: School, base_url: str) -> Any:
    return public_record(school, url=school_url(base_url, school.urn), synthetic=True)


# One memo per label: whether the data is synthetic changes only with the data version, as
# the school objects do, but a school object is never let stand for both.
_RECORDS = PerSchool(_school_record)
_SYNTHETIC_RECORDS = PerSchool(_synthetic_record)


def school_record(school: School, *, base_url: str, synthetic: bool = False) -> Any:
    """The open `SchoolRecord` (a `records.SchoolRecord`); `synthetic: true` when it is
    served from the bundled demo (invented schools), absent on real data."""
    return (_SYNTHETIC_RECORDS if synthetic else _RECORDS)(school, base_url)


def public_error(message: str, code: str | None = None) -> Error:
    return Error(error=message, code=UNSET if code is None else code)
