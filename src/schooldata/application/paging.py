"""One page of a list: which page was asked for, and the page it gives (every list pages so)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, TypeVar

from attrs import frozen

T = TypeVar("T")


@frozen(kw_only=True)
class PageRequest:
    """`page` from 1 (past the last: an empty page, true totals); `per_page` bounded by the
    plan (default 20)."""

    page: int
    per_page: int

    def of(self, items: Sequence[T]) -> Page[T]:
        """This page of `items` (all the matches, in their order)."""
        start = (self.page - 1) * self.per_page
        return Page(
            page=self.page,
            per_page=self.per_page,
            total=len(items),
            items=tuple(items[start : start + self.per_page]),
        )


@frozen(kw_only=True)
class Page(Generic[T]):
    page: int
    per_page: int
    total: int
    items: tuple[T, ...]
