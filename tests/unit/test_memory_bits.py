"""`Bits` (the index's sets of schools as positions in URN order) against Python's sets."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from schooldata.adapters.memory.bits import CHUNK_BITS, Bits

SIZE = 3 * CHUNK_BITS + 17  # a last chunk only partly used
positions = st.sets(st.integers(0, SIZE - 1), max_size=300) | st.sets(
    st.integers(CHUNK_BITS - 3, CHUNK_BITS + 3)
)


@given(a=positions, b=positions)
def test_set_algebra_on_bits_equals_pythons_sets(a: set[int], b: set[int]) -> None:
    x, y = Bits.of(a, SIZE), Bits.of(b, SIZE)
    assert (x & y).positions() == sorted(a & b)
    assert (x | y).positions() == sorted(a | b)
    assert (x - y).positions() == sorted(a - b)
    assert len(x) == len(a)
    assert bool(x) is bool(a)


@given(a=positions, count=st.integers(-1, 40))
def test_the_lowest_positions_come_first_and_stop_at_the_count(a: set[int], count: int) -> None:
    assert Bits.of(a, SIZE).lowest(count) == sorted(a)[: max(count, 0)]


def test_an_empty_set_has_no_positions_and_every_set_of_a_size_as_many_chunks() -> None:
    none = Bits.empty(SIZE)
    assert not none
    assert len(none) == 0
    assert none.positions() == []
    assert len(none.chunks) == len(Bits.of([SIZE - 1], SIZE).chunks) == 4


def test_a_set_counts_more_memory_for_every_chunk_it_fills() -> None:
    assert Bits.empty(SIZE).memory_units() < Bits.of([0], SIZE).memory_units()
    assert Bits.of([0], SIZE).memory_units() < Bits.of([0, CHUNK_BITS], SIZE).memory_units()


def test_urn_values_become_their_positions_in_urn_order() -> None:
    positions = {100_001: 0, 100_007: 1, 140_000: 2}
    assert Bits.of_values({140_000, 100_001}, positions).positions() == [0, 2]
    assert not Bits.of_values([], positions)
