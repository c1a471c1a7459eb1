"""The dataset queries: inspections, results, admissions, finance, compare and rankings.

Each answer is the REST response's `data`, built by the application's dataset API. Nothing
of it is left out of a table or CSV: an answer that is one list of objects (the compared
schools) is a row per object; a table shows the other fields of an answer with one list of
objects (an inspection history: the school, its report card, the note) as a record above the
list's rows; CSV writes any other answer as one row of all its flattened fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from schooldata.application.school_data import Ranking
from schooldata.domain.plans import Feature
from schooldata.entrypoints import wire
from schooldata.entrypoints.cli import views
from schooldata.entrypoints.cli.context import Session, output_options, pass_session
from schooldata.entrypoints.cli.options import paging_options, phase_option
from schooldata.entrypoints.cli.output import Writer
from schooldata.entrypoints.cli.paging import Page, listing


def show(writer: Writer, data: Any, *, title: str) -> None:
    if writer.fmt == "json":
        writer.document(data)
    elif isinstance(data, list):
        writer.rows(data, views.ANY, caption=title)
    elif isinstance(data, Mapping):
        lists = [k for k, v in data.items() if isinstance(v, list) and v and _objects(v)]
        if len(lists) != 1:
            writer.record(data, title=title)
            return
        key = lists[0]
        rest = {k: v for k, v in data.items() if k != key}
        if rest and writer.fmt == "csv":
            # One CSV table cannot hold the record and its rows apart: one row holds it all.
            writer.record(data, title=title)
            return
        if rest:
            writer.record(rest, title=title)
        writer.rows(data[key], views.ANY, caption=key)
    else:
        writer.document(data)


def _objects(values: list[Any]) -> bool:
    return all(isinstance(v, Mapping) for v in values)


PREDECESSORS_HELP = (
    "Also the predecessors' (GIAS conversion and amalgamation links, transitively), each "
    "under its own URN with the link that led there."
)


def _per_school(
    name: str,
    operation: str,
    feature: Feature,
    summary: str,
    example: str,
    *,
    predecessors: bool = False,
) -> click.Command:
    def run(session: Session, urn: str, include_predecessors: bool = False) -> None:
        arguments: dict[str, object] = {"urn": urn}
        if include_predecessors:
            arguments["include_predecessors"] = True
        data = session.data(operation, arguments).data
        session.write(lambda w: show(w, data, title=f"{name} {urn}"))

    run.__doc__ = (
        f"{summary}\n\n`GET /api/v1/schools/URN/{name}`: JSON output is the API's `data`."
        f" Feature `{feature.value}`.\n\n\b\nExample:\n  {example}"
    )
    command = output_options(pass_session(run))
    if predecessors:
        command = click.option("--include-predecessors", is_flag=True, help=PREDECESSORS_HELP)(
            command
        )
    return click.command(name)(click.argument("urn")(command))


inspections = _per_school(
    "inspections",
    "getSchoolInspections",
    Feature.INSPECTIONS,
    "A school's structured inspection history.",
    "schooldata inspections 138180 --include-predecessors",
    predecessors=True,
)
results = _per_school(
    "results",
    "getSchoolResults",
    Feature.RESULTS,
    "A school's results and trends, each year with its release (provisional, revised, final).",
    "schooldata --format json results 140122 --include-predecessors",
    predecessors=True,
)
admissions = _per_school(
    "admissions",
    "getSchoolAdmissions",
    Feature.ADMISSIONS,
    "A school's admissions policy and demand.",
    "schooldata admissions 138180",
)
finance = _per_school(
    "finance",
    "getSchoolFinance",
    Feature.FINANCE,
    "A school's finance and funding.",
    "schooldata --format csv finance 140122",
)


@click.command()
@click.argument("urns", nargs=-1, required=True, metavar="URN URN...")
@output_options
@pass_session
def compare(session: Session, urns: tuple[str, ...]) -> None:
    """Compare two or more schools side by side.

    `POST /api/v1/schools/compare`: at least 2 distinct URNs; locally up to 10,000, with
    --as-plan the plan's maximum. JSON output is the API's `data`.

    \b
    Example:
      schooldata compare 140122 140360 109144
    """
    data = session.data("compareSchools", {"urns": list(urns)}).data
    session.write(lambda w: show(w, data, title="comparison"))


@click.command()
@click.option("--metric", required=True, metavar="METRIC", help="The measure to rank by.")
@phase_option("The phase ranked (required): primary, secondary, ...")
@click.option("--local-authority", metavar="NAME|CODE", help="Only this authority's schools.")
@click.option("--order", metavar="desc|asc", help="desc (default): the highest value first.")
@paging_options
@output_options
@pass_session
def rankings(
    session: Session,
    metric: str,
    phase: str | None,
    local_authority: str | None,
    order: str | None,
    page: str | None,
    per_page: str | None,
    every: bool,
) -> None:
    """Schools ranked by a measure within a phase.

    `GET /api/v1/rankings` with the same parameters, defaults (highest first, page 1, 20 a
    page), bounds and order (ties by URN); schools without a value are not ranked, and the
    table's caption counts them by reason (the API's `meta.ranking.excluded`). JSON output
    is the API's `data` array.

    \b
    Examples:
      schooldata rankings --metric ks4_attainment8_average --phase secondary
      schooldata rankings --metric svc_score --phase primary --order asc --all -f csv
    """
    held: list[Ranking] = []

    def fetch(request: dict[str, object]) -> Page:
        ranking: Ranking = session.call("getRankings", request).result
        held.append(ranking)
        items, paging = wire.ranking_page(ranking)
        return Page(items, ranking.page, ranking.total, paging["total_pages"])

    given = {"metric": metric, "phase": phase, "local_authority": local_authority, "order": order}
    params: dict[str, object] = {k: v for k, v in given.items() if v is not None}
    every_per_page = session.every_per_page
    found = listing(
        fetch, params, page=page, per_page=per_page, every=every, every_per_page=every_per_page
    )
    noun = f"schools ranked by {metric}"
    caption = found.caption(noun) + _excluded(held[0])
    session.write_listing(found, views.RANKINGS, noun, caption=caption)


def _excluded(ranking: Ranking) -> str:
    """The schools the ranking leaves out for want of a value, by reason (never ranked as 0)."""
    if not ranking.excluded:
        return ""
    reasons = ", ".join(f"{count} {reason}" for reason, count in ranking.excluded.items())
    return f"; not ranked: {reasons}"
