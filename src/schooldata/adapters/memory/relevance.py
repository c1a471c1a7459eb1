"""Relevance order over text matches, with set operations rather than a score per school.

`domain.search.text_relevance` scores each query token 30/20/10/5 by where and how it matches
(a name word equal to it, a name word it starts, an authority/type word equal to it, one it
starts) plus one name bonus: the whole name (1000), the name's start (500), the query as
consecutive name words (200). Here the schools are split into groups of equal score by set
operations over the postings, and only the groups the page needs are split further.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Collection, Sequence

from schooldata.adapters.memory.postings import EMPTY, Budget, Postings
from schooldata.adapters.memory.smallest import smallest
from schooldata.domain.school import School
from schooldata.domain.search import TextQuery, holds_phrase, text_relevance

# Token scores of `domain.search.text_relevance`, in the order it tries them.
NAME_EXACT, NAME_PREFIX, OTHER_EXACT, OTHER_PREFIX = 30.0, 20.0, 10.0, 5.0
EXACT_NAME_BONUS, NAME_PREFIX_BONUS, PHRASE_BONUS = 1000.0, 500.0, 200.0
_LAST_CHARACTER = chr(0x10FFFF)  # after every character a name holds: ends a prefix's run
# Up to this many matches, scoring each with the domain's own `text_relevance` costs less than
# splitting them by set operations (docs/performance.md).
SCORED_ONE_BY_ONE = 16


class Relevance:
    def __init__(
        self,
        *,
        in_name: Postings,
        in_other: Postings,
        by_value: dict[int, School],
        urn_order: Sequence[int],
        cache: Budget,
    ) -> None:
        self._in_name = in_name
        self._in_other = in_other
        self._by_value = by_value
        self._urn_order = urn_order
        self._cache = cache
        # Normalised names in order (and their URN values), for the whole-name and
        # name-start bonuses.
        named = sorted((s.search_text.name, v) for v, s in by_value.items())
        self._name_keys = [name for name, _ in named]
        self._name_values = [v for _, v in named]
        self._bonuses: dict[str, tuple[Collection[int], Collection[int], Collection[int]]] = {}
        cache.on_full.append(self._bonuses.clear)

    def ranked(
        self, text: TextQuery, members: Collection[int], wanted: int
    ) -> list[tuple[float, int]]:
        """The first `wanted` (relevance, URN value) pairs by (-relevance, URN).

        The bonus classes never overlap in score, so they are taken in turn and the large
        ones are only split as far as the page needs: a whole-name match scores 30 per token
        + 1000; a name that starts with the query 500 + at least 30 per token but the last
        (>= 20); the query as consecutive name words 30 per token + 200; anything else at most
        30 per token. Only the name-start class and the no-bonus class need `text_relevance`'s
        per-token tiers (see `_token_groups`)."""
        if len(members) <= SCORED_ONE_BY_ONE:
            return self._scored(text, members, wanted)
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
            for v in self._urn_order:
                if v in phrase and v in members and v not in taken:
                    chosen.append(v)
                    if len(chosen) >= need:
                        break
        else:
            inside = _difference(_intersection(members, phrase), taken)
            chosen = first_by_urn(inside, need)
        ranked += [(every_word + PHRASE_BONUS, v) for v in chosen]
        if len(ranked) >= wanted:
            return ranked
        others = _difference(_difference(members, phrase), taken)
        ranked += self._take(self._token_groups(text, others), wanted - len(ranked))
        return ranked

    def _scored(
        self, text: TextQuery, members: Collection[int], wanted: int
    ) -> list[tuple[float, int]]:
        """`ranked` of a few matches: each scored by `text_relevance`, then ordered."""
        by_value = self._by_value
        order = sorted((-(text_relevance(text, by_value[v]) or 0.0), v) for v in members)
        return [(-negated, v) for negated, v in order[:wanted]]

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
            ranked.extend((score, v) for v in first_by_urn(pool, left))
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
            size = len(exact) + len(starts) + (len(phrase) if len(text.tokens) > 1 else 0)
            if size and self._cache.admit(size, text.normalised):
                self._bonuses[text.normalised] = cached
        return cached

    def _name_bonuses(self, normalised: str) -> tuple[set[int], set[int]]:
        """URN values whose normalised name equals `normalised`, and those it starts (not
        equal): two runs of the sorted names."""
        names = self._name_keys
        lo = bisect.bisect_left(names, normalised)
        equal_end = bisect.bisect_right(names, normalised, lo)
        end = bisect.bisect_left(names, normalised + _LAST_CHARACTER, equal_end)
        values = self._name_values
        return set(values[lo:equal_end]), set(values[equal_end:end])

    def _phrase_matches(self, text: TextQuery, excluded: set[int]) -> frozenset[int] | set[int]:
        """Schools whose name holds the whole query as consecutive words (` q ` in ` name `),
        less `excluded`."""
        if len(text.tokens) == 1:
            return self._in_name.exact(text.tokens[0])
        words = sorted((self._in_name.exact(t) for t in set(text.tokens)), key=len)
        pool = words[0].intersection(*words[1:])
        phrase = text.normalised
        by_value = self._by_value
        return {
            v
            for v in pool
            if v not in excluded and holds_phrase(by_value[v].search_text.name, phrase)
        }


def first_by_urn(members: Collection[int], wanted: int) -> list[int]:
    """The `wanted` smallest URN values of `members`, in order."""
    if not members or not wanted:
        return []
    return sorted(members) if len(members) <= wanted else smallest(members, wanted)


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
