"""The index's first-few helpers give `heapq.nsmallest`'s answer (the compiled loop is theirs)."""

from __future__ import annotations

import heapq

from hypothesis import given
from hypothesis import strategies as st

from schooldata.adapters.memory.smallest import smallest, smallest_by

VALUES = st.sets(st.integers(min_value=100_000, max_value=999_999), max_size=300)


@given(values=VALUES, wanted=st.integers(min_value=-1, max_value=40))
def test_smallest_is_heapq_nsmallest_over_distinct_values(values: set[int], wanted: int) -> None:
    assert smallest(values, wanted) == heapq.nsmallest(wanted, values)


@given(values=VALUES, wanted=st.integers(min_value=-1, max_value=40), seed=st.randoms())
def test_smallest_by_orders_by_the_key_as_heapq_does(
    values: set[int], wanted: int, seed: object
) -> None:
    shuffled = sorted(values)
    seed.shuffle(shuffled)  # type: ignore[attr-defined]
    position = {v: i for i, v in enumerate(shuffled)}  # distinct keys, as the index's orders
    expected = heapq.nsmallest(wanted, values, key=position.__getitem__)
    assert smallest_by(values, wanted, position.__getitem__) == expected


def test_a_generator_is_read_once_and_fewer_values_than_wanted_come_back_sorted() -> None:
    assert smallest((v for v in (5, 3, 9)), 10) == [3, 5, 9]
    assert smallest_by((v for v in (5, 3, 9)), 10, lambda v: -v) == [9, 5, 3]
