"""Search hits built for the in-memory index's hot loops.

attrs' generated `__init__` runs interpreted (~0.36 us a hit) and a page builds up to 25 of
them, so `search_hit` sets a `SearchHit`'s slots through their own descriptors (~0.2 us): the
very instance the class builds, equal, hashed and shown alike (tests/unit/test_memory_hits.py).
"""

from __future__ import annotations

from schooldata.domain.school import School
from schooldata.domain.search import SearchHit

_new_object = object.__new__
_set_school = SearchHit.__dict__["school"].__set__
_set_distance = SearchHit.__dict__["distance_miles"].__set__
_set_relevance = SearchHit.__dict__["relevance"].__set__


def search_hit(
    school: School, distance_miles: float | None = None, relevance: float = 0.0
) -> SearchHit:
    """`SearchHit(school, distance_miles, relevance)`."""
    hit: SearchHit = _new_object(SearchHit)
    _set_school(hit, school)
    _set_distance(hit, distance_miles)
    _set_relevance(hit, relevance)
    return hit
