"""An in-memory index over schools: token prefixes for text, strips for proximity, and sets
and precomputed orders for filters and sorting.

`domain.search` defines every answer; the index finds the same answer faster, and results
equal `evaluate` over every school (tests/unit/test_memory_index.py checks that property):

- A radius without text is answered from the proximity strips (`proximity`); other proximity
  questions take their candidates from the same strips and hand them to `evaluate`.
- Other questions never look at a school one by one. The text matches are the intersection of
  the query tokens' postings (`postings`: a school matches exactly when each query token
  prefixes one of its name, authority or type words), as `Bits` (positions in URN order);
  phase and authority filters are intersections too. The total is the size of the set. The
  page comes from score groups (`relevance`) or from an order precomputed once per index
  (name, URN, score orders).

Postings hold URN values (ints), whose hashing and comparison are native, not Urn objects.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable
from itertools import chain
from operator import attrgetter
from typing import Final, TypeVar

import attrs

from schooldata.adapters.memory.bits import Bits
from schooldata.adapters.memory.hits import search_hit
from schooldata.adapters.memory.postings import CACHE_BUDGET_URNS, EMPTY, Budget, Postings
from schooldata.adapters.memory.proximity import ProximityStrips
from schooldata.adapters.memory.relevance import Relevance
from schooldata.adapters.memory.smallest import smallest, smallest_by
from schooldata.domain.geo import SHOWN_DISTANCE_STEP, Location
from schooldata.domain.phase import Phase
from schooldata.domain.school import School
from schooldata.domain.search import (
    MAX_RADIUS_MILES,
    Proximity,
    SchoolQuery,
    SearchHit,
    SearchPage,
    SortOrder,
    TextQuery,
    evaluate,
    matches,
    matches_filters,
    page_of,
    sort_key,
    text_relevance,
)
from schooldata.domain.urn import Urn

_URN_VALUE: Final = attrgetter("urn.value")
Key = TypeVar("Key")


def _urn_values(schools: Iterable[School]) -> list[int]:
    """Each school's URN value, the school's own int object."""
    # Read and stored by C (`map`): compiled, an int passed through an `int` variable is
    # stored as a new object, a copy in every posting (~20 MB at national scale).
    return list(map(_URN_VALUE, schools))


def _urn_set(schools: Iterable[School]) -> set[int]:
    """`_urn_values` as a set (built by C alike)."""
    return set(map(_URN_VALUE, schools))


class SchoolIndex:
    def __init__(self, schools: Iterable[School]) -> None:
        self.by_urn: dict[Urn, School] = {s.urn: s for s in schools}
        self.ordered: list[School] = sorted(self.by_urn.values(), key=lambda s: s.urn.value)
        values = _urn_values(self.ordered)
        self._by_value: dict[int, School] = dict(zip(values, self.ordered, strict=True))
        # The schools of each token, phase and authority, made sets of URN values below.
        in_name: dict[str, list[School]] = defaultdict(list)
        in_other: dict[str, list[School]] = defaultdict(list)
        by_phase: dict[Phase | None, list[School]] = defaultdict(list)
        by_authority: dict[str, list[School]] = defaultdict(list)
        by_la_code: dict[str, list[School]] = defaultdict(list)
        for school in self.ordered:
            text = school.search_text
            for token in text.name_tokens:
                in_name[token].append(school)
            for token in text.other_tokens:
                in_other[token].append(school)
            by_phase[school.phase].append(school)
            by_authority[text.authority].append(school)
            by_la_code[(school.la_code or "").lower()].append(school)
        every = {
            token: _urn_set(chain(in_name.get(token, ()), in_other.get(token, ())))
            for token in in_name.keys() | in_other.keys()
        }
        self._position_of: dict[int, int] = dict(zip(values, range(len(values)), strict=True))
        self._none = Bits.empty(len(values))
        self._cache = Budget(CACHE_BUDGET_URNS)
        self._every = Postings(every, self._cache, self._position_of)
        self._by_phase = _urn_sets(by_phase)
        self._phase_bits: dict[Phase | None, Bits] = {
            phase: Bits.of_values(members, self._position_of)
            for phase, members in self._by_phase.items()
        }
        self._authority_bits: dict[str, Bits] = {}
        self._by_authority = _urn_sets(by_authority)
        self._by_la_code = _urn_sets(by_la_code)
        self._near = ProximityStrips(self.ordered, values)
        # The orders of `domain.search.sort_key` without text or distance, as URN lists.
        self._orders: dict[SortOrder, list[int]] = {
            order: _urn_values(
                h.school
                for h in sorted((SearchHit(school=s) for s in self.ordered), key=sort_key(order))
            )
            for order in (SortOrder.NAME, SortOrder.SCORE)
        }
        self._orders[SortOrder.URN] = values
        self._orders[SortOrder.DISTANCE] = self._orders[SortOrder.URN]  # no origin: by URN
        self._positions: dict[SortOrder, dict[int, int]] = {}
        in_name_postings = Postings(_urn_sets(in_name), self._cache, self._position_of)
        in_other_postings = Postings(_urn_sets(in_other), self._cache, self._position_of)
        self._cache.on_full += [
            self._every.forget,
            in_name_postings.forget,
            in_other_postings.forget,
        ]
        self._relevance = Relevance(
            in_name=in_name_postings,
            in_other=in_other_postings,
            ordered=self.ordered,
            positions=self._position_of,
            cache=self._cache,
        )

    # ------------------------------------------------------------------ candidates

    def _text_matches(self, text: TextQuery) -> Bits:
        """The schools every query token prefix-matches (name, LA or type)."""
        every = self._every
        tokens = text.tokens
        found = every.prefix_bits(tokens[0])
        for token in tokens[1:]:
            found = found & every.prefix_bits(token)
        return found

    def candidates(self, query: SchoolQuery) -> Iterable[School]:
        """A superset of the schools that can match `query`."""
        if query.text is not None:
            if not query.text.tokens:
                return []
            ordered = self.ordered
            return [ordered[p] for p in self._text_matches(query.text).positions()]
        if query.near is not None and query.near.radius_miles is not None:
            return self._near.in_box(query.near.origin, query.near.radius_miles)
        return self.ordered

    def _filtered(
        self, query: SchoolQuery, members: Collection[int] | None
    ) -> Collection[int] | None:
        """`members` (None: every school) less the schools the filters reject."""
        if query.phases:
            phases = [self._by_phase.get(p, EMPTY) for p in query.phases]
            allowed = phases[0] if len(phases) == 1 else frozenset().union(*phases)
            members = allowed if members is None else allowed.intersection(members)
        if query.local_authority is not None:
            wanted = query.local_authority
            allowed = self._by_authority.get(wanted, EMPTY) | self._by_la_code.get(wanted, EMPTY)
            members = allowed if members is None else allowed.intersection(members)
        if (
            query.type_name is not None
            or query.gender is not None
            or query.ofsted_rating is not None
            or query.min_score is not None
        ):
            pool = self._orders[SortOrder.URN] if members is None else members
            members = {v for v in pool if matches_filters(query, self._by_value[v])}
        return members

    def _filtered_matches(self, query: SchoolQuery, members: Bits) -> Bits:
        """`_filtered` of text matches, as `Bits`."""
        if query.phases:
            phases = self._phase_bits
            none = self._none
            allowed: Bits | None = None
            for phase in query.phases:
                one = phases.get(phase, none)
                allowed = one if allowed is None else allowed | one
            members = members & (none if allowed is None else allowed)
        if query.local_authority is not None:
            members = members & self._authority(query.local_authority)
        if (
            query.type_name is not None
            or query.gender is not None
            or query.ofsted_rating is not None
            or query.min_score is not None
        ):
            ordered = self.ordered
            members = Bits.of(
                [p for p in members.positions() if matches_filters(query, ordered[p])],
                len(ordered),
            )
        return members

    def _authority(self, wanted: str) -> Bits:
        """The schools of an authority named or coded `wanted` (memoised for the authorities
        the data holds, so the memo is bounded by the data, not by what clients send)."""
        found = self._authority_bits.get(wanted)
        if found is None:
            named = self._by_authority.get(wanted, EMPTY)
            coded = self._by_la_code.get(wanted, EMPTY)
            if not named and not coded:
                return self._none
            found = Bits.of_values(named | coded, self._position_of)
            self._authority_bits[wanted] = found
        return found

    # ------------------------------------------------------------------ answers

    def answer(self, query: SchoolQuery) -> SearchPage:
        """The same answer as `evaluate` over every school, found faster."""
        near = query.near
        if near is None:
            return self._without_distance(query)
        # Nearest-first questions without a radius would otherwise measure the distance to
        # every school: instead, grow a radius until it holds enough matches (every school
        # outside it is farther than every school inside), and count the total without
        # measuring distances.
        unbounded_nearest = (
            near.radius_miles is None
            and query.text is None
            and query.effective_sort is SortOrder.DISTANCE
        )
        if near.radius_miles is not None and query.text is None:
            return self._within_radius(query, near.origin, near.radius_miles)
        if not unbounded_nearest:
            return evaluate(query, self.candidates(query))
        wanted = query.offset + query.limit
        radius = 1.0
        while radius < MAX_RADIUS_MILES * 4:
            # Orders compare shown distances (four decimals, then URN): a school just outside
            # the radius can share the shown distance of one inside it. So the schools are
            # taken from a radius two steps wider, and the answer stands once `wanted` of them
            # lie within the radius itself: every school after them in the order is then in
            # the wider circle too.
            wider = radius + 2 * SHOWN_DISTANCE_STEP
            bounded = attrs.evolve(query, near=Proximity(near.origin, wider))
            hits = matches(bounded, self.candidates(bounded))
            inside = sum(1 for h in hits if (h.distance_miles or 0.0) <= radius)
            if inside >= wanted:
                total = sum(
                    1 for s in self.ordered if s.location is not None and matches_filters(query, s)
                )
                return page_of(bounded, hits, total)
            radius *= 4
        return evaluate(query, self.ordered)

    def _within_radius(self, query: SchoolQuery, origin: Location, radius: float) -> SearchPage:
        """`evaluate`'s answer for a radius question without text, from the proximity grid:
        the same distances (bit for bit), filters, total and order."""
        filtered = _has_filters(query)
        wanted = query.offset + query.limit
        if query.effective_sort is not SortOrder.DISTANCE:
            found = self._near.within(origin, radius)
            every = [
                SearchHit(school=school, distance_miles=distance)
                for distance, school in found
                if not filtered or matches_filters(query, school)
            ]
            return page_of(query, every)
        # Nearest first: (shown distance, URN), as `sort_key` orders; URNs are unique.
        keep = (lambda school: matches_filters(query, school)) if filtered else None
        total, page = self._near.nearest(origin, radius, wanted, keep)
        hits = tuple(search_hit(s, d) for _, _, d, s in page[query.offset :])
        return SearchPage(total=total, hits=hits)

    def _without_distance(self, query: SchoolQuery) -> SearchPage:
        text = query.text
        if text is None:
            return self._page_in_order(query, self._filtered(query, None))
        if not text.tokens:
            return SearchPage(total=0)
        matches = self._filtered_matches(query, self._text_matches(text))
        wanted = query.offset + query.limit
        if query.effective_sort is not SortOrder.RELEVANCE:
            return self._page_in_order(query, matches)
        ranked = self._relevance.ranked(text, matches, wanted)[query.offset : wanted]
        ordered = self.ordered
        hits = tuple(search_hit(ordered[p], None, score) for score, p in ranked)
        return SearchPage(total=len(matches), hits=hits)

    def _page_in_order(
        self, query: SchoolQuery, found: Collection[int] | Bits | None
    ) -> SearchPage:
        """A page in a precomputed order (URN when the order is relevance without text)."""
        text = query.text
        wanted = query.offset + query.limit
        order = query.effective_sort
        if order is SortOrder.RELEVANCE:
            order = SortOrder.URN  # no text: every relevance is 0, so URN order
        if isinstance(found, Bits):
            total = len(found)
            values = self._orders[SortOrder.URN]
            if order is SortOrder.URN or order is SortOrder.DISTANCE:
                chosen = [values[p] for p in found.lowest(wanted)]
            else:
                members = {values[p] for p in found.positions()}
                chosen = self._first_in_order(order, members, wanted)
        else:
            total = len(self.ordered) if found is None else len(found)
            chosen = self._first_in_order(order, found, wanted)
        by_value = self._by_value
        hits = tuple(
            search_hit(
                by_value[v],
                None,
                ((text_relevance(text, by_value[v]) or 0.0) if text else 0.0),
            )
            for v in chosen[query.offset : wanted]
        )
        return SearchPage(total=total, hits=hits)

    def _first_in_order(
        self, order: SortOrder, members: Collection[int] | None, wanted: int
    ) -> list[int]:
        """The first `wanted` URN values of `members` (None: every school) in `order`."""
        ordered = self._orders[order]
        if members is None:
            return ordered[:wanted]
        if not members or not wanted:
            return []
        if order is SortOrder.URN or order is SortOrder.DISTANCE:
            # (the URN order is the values' own: no position lookups; DISTANCE without an
            # origin is URN order)
            return sorted(members) if len(members) <= wanted else smallest(members, wanted)
        if len(members) <= wanted:
            return sorted(members, key=self._position(order).__getitem__)
        if len(members) * 8 >= len(ordered) or len(members) > 4096:
            found: list[int] = []
            if wanted:
                for v in ordered:
                    if v in members:
                        found.append(v)
                        if len(found) >= wanted:
                            break
            return found
        return smallest_by(members, wanted, self._position(order).__getitem__)

    def _position(self, order: SortOrder) -> dict[int, int]:
        position = self._positions.get(order)
        if position is None:
            ordered = self._orders[order]
            position = self._positions[order] = {v: i for i, v in enumerate(ordered)}
        return position


def _urn_sets(groups: dict[Key, list[School]]) -> dict[Key, set[int]]:
    return {key: _urn_set(schools) for key, schools in groups.items()}


def _has_filters(query: SchoolQuery) -> bool:
    return bool(
        query.phases
        or query.local_authority is not None
        or query.type_name is not None
        or query.gender is not None
        or query.ofsted_rating is not None
        or query.min_score is not None
    )
