"""`schooldata changes`: what changed since a data version, as `GET /api/v1/changes` answers."""

from __future__ import annotations

from typing import Any

import click

from schooldata.domain.changes import CHANGE_KINDS
from schooldata.entrypoints.cli import views
from schooldata.entrypoints.cli.context import Session, output_options, pass_session
from schooldata.entrypoints.cli.options import paging_options, phase_option
from schooldata.entrypoints.cli.paging import Page, listing


@click.command()
@click.option(
    "--since",
    required=True,
    metavar="VERSION",
    help="The data version your copy is of (an answer's meta.data_version, or the last "
    "sync's until).",
)
@click.option("--until", metavar="VERSION", help="Up to this version (default: the current one).")
@click.option("--kind", metavar="KIND", help=f"Only one kind: {', '.join(CHANGE_KINDS)}.")
@click.option("--local-authority", metavar="NAME|CODE", help="e.g. Camden or 202.")
@phase_option()
@paging_options
@output_options
@pass_session
def changes(
    session: Session,
    since: str,
    until: str | None,
    kind: str | None,
    local_authority: str | None,
    phase: str | None,
    page: str | None,
    per_page: str | None,
    every: bool,
) -> None:
    """What changed since a data version, school by school.

    `GET /api/v1/changes` with the same parameters, rules and order (version, then URN):
    opened, closed, updated (with the fields that changed), inspection_added,
    results_added (with key stage and year) and linked. The changes go up to the version
    current when the first page was read (`until`: the next sync's --since); --all reads
    every page up to it. JSON output is {"data": [...], "since": ..., "until": ...}; CSV
    has one row per change and says `until` on stderr. A since older than the changes kept
    (the retention) fails naming the oldest version to start from.

    \b
    Examples:
      schooldata changes --since 20261207T060000Z-000041
      schooldata changes --since 20261207T060000Z-000041 --kind closed --all -f csv
      schooldata changes --since 20000101T000000Z-000001   # exit code 1: no longer kept
    """
    pinned: dict[str, object] = {}
    versions: dict[str, str] = {}

    def fetch(request: dict[str, object]) -> Page:
        rendered = session.data("listChanges", {**request, **pinned})
        meta: dict[str, Any] = rendered.meta or {}
        pinned.setdefault("until", meta["until"])  # every later page lists the same changes
        versions.update(since=meta["since"], until=meta["until"])
        paging = rendered.pagination or {}
        return Page(rendered.data, paging["page"], paging["total"], paging["total_pages"])

    given = {
        "since": since,
        "until": until,
        "kind": kind,
        "local_authority": local_authority,
        "phase": phase,
    }
    params: dict[str, object] = {k: v for k, v in given.items() if v is not None}
    every_per_page = session.local_plan.per_page_max
    found = listing(
        fetch, params, page=page, per_page=per_page, every=every, every_per_page=every_per_page
    )
    span = f"since {versions['since']} up to {versions['until']}"
    if session.fmt == "json":
        document = {"data": list(found.items), **versions}
        session.write(lambda w: w.document(document))
        written = len(document["data"])
    else:
        caption = f"{found.caption('changes')} {span}"
        written = session.write(lambda w: w.rows(found.items, views.CHANGES, caption=caption))
        if session.fmt == "csv":
            click.echo(f"Changes {span}: the next --since is {versions['until']}.", err=True)
    found.check_found(written, "changes")
