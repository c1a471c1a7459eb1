"""`schooldata call OPERATION NAME=VALUE...`: any operation of the registry by its OpenAPI
operationId, with the API's parameter names, through the one pipeline.

Curated commands (`search`, `rankings`, ...) give analysts short options and chosen
columns; this one exists so that an operation declared in `application/operations` reaches
the CLI with no code here, as it reaches REST, OpenAPI and the library.
"""

from __future__ import annotations

from typing import Any

import click

from schooldata.application.operations.declaration import Kind
from schooldata.application.operations.registry import REGISTRY
from schooldata.entrypoints import answers
from schooldata.entrypoints.cli.context import Session, output_options, pass_session
from schooldata.entrypoints.cli.output import RowsView

EVERY_COLUMN = RowsView(table=(), csv=None)
NAMES = tuple(op.name for op in REGISTRY.operations)


@click.command(name="call", epilog="Operations: " + ", ".join(NAMES) + ".")
@click.argument("operation", type=click.Choice(NAMES), metavar="OPERATION")
@click.argument("assignments", nargs=-1, metavar="NAME=VALUE...")
@output_options
@pass_session
def call(session: Session, operation: str, assignments: tuple[str, ...]) -> None:
    """Any operation by its operationId, with the API's parameter names.

    A list parameter (`urns`) takes commas or repeats its name. JSON output is the API's
    answer: {"data": ..., "pagination": ..., "meta": ...}; a list answer is also a table
    (every column) or CSV. The operations are listed below (the operationIds of the
    OpenAPI document).

    \b
    Examples:
      schooldata call getRankings metric=ks4_attainment8_average phase=secondary
      schooldata --format json call lookupSchools urns=138180,140122
      schooldata --format csv call listSchools local_authority=Camden per_page=100
    """
    rendered = answers.render(
        session.call(operation, _arguments(operation, assignments)), base_url=session.base_url
    )
    if session.fmt == "json":
        document = {"data": rendered.data, **_extras(rendered)}
        session.write(lambda w: w.document(document))
    elif isinstance(rendered.data, list):
        session.write(lambda w: w.rows(rendered.data, EVERY_COLUMN, caption=operation))
    else:
        session.write(lambda w: w.record(rendered.data, title=operation))


def _arguments(operation: str, assignments: tuple[str, ...]) -> dict[str, Any]:
    declared = REGISTRY[operation].by_name
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


def _extras(rendered: answers.Rendered) -> dict[str, Any]:
    extras: dict[str, Any] = {}
    if rendered.pagination is not None:
        extras["pagination"] = rendered.pagination
    if rendered.meta:
        extras["meta"] = rendered.meta
    return extras
