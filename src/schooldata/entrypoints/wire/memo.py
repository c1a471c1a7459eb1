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
        self._count = 0
        # By base URL, then by the school's id: an int key hashes and compares in C, where a
        # (id, base URL) tuple would be built and hashed on every call.
        self._items: dict[str, dict[int, tuple[School, T]]] = {}

    def __call__(self, school: School, base_url: str) -> T:
        shapes = self._items.get(base_url)
        if shapes is not None:
            found = shapes.get(id(school))
            if found is not None and found[0] is school:
                return found[1]
        shape = self._build(school, base_url)
        if self._count >= self._max:
            self._items = {}  # (a swap, not a clear: other threads may be reading the old one)
            self._count = 0
            shapes = None
        if shapes is None:
            shapes = self._items.setdefault(base_url, {})
        if id(school) not in shapes:
            self._count += 1
        shapes[id(school)] = (school, shape)
        return shape
