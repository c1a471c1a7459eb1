"""Sets of schools as bits: bit p stands for the school at position p of the URN order.

The index's text matches and relevance groups are set algebra over a few large sets, where
hash sets pay a probe (and a cache miss) per member. Here a set is a row of chunks, each an
int of `CHUNK_BITS` bits (0 for an empty chunk): `&`, `|` and `-` are a few machine-word
loops per chunk, empty chunks are skipped, and the lowest positions (the smallest URNs) come
first. Python's own `set` has no ordered or positional form, and an int of every school's
bit would make each empty or sparse set as large as a full one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, final

CHUNK_SHIFT: Final = 12
CHUNK_BITS: Final = 1 << CHUNK_SHIFT
_LOW: Final = CHUNK_BITS - 1
_CHUNK_UNITS: Final = 1 + CHUNK_BITS // 8 // 40


@final
class Bits:
    """An immutable set of positions in `range(size)`; every `Bits` of one index has as many
    chunks."""

    __slots__ = ("_count", "chunks")

    def __init__(self, chunks: list[int]) -> None:
        self.chunks = chunks
        self._count = -1  # counted when first asked

    @staticmethod
    def empty(size: int) -> Bits:
        return Bits([0] * ((size + _LOW) >> CHUNK_SHIFT))

    @staticmethod
    def of(positions: Iterable[int], size: int) -> Bits:
        chunks = [0] * ((size + _LOW) >> CHUNK_SHIFT)
        for p in positions:
            chunks[p >> CHUNK_SHIFT] |= 1 << (p & _LOW)
        return Bits(chunks)

    @staticmethod
    def of_values(values: Iterable[int], positions: dict[int, int]) -> Bits:
        """The positions of URN `values` (`positions`: every URN value's, in URN order)."""
        # (looked up by C: an `int` variable would make each value a new object to look up)
        return Bits.of(map(positions.__getitem__, values), len(positions))

    def __and__(self, other: Bits) -> Bits:
        mine = self.chunks
        theirs = other.chunks
        out = [0] * len(mine)
        for i in range(len(mine)):
            a = mine[i]
            if a:
                b = theirs[i]
                if b:
                    out[i] = a & b
        return Bits(out)

    def __or__(self, other: Bits) -> Bits:
        mine = self.chunks
        theirs = other.chunks
        out = [0] * len(mine)
        for i in range(len(mine)):
            a = mine[i]
            b = theirs[i]
            out[i] = (a | b) if a and b else (a or b)
        return Bits(out)

    def __sub__(self, other: Bits) -> Bits:
        mine = self.chunks
        theirs = other.chunks
        out = [0] * len(mine)
        for i in range(len(mine)):
            a = mine[i]
            if a:
                b = theirs[i]
                out[i] = (a & ~b) if b else a
        return Bits(out)

    def __len__(self) -> int:
        n = self._count
        if n < 0:
            n = 0
            for c in self.chunks:
                if c:
                    n += c.bit_count()
            self._count = n
        return n

    def __bool__(self) -> bool:
        return any(self.chunks)

    def memory_units(self) -> int:
        """About how many URN-sized memo slots (~40 bytes each) this set holds."""
        return 1 + sum(_CHUNK_UNITS for c in self.chunks if c)

    def lowest(self, count: int) -> list[int]:
        """The `count` lowest positions (all of them when fewer), in order."""
        found: list[int] = []
        if count <= 0:
            return found
        base = 0
        for c in self.chunks:
            while c:
                low = c & -c
                found.append(base + low.bit_length() - 1)
                if len(found) >= count:
                    return found
                c ^= low
            base += CHUNK_BITS
        return found

    def positions(self) -> list[int]:
        """Every position, in order (each chunk's read from its highest bit down: two int
        operations a position, where the lowest bit first takes three)."""
        found: list[int] = []
        base = 0
        for c in self.chunks:
            if c:
                down: list[int] = []
                while c:
                    top = c.bit_length() - 1
                    down.append(base + top)
                    c ^= 1 << top
                down.reverse()
                found += down
            base += CHUNK_BITS
        return found
