"""An in-memory index over schools: token prefixes for text, a grid for proximity, and sets
and precomputed orders for filters and sorting.

`domain.search` defines every answer; the index finds the same answer faster, and results
equal `evaluate` over every school (tests/unit/test_memory_index.py checks that property):

- Proximity questions take their candidates from a grid of 0.05-degree cells (about 3.5 x 2
  miles in the UK) and hand them to `evaluate`.
- Other questions never look at a school one by one. The text matches are the intersection of
  the query tokens' posting sets (a school matches exactly when each query token prefixes one
  of its name, authority or type words, which is what the postings hold); phase and
  authority filters are set intersections. The total is the size of the set. The page comes
  from score groups (relevance order: each query token scores 30/20/10/5 by where and how it
  matches, plus the name bonus, all computed with set operations, see `_relevance_groups`)
  or from an order precomputed once per index (name, URN, score orders).

Postings hold URN values (ints), whose hashing and comparison are native, not Urn objects.
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from math import floor

import attrs

from schooldata.adapters.memory.proximity import ProximityGrid
from schooldata.domain.geo import SHOWN_DISTANCE_STEP, Location, bounding_box
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

CELL_DEGREES = 0.05
# Memoised unions of posting sets (per prefix) and bonus sets (per query), kept between
# queries up to this many URNs in all (about 40 MB at most), then dropped and rebuilt.
CACHE_BUDGET_URNS = 1_000_000
IntSet = set[int] | frozenset[int]
EMPTY: frozenset[int] = frozenset()
# Token scores of `domain.search.text_relevance`, in the order it tries them.
NAME_EXACT, NAME_PREFIX, OTHER_EXACT, OTHER_PREFIX = 30.0, 20.0, 10.0, 5.0
EXACT_NAME_BONUS, NAME_PREFIX_BONUS, PHRASE_BONUS = 1000.0, 500.0, 200.0


def _cell(latitude: float, longitude: float) -> tuple[int, int]:
    return (math.floor(latitude / CELL_DEGREES), math.floor(longitude / CELL_DEGREES))


class _Postings:
    """Token -> URN values, with memoised unions over every token that starts with a prefix."""

    def __init__(self, postings: dict[str, set[int]], cache: _Budget) -> None:
        self._postings = postings  # never changed after the index is built
        self._vocabulary = sorted(postings)
        self._unions: dict[str, frozenset[int]] = {}
        self._cache = cache

    def exact(self, token: str) -> IntSet:
        return self._postings.get(token, EMPTY)

    def with_prefix(self, prefix: str) -> IntSet:
        cached = self._unions.get(prefix)
        if cached is not None:
            return cached
        start = bisect.bisect_left(self._vocabulary, prefix)
        found: list[set[int]] = []
        for token in self._vocabulary[start:]:
            if not token.startswith(prefix):
                break
            found.append(self._postings[token])
        if not found:
            return EMPTY
        if len(found) == 1:
            return found[0]
        union = frozenset().union(*found)
        if self._cache.admit(len(union)):
            self._unions[prefix] = union
        return union

    def forget(self) -> None:
        self._unions.clear()


class _Budget:
    """How many URNs the memoised sets hold; past the budget every memo is dropped (a data
    change builds a new index anyway, so nothing here is ever stale)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self.on_full: list[Callable[[], None]] = []

    def admit(self, size: int) -> bool:
        if size > self.limit:
            return False
        if self.used + size > self.limit:
            for forget in self.on_full:
                forget()
            self.used = 0
        self.used += size
        return True


def _split(
    score: float,
    part: Collection[int],
    tiers: tuple[tuple[float, Collection[int] | None], ...],
) -> list[tuple[float, Collection[int]]]:
    """`part` split by the first tier each member is in (None: every member left), with the
    tier's points added to `score`."""
    out: list[tuple[float, Collection[int]]] = []
    rest: Collection[int] = part
    for points, members in tiers:
        if not rest:
            break
        hit = rest if members is None else _intersection(rest, members)
        if not hit:
            continue
        out.append((score + points, hit))
        if len(hit) == len(rest):
            break
        rest = _difference(rest, hit)
    return out


def _intersection(a: Collection[int], b: Collection[int]) -> frozenset[int] | set[int]:
    a_set = a if isinstance(a, set | frozenset) else set(a)
    return a_set & b if isinstance(b, set | frozenset) else a_set.intersection(b)


def _difference(a: Collection[int], b: Collection[int]) -> frozenset[int] | set[int]:
    a_set = a if isinstance(a, set | frozenset) else set(a)
    return a_set - b if isinstance(b, set | frozenset) else a_set.difference(b)


class SchoolIndex:
    def __init__(self, schools: Iterable[School]) -> None:
        self.by_urn: dict[Urn, School] = {s.urn: s for s in schools}
        self.ordered: list[School] = sorted(self.by_urn.values(), key=lambda s: s.urn.value)
        self._by_value: dict[int, School] = {s.urn.value: s for s in self.ordered}
        every: dict[str, set[int]] = defaultdict(set)
        in_name: dict[str, set[int]] = defaultdict(set)
        in_other: dict[str, set[int]] = defaultdict(set)
        by_phase: dict[Phase | None, set[int]] = defaultdict(set)
        by_authority: dict[str, set[int]] = defaultdict(set)
        by_la_code: dict[str, set[int]] = defaultdict(set)
        grid: dict[tuple[int, int], list[School]] = defaultdict(list)
        for school in self.ordered:
            value = school.urn.value
            text = school.search_text
            for token in text.name_tokens:
                in_name[token].add(value)
                every[token].add(value)
            for token in text.other_tokens:
                in_other[token].add(value)
                every[token].add(value)
            by_phase[school.phase].add(value)
            by_authority[text.authority].add(value)
            by_la_code[(school.la_code or "").lower()].add(value)
            if school.location is not None:
                grid[_cell(school.location.latitude, school.location.longitude)].append(school)
        self._cache = _Budget(CACHE_BUDGET_URNS)
        self._every = _Postings(dict(every), self._cache)
        self._in_name = _Postings(dict(in_name), self._cache)
        self._in_other = _Postings(dict(in_other), self._cache)
        self._by_phase = dict(by_phase)
        self._by_authority = dict(by_authority)
        self._by_la_code = dict(by_la_code)
        self._grid = dict(grid)
        self._near = ProximityGrid(self.ordered)
        # Normalised names in order, for the exact-name and name-prefix bonuses.
        self._names: list[tuple[str, int]] = sorted(
            (s.search_text.name, s.urn.value) for s in self.ordered
        )
        # The orders of `domain.search.sort_key` without text or distance, as URN lists.
        self._orders: dict[SortOrder, list[int]] = {
            order: [
                h.school.urn.value
                for h in sorted((SearchHit(school=s) for s in self.ordered), key=sort_key(order))
            ]
            for order in (SortOrder.NAME, SortOrder.SCORE)
        }
        self._orders[SortOrder.URN] = [s.urn.value for s in self.ordered]
        self._orders[SortOrder.DISTANCE] = self._orders[SortOrder.URN]  # no origin: by URN
        self._positions: dict[SortOrder, dict[int, int]] = {}
        self._bonuses: dict[str, tuple[Collection[int], Collection[int], Collection[int]]] = {}
        self._cache.on_full += [
            self._every.forget,
            self._in_name.forget,
            self._in_other.forget,
            self._bonuses.clear,
        ]

    # ------------------------------------------------------------------ candidates

    def _text_matches(self, text: TextQuery) -> frozenset[int] | set[int]:
        """URN values of the schools every query token prefix-matches (name, LA or type)."""
        sets = sorted((self._every.with_prefix(t) for t in text.tokens), key=len)
        return sets[0] if len(sets) == 1 else sets[0].intersection(*sets[1:])

    def candidates(self, query: SchoolQuery) -> Iterable[School]:
        """A superset of the schools that can match `query`."""
        if query.text is not None:
            if not query.text.tokens:
                return []
            return [self._by_value[v] for v in self._text_matches(query.text)]
        if query.near is not None and query.near.radius_miles is not None:
            return self._within_box(query)
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
        found = self._near.within(origin, radius)
        filtered = _has_filters(query)
        wanted = query.offset + query.limit
        if query.effective_sort is not SortOrder.DISTANCE:
            every = [
                SearchHit(school=school, distance_miles=distance)
                for distance, school in found
                if not filtered or matches_filters(query, school)
            ]
            return page_of(query, every)
        # Nearest first: (shown distance, URN), as `sort_key` orders; URNs are unique.
        keyed = [
            (floor(distance * 10_000) / 10_000, school.urn.value, distance, school)
            for distance, school in found
            if not filtered or matches_filters(query, school)
        ]
        page = heapq.nsmallest(wanted, keyed)[query.offset : wanted]
        hits = tuple(SearchHit(school=s, distance_miles=d) for _, _, d, s in page)
        return SearchPage(total=len(keyed), hits=hits)

    def _without_distance(self, query: SchoolQuery) -> SearchPage:
        text = query.text
        if text is not None and not text.tokens:
            return SearchPage(total=0)
        members = self._filtered(query, None if text is None else self._text_matches(text))
        total = len(self.ordered) if members is None else len(members)
        wanted = query.offset + query.limit
        order = query.effective_sort
        if order is SortOrder.RELEVANCE and text is not None and members is not None:
            ranked = self._by_relevance(text, members, wanted)[query.offset : wanted]
        else:
            if order is SortOrder.RELEVANCE:
                order = SortOrder.URN  # no text: every relevance is 0, so URN order
            chosen = self._first_in_order(order, members, wanted)[query.offset : wanted]
            ranked = [
                ((text_relevance(text, self._by_value[v]) or 0.0) if text else 0.0, v)
                for v in chosen
            ]
        hits = tuple(SearchHit(school=self._by_value[v], relevance=score) for score, v in ranked)
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
            return sorted(members) if len(members) <= wanted else heapq.nsmallest(wanted, members)
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
        return heapq.nsmallest(wanted, members, key=self._position(order).__getitem__)

    def _position(self, order: SortOrder) -> dict[int, int]:
        position = self._positions.get(order)
        if position is None:
            ordered = self._orders[order]
            position = self._positions[order] = {v: i for i, v in enumerate(ordered)}
        return position

    # ------------------------------------------------------------------ relevance

    def _by_relevance(
        self, text: TextQuery, members: Collection[int], wanted: int
    ) -> list[tuple[float, int]]:
        """The first `wanted` (relevance, URN value) pairs by (-relevance, URN).

        The bonus classes never overlap in score, so they are taken in turn and the large
        ones are only split as far as the page needs: a whole-name match scores 30 per token
        + 1000; a name that starts with the query 500 + at least 30 per token but the last
        (>= 20); the query as consecutive name words 30 per token + 200; anything else at most
        30 per token. Only the name-start class and the no-bonus class need `text_relevance`'s
        per-token tiers (see `_token_groups`)."""
        exact, starts, phrase = self._bonus_sets(text)
        every_word = 0.0
        for _ in text.tokens:  # the same float sum `text_relevance` makes
            every_word += NAME_EXACT
        whole = _intersection(members, exact) if exact else EMPTY
        ranked = [(every_word + EXACT_NAME_BONUS, v) for v in sorted(whole)[:wanted]]
        if len(ranked) >= wanted:
            return ranked
        begins = _intersection(members, starts) if starts else EMPTY
        if begins:
            groups = [
                (score + NAME_PREFIX_BONUS, part)
                for score, part in self._token_groups(text, begins)
            ]
            ranked += self._take(groups, wanted - len(ranked))
            if len(ranked) >= wanted:
                return ranked
        taken = whole | begins
        need = wanted - len(ranked)
        if len(members) > 4096 and len(phrase) > 4096:  # dense: walk URN order, build nothing
            chosen: list[int] = []
            for v in self._orders[SortOrder.URN]:
                if v in phrase and v in members and v not in taken:
                    chosen.append(v)
                    if len(chosen) >= need:
                        break
        else:
            inside = _difference(_intersection(members, phrase), taken)
            chosen = self._first_in_order(SortOrder.URN, inside, need)
        ranked += [(every_word + PHRASE_BONUS, v) for v in chosen]
        if len(ranked) >= wanted:
            return ranked
        others = _difference(_difference(members, phrase), taken)
        ranked += self._take(self._token_groups(text, others), wanted - len(ranked))
        return ranked

    def _take(
        self, groups: list[tuple[float, Collection[int]]], need: int
    ) -> list[tuple[float, int]]:
        """The first `need` (score, URN value) pairs of score groups by (-score, URN)."""
        by_score: dict[float, list[Collection[int]]] = defaultdict(list)
        for score, part in groups:
            by_score[score].append(part)
        ranked: list[tuple[float, int]] = []
        for score in sorted(by_score, reverse=True):
            left = need - len(ranked)
            if left <= 0:
                break
            parts = by_score[score]
            pool = parts[0] if len(parts) == 1 else frozenset().union(*parts)
            ranked.extend((score, v) for v in self._first_in_order(SortOrder.URN, pool, left))
        return ranked

    def _token_groups(
        self, text: TextQuery, members: Collection[int]
    ) -> list[tuple[float, Collection[int]]]:
        """Partition `members` (text matches) by the token part of `text_relevance`.

        Per query token, in `text_relevance`'s order: a name word equal to it (30), else a
        name word it prefixes (20), else an authority/type word equal to it (10), else one it
        prefixes (5: every member has one)."""
        groups: list[tuple[float, Collection[int]]] = [(0.0, members)] if members else []
        for token in text.tokens:
            tiers = (
                (NAME_EXACT, self._in_name.exact(token)),
                (NAME_PREFIX, self._in_name.with_prefix(token)),
                (OTHER_EXACT, self._in_other.exact(token)),
                (OTHER_PREFIX, None),  # every member left matches an authority/type word
            )
            groups = [refined for score, part in groups for refined in _split(score, part, tiers)]
        return groups

    def _bonus_sets(
        self, text: TextQuery
    ) -> tuple[Collection[int], Collection[int], Collection[int]]:
        """Every school with the exact-name, name-prefix and phrase bonus for `text`
        (memoised per normalised query, like the prefix unions)."""
        cached = self._bonuses.get(text.normalised)
        if cached is None:
            exact, starts = self._name_bonuses(text.normalised)
            phrase = self._phrase_matches(text, starts)
            cached = (exact, starts, phrase)
            if self._cache.admit(
                len(exact) + len(starts) + (len(phrase) if len(text.tokens) > 1 else 0)
            ):
                self._bonuses[text.normalised] = cached
        return cached

    def _name_bonuses(self, normalised: str) -> tuple[set[int], set[int]]:
        """URN values whose normalised name equals `normalised`, and those it starts (not
        equal)."""
        exact: set[int] = set()
        starts: set[int] = set()
        start = bisect.bisect_left(self._names, (normalised, -1))
        for name, value in self._names[start:]:
            if not name.startswith(normalised):
                break
            (exact if name == normalised else starts).add(value)
        return exact, starts

    def _phrase_matches(self, text: TextQuery, excluded: set[int]) -> frozenset[int] | set[int]:
        """Schools whose name holds the whole query as consecutive words (` q ` in ` name `),
        less `excluded`."""
        if len(text.tokens) == 1:
            return self._in_name.exact(text.tokens[0])
        words = sorted((self._in_name.exact(t) for t in set(text.tokens)), key=len)
        pool = words[0].intersection(*words[1:])
        padded = f" {text.normalised} "
        return {
            v
            for v in pool
            if v not in excluded and padded in f" {self._by_value[v].search_text.name} "
        }

    # ------------------------------------------------------------------ proximity

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


def _has_filters(query: SchoolQuery) -> bool:
    return bool(
        query.phases
        or query.local_authority is not None
        or query.type_name is not None
        or query.gender is not None
        or query.ofsted_rating is not None
        or query.min_score is not None
    )
