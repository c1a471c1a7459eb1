"""Answers for a local caller (the CLI and the library): the API's answer with its whole `meta`,
and every page of a list read one page at a time.

- `meta` is the commercial envelope's (request id, when the data was generated, each source
  with its publisher, licence and attribution) on every answer, the public ones included,
  since the open licences ask for the attribution wherever the data goes; plus the data
  version the answer was read at. Pagination stays beside it (`Rendered.pagination`).
- `every_item` reads a paged list (`Operation.paged`) page after page, each page asked like
  the first with only `page` moved (`STREAM_PAGE` rows a page), so a whole national list is
  never held at once; the public search is read on past its limit by its own use
  case (`SearchSchools.every`), in the public shape.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import chain
from typing import Any

import msgspec
from attrs import frozen

from schooldata.application.local import call_locally, resolve
from schooldata.application.operations.declaration import AnyOperation
from schooldata.application.pipeline import Face, Outcome
from schooldata.application.search_schools import PublicSearchAnswer
from schooldata.application.service import Application
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.errors import InvalidParameter
from schooldata.domain.plans import Plan
from schooldata.entrypoints import answers, wire
from schooldata.entrypoints.answers import Rendered
from schooldata.entrypoints.wire.meta import data_updated_at, sources

PUBLIC_SEARCH = "searchSchools"
# Every page of a list is read this many rows at a time (or the plan's maximum, if lower): a
# whole national list streams in memory that one page bounds.
STREAM_PAGE = 1_000


def stream_page(plan: Plan) -> int:
    return min(plan.per_page_max, STREAM_PAGE)


def data_version(app: Application) -> str | None:
    """The data version (`GET /api/v1/changes`' ids) an answer was read at: made by every
    import or refresh that changes what is served. (The one place a local answer's
    `data_version` and an export's come from.) None: no data imported yet."""
    version = app.ports.datasets.data_version()
    return None if version is None else version.id


def local_meta(
    app: Application, outcome: Outcome, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The envelope's `meta` for a local caller's answer (without its pagination)."""
    records: tuple[DatasetRecord, ...] | list[DatasetRecord] = outcome.sources or list(
        app.ports.datasets.current()
    )
    meta: dict[str, Any] = {
        "request_id": app.ids.request_id(),
        "data_updated_at": msgspec.to_builtins(data_updated_at(records)),
        "sources": msgspec.to_builtins(sources(records)),
        "data_version": data_version(app),
    }
    meta.update(extra or {})
    return meta


def rendered(app: Application, outcome: Outcome, *, base_url: str) -> Rendered:
    """The outcome as the API's `data` and pagination, with the whole `meta`."""
    shown = answers.render(outcome, base_url=base_url)
    return Rendered(
        data=shown.data,
        pagination=shown.pagination,
        meta=local_meta(app, outcome, shown.meta),
    )


def listable(operation: AnyOperation) -> bool:
    """Whether every item of the operation's answer can be asked for (`--all`, `all=True`):
    a paged list, or the public search (whose results a local caller may read on)."""
    return operation.paged or operation.name == PUBLIC_SEARCH


@frozen
class Every:
    """Every item of a list answer: `first`, the answer to the question as asked (its meta,
    and for a paged list its first page), `total` items in all, and `items`, streamed (the
    first page's included)."""

    operation: str
    first: Rendered
    total: int
    items: Iterator[dict[str, Any]]


def every_item(
    app: Application,
    operation: str,
    arguments: Mapping[str, object],
    *,
    plan: Plan,
    face: Face,
    base_url: str,
) -> Every:
    """Every item of a paged list or of the public search. The first page is asked at once, so
    a bad argument fails before anything is written; the others as `items` is read."""
    op = resolve(operation)
    if not listable(op):
        raise InvalidParameter(
            "all",
            f"{op.name} answers one record, not a list: every item (all) is for the paged "
            "lists and the public search.",
        )

    def ask(request: Mapping[str, object]) -> Outcome:
        return call_locally(app.pipeline, op.name, request, plan=plan, face=face)

    if not op.paged:  # the public search, read on past its limit
        outcome = ask(arguments)
        answer: PublicSearchAnswer = outcome.result
        results = (
            wire.public_search_result(hit, base_url=base_url, with_distance=answer.with_distance)
            for hit in app.search_schools.every(answer.request)
        )
        first = rendered(app, outcome, base_url=base_url)
        return Every(operation=op.name, first=first, total=answer.page.total, items=results)
    if "page" in arguments:
        raise InvalidParameter("page", "Every page is read: leave out page.")
    request = {"per_page": stream_page(plan), **arguments}
    first = rendered(app, ask(request), base_url=base_url)
    paging = first.pagination or {}

    def later() -> Iterator[dict[str, Any]]:
        for number in range(2, int(paging.get("total_pages", 1)) + 1):
            page = answers.render(ask({**request, "page": number}), base_url=base_url).data
            if not page:  # the data changed under the reader: nothing further
                return
            yield from page

    total = int(paging.get("total", 0))
    return Every(operation=op.name, first=first, total=total, items=chain(first.data, later()))
