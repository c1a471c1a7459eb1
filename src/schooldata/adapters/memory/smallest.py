"""The first few of many values: `heapq.nsmallest`'s algorithm, compiled with the index
(setup.py). The standard library's is written in Python, a bytecode loop over every member;
here the same loop runs as C, with heapq's own C heap functions."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from itertools import islice


def smallest(values: Iterable[int], wanted: int) -> list[int]:
    """The `wanted` smallest of `values` (distinct ints), in order."""
    if wanted <= 0:
        return []
    it = iter(values)
    heap = [-v for v in islice(it, wanted)]  # a max-heap of the smallest so far, negated
    if not heap:
        return []
    heapq.heapify(heap)
    top = -heap[0]
    for v in it:
        if v < top:
            heapq.heapreplace(heap, -v)
            top = -heap[0]
    return sorted([-v for v in heap])


def smallest_by(values: Iterable[int], wanted: int, key: Callable[[int], int]) -> list[int]:
    """The `wanted` values of `values` with the smallest distinct `key`, in key order."""
    if wanted <= 0:
        return []
    it = iter(values)
    heap = [(-key(v), v) for v in islice(it, wanted)]
    if not heap:
        return []
    heapq.heapify(heap)
    top = -heap[0][0]
    for v in it:
        k = key(v)
        if k < top:
            heapq.heapreplace(heap, (-k, v))
            top = -heap[0][0]
    heap.sort(reverse=True)
    return [v for _, v in heap]
