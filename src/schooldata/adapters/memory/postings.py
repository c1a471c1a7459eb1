"""Token -> URN-value posting sets, with memoised prefix unions (as sets and as `Bits`) kept
within one budget."""

from __future__ import annotations

import bisect
from collections.abc import Callable

from schooldata.adapters.memory.bits import Bits

# Memoised unions of posting sets (per prefix) and bonus sets (per query), kept between
# queries up to this many URNs in all (about 40 MB at most), then dropped and rebuilt. A memo's
# key counts too, a URN for every KEY_CHARS_PER_URN characters, and one more for the entry: a
# question that matches nothing must still pay for the text it leaves behind.
CACHE_BUDGET_URNS = 1_000_000
KEY_CHARS_PER_URN = 16
IntSet = set[int] | frozenset[int]
EMPTY: frozenset[int] = frozenset()


class Postings:
    """Token -> URN values, with memoised unions over every token that starts with a prefix."""

    def __init__(
        self, postings: dict[str, set[int]], cache: Budget, positions: dict[int, int]
    ) -> None:
        self._postings = postings  # never changed after the index is built
        self._vocabulary = sorted(postings)
        self._unions: dict[str, frozenset[int]] = {}
        self._cache = cache
        self._positions = positions  # URN value -> its position in URN order
        self._prefix_bits: dict[str, Bits] = {}
        self._exact_bits: dict[str, Bits] = {}
        self._none = Bits.empty(len(positions))

    def exact(self, token: str) -> IntSet:
        return self._postings.get(token, EMPTY)

    def with_prefix(self, prefix: str) -> IntSet:
        cached = self._unions.get(prefix)
        if cached is not None:
            return cached
        vocabulary = self._vocabulary
        at = bisect.bisect_left(vocabulary, prefix)
        found: list[set[int]] = []
        while at < len(vocabulary) and vocabulary[at].startswith(prefix):  # (no slice copied)
            found.append(self._postings[vocabulary[at]])
            at += 1
        if not found:
            return EMPTY
        if len(found) == 1:
            return found[0]
        union = frozenset().union(*found)
        if self._cache.admit(len(union), prefix):
            self._unions[prefix] = union
        return union

    def prefix_bits(self, prefix: str) -> Bits:
        """`with_prefix` as positions in URN order."""
        found = self._prefix_bits.get(prefix)
        if found is None:
            found = self._bits_of(self.with_prefix(prefix), prefix, self._prefix_bits)
        return found

    def exact_bits(self, token: str) -> Bits:
        """`exact` as positions in URN order."""
        found = self._exact_bits.get(token)
        if found is None:
            values = self._postings.get(token)
            if values is None:
                return self._none
            found = self._bits_of(values, token, self._exact_bits)
        return found

    def _bits_of(self, values: IntSet, key: str, memo: dict[str, Bits]) -> Bits:
        if not values:
            return self._none
        bits = Bits.of_values(values, self._positions)
        if self._cache.admit(bits.memory_units(), key):
            memo[key] = bits
        return bits

    def forget(self) -> None:
        self._unions.clear()
        self._prefix_bits.clear()
        self._exact_bits.clear()


class Budget:
    """How many URNs the memoised sets hold; past the budget every memo is dropped (a data
    change builds a new index anyway, so nothing here is ever stale)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self.on_full: list[Callable[[], None]] = []

    def admit(self, size: int, key: str) -> bool:
        """Whether a memo of `size` URNs under `key` may be kept (dropping every memo first
        when it would not fit beside them)."""
        size += 1 + len(key) // KEY_CHARS_PER_URN
        if size > self.limit:
            return False
        if self.used + size > self.limit:
            for forget in self.on_full:
                forget()
            self.used = 0
        self.used += size
        return True
