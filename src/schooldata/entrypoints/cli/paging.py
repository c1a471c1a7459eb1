"""List answers page by page: one page like the API, or `--all` pages streamed as read."""

from __future__ import annotations

from collections.abc import Callable, Iterator
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

    def later() -> Iterator[dict[str, Any]]:
        number = first.page
        while number < first.total_pages:
            number += 1
            yield from fetch({**request, "page": number}).items

    items = chain(first.items, later()) if every else iter(first.items)
    return Listing(first=first, items=items, every=every)
