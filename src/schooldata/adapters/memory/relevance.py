"""Relevance order over text matches, with set operations rather than a score per school.

`domain.search.text_relevance` scores each query token 30/20/10/5 by where and how it matches
(a name word equal to it, a name word it starts, an authority/type word equal to it, one it
starts) plus one name bonus: the whole name (1000), the name's start (500), the query as
consecutive name words (200). Here the schools are split into groups of equal score by set
operations over the postings (`Bits`: positions in URN order), and only the groups the page
needs are split further.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from schooldata.adapters.memory.bits import Bits
from schooldata.adapters.memory.postings import Budget, Postings
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
    """Schools are positions in URN order (`ordered`; `positions` by URN value), sets of them
    `Bits`."""

    def __init__(
        self,
        *,
        in_name: Postings,
        in_other: Postings,
        ordered: Sequence[School],
        positions: dict[int, int],
        cache: Budget,
    ) -> None:
        self._in_name = in_name
        self._in_other = in_other
        self._ordered = ordered
        self._positions = positions
        self._cache = cache
        # Normalised names in order (and their positions), for the whole-name and name-start
        # bonuses.
        named = sorted((s.search_text.name, p) for p, s in enumerate(ordered))
        self._name_keys = [name for name, _ in named]
        self._name_positions = [p for _, p in named]
        self._bonuses: dict[str, tuple[Bits, Bits, Bits]] = {}
        cache.on_full.append(self._bonuses.clear)

    def ranked(self, text: TextQuery, members: Bits, wanted: int) -> list[tuple[float, int]]:
        """The first `wanted` (relevance, position) pairs by (-relevance, URN).

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
        whole = members & exact
        ranked = [(every_word + EXACT_NAME_BONUS, p) for p in whole.lowest(wanted)]
        if len(ranked) < wanted:
            begins = members & starts
            if begins:
                groups = [
                    (score + NAME_PREFIX_BONUS, part)
                    for score, part in self._token_groups(text, begins)
                ]
                ranked += self._take(groups, wanted - len(ranked))
            if len(ranked) < wanted:
                taken = whole | begins
                inside = (members & phrase) - taken
                ranked += [
                    (every_word + PHRASE_BONUS, p) for p in inside.lowest(wanted - len(ranked))
                ]
                if len(ranked) < wanted:
                    others = (members - phrase) - taken
                    ranked += self._take(self._token_groups(text, others), wanted - len(ranked))
        return ranked

    def _scored(self, text: TextQuery, members: Bits, wanted: int) -> list[tuple[float, int]]:
        """`ranked` of a few matches: each scored by `text_relevance`, then ordered (by
        position, which is URN order)."""
        ordered = self._ordered
        order = [(-(text_relevance(text, ordered[p]) or 0.0), p) for p in members.positions()]
        order.sort()
        return [(-negated, p) for negated, p in order[:wanted]]

    @staticmethod
    def _take(groups: list[tuple[float, Bits]], need: int) -> list[tuple[float, int]]:
        """The first `need` (score, position) pairs of score groups by (-score, URN)."""
        by_score: dict[float, Bits] = {}
        for score, part in groups:
            held = by_score.get(score)
            by_score[score] = part if held is None else held | part
        ranked: list[tuple[float, int]] = []
        for score in sorted(by_score, reverse=True):
            left = need - len(ranked)
            if left <= 0:
                break
            ranked.extend((score, p) for p in by_score[score].lowest(left))
        return ranked

    def _token_groups(self, text: TextQuery, members: Bits) -> list[tuple[float, Bits]]:
        """Partition `members` (text matches) by the token part of `text_relevance`.

        Per query token, in `text_relevance`'s order: a name word equal to it (30), else a
        name word it prefixes (20), else an authority/type word equal to it (10), else one it
        prefixes (5: every member has one)."""
        groups: list[tuple[float, Bits]] = [(0.0, members)] if members else []
        for token in text.tokens:
            tiers = (
                (NAME_EXACT, self._in_name.exact_bits(token)),
                (NAME_PREFIX, self._in_name.prefix_bits(token)),
                (OTHER_EXACT, self._in_other.exact_bits(token)),
                (OTHER_PREFIX, None),  # every member left matches an authority/type word
            )
            groups = [refined for score, part in groups for refined in _split(score, part, tiers)]
        return groups

    def _bonus_sets(self, text: TextQuery) -> tuple[Bits, Bits, Bits]:
        """Every school with the exact-name, name-prefix and phrase bonus for `text`
        (memoised per normalised query, like the prefix unions)."""
        cached = self._bonuses.get(text.normalised)
        if cached is None:
            exact, starts = self._name_bonuses(text.normalised)
            phrase = self._phrase_matches(text) - starts
            cached = (exact, starts, phrase)
            size = exact.memory_units() + starts.memory_units() + phrase.memory_units()
            if (exact or starts or phrase) and self._cache.admit(size, text.normalised):
                self._bonuses[text.normalised] = cached
        return cached

    def _name_bonuses(self, normalised: str) -> tuple[Bits, Bits]:
        """Schools whose normalised name equals `normalised`, and those it starts (not
        equal): two runs of the sorted names."""
        names = self._name_keys
        lo = bisect.bisect_left(names, normalised)
        equal_end = bisect.bisect_right(names, normalised, lo)
        end = bisect.bisect_left(names, normalised + _LAST_CHARACTER, equal_end)
        positions = self._name_positions
        size = len(positions)
        return (
            Bits.of(positions[lo:equal_end], size),
            Bits.of(positions[equal_end:end], size),
        )

    def _phrase_matches(self, text: TextQuery) -> Bits:
        """Schools whose name holds the whole query as consecutive words (` q ` in ` name `)."""
        if len(text.tokens) == 1:
            return self._in_name.exact_bits(text.tokens[0])
        words = sorted((self._in_name.exact(t) for t in set(text.tokens)), key=len)
        pool = words[0].intersection(*words[1:])
        phrase = text.normalised
        ordered = self._ordered
        positions = self._positions
        held = list(map(positions.__getitem__, pool))  # (as `Bits.of_values` looks up)
        return Bits.of(
            [p for p in held if holds_phrase(ordered[p].search_text.name, phrase)],
            len(positions),
        )


def _split(
    score: float,
    part: Bits,
    tiers: tuple[tuple[float, Bits | None], ...],
) -> list[tuple[float, Bits]]:
    """`part` split by the first tier each member is in (None: every member left), with the
    tier's points added to `score`."""
    out: list[tuple[float, Bits]] = []
    rest = part
    for points, members in tiers:
        if members is None:
            out.append((score + points, rest))
            break
        hit = rest & members
        if not hit:
            continue
        out.append((score + points, hit))
        rest = rest - hit
        if not rest:
            break
    return out
