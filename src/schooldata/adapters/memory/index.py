"""An in-memory index over schools: token prefixes for text, a grid for proximity.

Prefilters only; `domain.search.evaluate` makes every decision, so results equal any other
store's. The grid uses 0.05-degree cells (about 3.5 x 2 miles in the UK).
"""

from __future__ import annotations

import bisect
import math
from collections import defaultdict
from collections.abc import Iterable

import attrs

from schooldata.domain.geo import bounding_box
from schooldata.domain.school import School
from schooldata.domain.search import (
    MAX_RADIUS_MILES,
    Proximity,
    SchoolQuery,
    SearchPage,
    SortOrder,
    evaluate,
    matches_filters,
)
from schooldata.domain.text import tokens
from schooldata.domain.urn import Urn

CELL_DEGREES = 0.05


def _cell(latitude: float, longitude: float) -> tuple[int, int]:
    return (math.floor(latitude / CELL_DEGREES), math.floor(longitude / CELL_DEGREES))


class SchoolIndex:
    def __init__(self, schools: Iterable[School]) -> None:
        self.by_urn: dict[Urn, School] = {s.urn: s for s in schools}
        postings: dict[str, set[Urn]] = defaultdict(set)
        grid: dict[tuple[int, int], list[School]] = defaultdict(list)
        for school in self.by_urn.values():
            for token in {*tokens(school.name), *tokens(school.la_name), *tokens(school.type_name)}:
                postings[token].add(school.urn)
            if school.location is not None:
                grid[_cell(school.location.latitude, school.location.longitude)].append(school)
        self._vocabulary = sorted(postings)
        self._postings = dict(postings)
        self._grid = dict(grid)
        self.ordered: list[School] = sorted(self.by_urn.values(), key=lambda s: s.urn.value)

    def _urns_with_prefix(self, prefix: str) -> set[Urn]:
        found: set[Urn] = set()
        start = bisect.bisect_left(self._vocabulary, prefix)
        for token in self._vocabulary[start:]:
            if not token.startswith(prefix):
                break
            found |= self._postings[token]
        return found

    def candidates(self, query: SchoolQuery) -> Iterable[School]:
        """A superset of the schools that can match `query`."""
        if query.text is not None:
            if not query.text.tokens:
                return []
            sets = sorted((self._urns_with_prefix(t) for t in query.text.tokens), key=len)
            urns = set.intersection(*sets)
            return [self.by_urn[u] for u in urns]
        if query.near is not None and query.near.radius_miles is not None:
            return self._within_box(query)
        return self.ordered

    def answer(self, query: SchoolQuery) -> SearchPage:
        """The same answer as `evaluate` over every school, found faster.

        Nearest-first questions without a radius would otherwise measure the distance to every
        school: instead, grow a radius until it holds enough matches (every school outside it is
        farther than every school inside), and count the total without measuring distances."""
        near = query.near
        unbounded_nearest = (
            near is not None
            and near.radius_miles is None
            and query.text is None
            and query.effective_sort is SortOrder.DISTANCE
        )
        if not unbounded_nearest or near is None:
            return evaluate(query, self.candidates(query))
        wanted = query.offset + query.limit
        radius = 1.0
        while radius < MAX_RADIUS_MILES * 4:
            bounded = attrs.evolve(query, near=Proximity(near.origin, radius))
            page = evaluate(bounded, self.candidates(bounded))
            if page.total >= wanted:
                total = sum(
                    1 for s in self.ordered if s.location is not None and matches_filters(query, s)
                )
                return SearchPage(total=total, hits=page.hits)
            radius *= 4
        return evaluate(query, self.ordered)

    def _within_box(self, query: SchoolQuery) -> list[School]:
        assert query.near is not None
        assert query.near.radius_miles is not None
        box = bounding_box(query.near.origin, query.near.radius_miles)
        lo = _cell(box.min_latitude, box.min_longitude)
        hi = _cell(box.max_latitude, box.max_longitude)
        if (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) > len(self._grid):
            return self.ordered
        found: list[School] = []
        for i in range(lo[0], hi[0] + 1):
            for j in range(lo[1], hi[1] + 1):
                found.extend(self._grid.get((i, j), ()))
        return found
