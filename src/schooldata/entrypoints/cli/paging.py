"""List answers page by page: one page like the API, or `--all` pages streamed as read.

No silent truncation: a list written as CSV or JSON that holds fewer rows than the answer has
says so on stderr, in one line (`Wrote 20 of 46 rows; --all for every row.`), and the command
still exits 0 (a table says it in its caption). Every list command writes through
`Session.write_listing`, which applies this rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from itertools import chain
from typing import Any

import click
from attrs import frozen

from schooldata.entrypoints.cli.errors import NoResult


@frozen
class Page:
    items: list[dict[str, Any]]
    page: int
    total: int
    total_pages: int
    with_distance: bool = False


Fetch = Callable[[dict[str, object]], Page]


@frozen
class Listing:
    first: Page
    items: Iterator[dict[str, Any]]
    every: bool

    def caption(self, noun: str) -> str:
        if self.every:
            return f"{self.first.total} {noun}"
        more = " (--all for every page)" if self.first.total_pages > 1 else ""
        pages = max(self.first.total_pages, 1)
        return f"Page {self.first.page} of {pages}: {self.first.total} {noun}{more}"

    def partial_notice(self, written: int) -> str | None:
        """The line that says a written list is not the whole answer (None: it is whole)."""
        total = self.first.total
        if self.every or written == 0 or written >= total:
            return None
        return f"Wrote {written:,} of {total:,} rows; --all for every row."

    def check_found(self, written: int, noun: str) -> None:
        """Exit code 1 once the (empty) answer is written: nothing matched, or past the end."""
        if self.first.total == 0:
            raise NoResult(f"No {noun} matched.")
        if written == 0:
            raise NoResult(
                f"Page {self.first.page} is past the last page ({self.first.total_pages})."
            )


def listing(
    fetch: Fetch,
    params: dict[str, object],
    *,
    page: str | None,
    per_page: str | None,
    every: bool,
    every_per_page: int,
) -> Listing:
    """Fetch the first page now (so a bad parameter fails before any output is written);
    with `every`, later pages are fetched while the first is being written."""
    if every and page is not None:
        raise click.UsageError("--all reads every page; leave out --page.")
    request = dict(params)
    if page is not None:
        request["page"] = page
    if per_page is not None:
        request["per_page"] = per_page
    elif every:
        request["per_page"] = every_per_page
    first = fetch(request)
    if not every:
        return Listing(first=first, items=iter(first.items), every=False)

    def later() -> Iterator[dict[str, Any]]:
        number = first.page
        while number < first.total_pages:
            number += 1
            yield from fetch({**request, "page": number}).items

    return Listing(first=first, items=chain(first.items, later()), every=True)


def paged(items: list[dict[str, Any]], pagination: Mapping[str, Any]) -> Listing:
    """One page of a paged answer, from its `pagination`."""
    first = Page(items, pagination["page"], pagination["total"], pagination["total_pages"])
    return Listing(first=first, items=iter(items), every=False)


def one_page(items: list[dict[str, Any]], *, total: int, per_page: int) -> Listing:
    """An answer that is one page of `total` items (the public search's results)."""
    pages = (total + per_page - 1) // per_page if per_page else 0
    return Listing(first=Page(items, 1, total, pages), items=iter(items), every=False)


def streamed(items: Iterator[dict[str, Any]], *, total: int) -> Listing:
    """Every item of an answer, streamed (`--all`)."""
    return Listing(first=Page([], 1, total, 1), items=items, every=True)
