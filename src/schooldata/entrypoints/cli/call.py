"""`schooldata call OPERATION NAME=VALUE...`: any operation of the registry by its OpenAPI
operationId, with the API's parameter names, through the one pipeline.

Curated commands (`search`, `rankings`, ...) give analysts short options and chosen
columns; this one exists so that an operation declared in `application/operations` reaches
the CLI with no code here, as it reaches REST, OpenAPI and the library. A name is forgiven its
case when that names one operation, and a near miss is answered with the nearest names
(`application.local.resolve`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TextIO

import click
from click.shell_completion import CompletionItem

from schooldata.application.local import OPERATION_NAMES, resolve
from schooldata.application.operations.param import Kind
from schooldata.application.pipeline import LOCAL
from schooldata.entrypoints import answers, local
from schooldata.entrypoints.answers import Rendered
from schooldata.entrypoints.cli.context import Session, output_options, pass_session
from schooldata.entrypoints.cli.output import RowsView, Writer
from schooldata.entrypoints.cli.paging import Listing, one_page, paged, streamed


def _complete(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    return [
        CompletionItem(name)
        for name in OPERATION_NAMES
        if name.lower().startswith(incomplete.lower())
    ]


@click.command(name="call", epilog="Operations: " + ", ".join(OPERATION_NAMES) + ".")
@click.argument("operation", metavar="OPERATION", shell_complete=_complete)
@click.argument("assignments", nargs=-1, metavar="NAME=VALUE...")
@click.option(
    "--all",
    "every",
    is_flag=True,
    help="Every item of a list (all its pages, streamed; the public search read on).",
)
@output_options
@pass_session
def call(session: Session, operation: str, assignments: tuple[str, ...], every: bool) -> None:
    """Any operation by its operationId, with the API's parameter names.

    A list parameter (`urns`) takes commas or repeats its name. JSON output is the API's
    answer: {"data": ..., "pagination": ..., "meta": ...}, `meta` with the request id, the
    sources and their licences, and the data version; a list answer is also a table (every
    column) or CSV. A list written as CSV or JSON with fewer rows than the answer holds says
    so on stderr; --all writes every row. The operations are listed below (the operationIds
    of the OpenAPI document).

    \b
    Examples:
      schooldata call getRankings metric=ks4_attainment8_average phase=secondary
      schooldata --format json call lookupSchools urns=138180,140122
      schooldata --format csv call listSchools local_authority=Camden --all
    """
    op = resolve(operation)
    arguments = _arguments(op.name, assignments)
    if every:
        _every(session, op.name, arguments)
        return
    rendered = session.rendered(session.call(op.name, arguments))
    data = rendered.data
    view = _view(op.name)
    if op.name == local.PUBLIC_SEARCH:
        page, rows = _search_page(data), data["results"]
    elif rendered.pagination is not None:
        page, rows = _page_of(rendered), data
    else:
        page, rows = None, None
    if session.fmt == "json":
        document = {"data": data, **_extras(rendered)}
        session.write(lambda w: w.document(document))
    elif page is not None:
        caption = f"{op.name}: {page.caption('items')}"
        session.write(lambda w: w.rows(page.items, view, caption=caption))
    else:
        session.write(lambda w: w.record(data, title=op.name))
    if page is not None:
        session.tell_partial(page, len(rows or ()))


def _view(operation: str) -> RowsView:
    """Every column in a table; in CSV the API's columns (REST's `text/csv`), where the
    operation states them."""
    table = answers.table_of(operation)
    return RowsView(table=(), csv=None if table is None else table.columns)


def _page_of(rendered: Rendered) -> Listing:
    return paged(rendered.data, rendered.pagination or {})


def _search_page(data: dict[str, Any]) -> Listing:
    return one_page(data["results"], total=data["total"], per_page=data["limit"])


def _every(session: Session, operation: str, arguments: dict[str, Any]) -> None:
    """Every item, streamed: JSON is {"data": [...every item], "meta": ...} (no pagination:
    there are no pages), CSV and tables a row per item."""
    found = local.every_item(
        session.app,
        operation,
        arguments,
        plan=session.local_plan,
        face=LOCAL,
        base_url=session.base_url,
    )
    listing = streamed(found.items, total=found.total)
    if session.fmt == "json":
        meta = found.first.meta or {}
        session.write(lambda w: _json_object(w, listing.items, meta))
    else:
        caption = f"{operation}: {listing.caption('items')}"
        session.write(lambda w: w.rows(listing.items, _view(operation), caption=caption))


def _json_object(writer: Writer, items: Iterable[dict[str, Any]], meta: dict[str, Any]) -> int:
    """`{"data": [...], "meta": {...}}` with the items written as they come."""
    stream: TextIO = writer.stream
    stream.write('{"data": [')
    count = 0
    for item in items:
        stream.write(",\n  " if count else "\n  ")
        json.dump(item, stream, ensure_ascii=False)
        count += 1
    stream.write('\n], "meta": ' if count else '], "meta": ')
    json.dump(meta, stream, ensure_ascii=False)
    stream.write("}\n")
    return count


def _arguments(operation: str, assignments: tuple[str, ...]) -> dict[str, Any]:
    declared = resolve(operation).by_name
    arguments: dict[str, Any] = {}
    for assignment in assignments:
        name, equals, value = assignment.partition("=")
        if not equals or not name:
            raise click.UsageError(f"{assignment!r} is not NAME=VALUE.")
        param = declared.get(name)
        if param is not None and param.kind is Kind.URNS:
            arguments.setdefault(name, []).extend(v for v in value.split(",") if v)
        elif name in arguments:
            raise click.UsageError(f"{name} is given twice.")
        else:
            arguments[name] = value
    return arguments


def _extras(rendered: Rendered) -> dict[str, Any]:
    extras: dict[str, Any] = {}
    if rendered.pagination is not None:
        extras["pagination"] = rendered.pagination
    if rendered.meta:
        extras["meta"] = rendered.meta
    return extras
