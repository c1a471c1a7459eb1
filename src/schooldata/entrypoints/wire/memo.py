"""A school's shapes built once per data version, not once per request.

Schools are immutable within a data version and a new version brings new `School` objects, so
the object's identity (checked, not just its id) keys the memo, with the base URL its URLs
point at. The memo is bounded by entries and dropped whole when full, so old versions' objects
are let go.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from schooldata.domain.school import School

T = TypeVar("T")
MAX_ENTRIES = 100_000  # every served school, under a few base URLs


class PerSchool(Generic[T]):
    def __init__(self, build: Callable[[School, str], T], max_entries: int = MAX_ENTRIES) -> None:
        self._build = build
        self._max = max_entries
        self._items: dict[tuple[int, str], tuple[School, T]] = {}

    def __call__(self, school: School, base_url: str) -> T:
        key = (id(school), base_url)
        found = self._items.get(key)
        if found is not None and found[0] is school:
            return found[1]
        shape = self._build(school, base_url)
        if len(self._items) >= self._max:
            self._items = {}  # (a swap, not a clear: other threads may be reading the old one)
        self._items[key] = (school, shape)
        return shape
