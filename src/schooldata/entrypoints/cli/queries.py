"""The register queries: the same use cases and the same JSON (`wire`) as their API twins."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TextIO

import click

from schooldata.application.commercial import ListAnswer
from schooldata.application.search_schools import PublicSearchAnswer
from schooldata.entrypoints import answers, wire
from schooldata.entrypoints.cli import views
from schooldata.entrypoints.cli.context import Session, output_options, pass_session
from schooldata.entrypoints.cli.errors import NoResult
from schooldata.entrypoints.cli.options import (
    api_parameters,
    filter_options,
    paging_options,
    phase_option,
    radius_option,
)
from schooldata.entrypoints.cli.paging import Page, listing, one_page, streamed


@click.command()
@click.argument("query", required=False)
@click.option("-p", "--postcode", metavar="POSTCODE", help="Nearest this postcode or outward code.")
@phase_option()
@radius_option()
@click.option("--limit", metavar="N", help="1-25 results (default 10), as the public API.")
@click.option("--all", "every", is_flag=True, help="Every match, streamed (instead of --limit).")
@output_options
@pass_session
def search(
    session: Session,
    query: str | None,
    postcode: str | None,
    phase: str | None,
    radius: str | None,
    limit: str | None,
    every: bool,
) -> None:
    """Search schools by name, authority, type or postcode.

    The public search (`GET /api/v1/search`) with the same rules: QUERY and/or --postcode,
    each at least 2 characters; results nearest first when a postcode is given. JSON output
    is the API's whole SearchResponse (with --all: an array of every result).

    \b
    Examples:
      schooldata search "st mary"
      schooldata search --postcode "SW1A 1AA" --phase primary --radius 2
      schooldata --format csv -o camden.csv search camden --all
    """
    if every and limit is not None:
        raise click.UsageError("--all returns every match; leave out --limit.")
    given = {
        "query": query,
        "postcode": postcode,
        "phase": phase,
        "radius_miles": radius,
        "limit": limit,
    }
    outcome = session.call("searchSchools", {k: v for k, v in given.items() if v is not None})
    answer: PublicSearchAnswer = outcome.result
    view = views.search_view(with_distance=answer.with_distance)
    total = answer.page.total
    if every:
        found = streamed(_every_result(session, answer), total=total)
        session.write_listing(found, view, "schools", caption=f"{total} schools")
        return
    document = session.rendered(outcome).data
    rows = document["results"]
    found = one_page(rows, total=total, per_page=answer.limit)
    if session.fmt == "json":
        session.write(lambda w: w.document(document))
        session.tell_partial(found, len(rows))
        found.check_found(len(rows), "schools")
        return
    session.write_listing(found, view, "schools", caption=f"{len(rows)} of {total} schools")


def _every_result(session: Session, answer: PublicSearchAnswer) -> Iterator[dict[str, Any]]:
    """Every result of the public question, not cut at its limit: the public search use case
    reads the same question on (the same evaluator, postcode and order), in the public shape."""
    base = session.base_url
    for hit in session.app.search_schools.every(answer.request):
        yield wire.public_search_result(hit, base_url=base, with_distance=answer.with_distance)


@click.command()
@click.argument("urn")
@click.option("--public", is_flag=True, help="The anonymous API's record instead of the profile.")
@output_options
@pass_session
def school(session: Session, urn: str, public: bool) -> None:
    """One open school by its six-digit URN.

    By default the joined profile a commercial caller gets from `GET /api/v1/schools/URN`
    (every commercially licensed field, links and resource URLs); --public shows the
    anonymous SchoolRecord instead.

    \b
    Examples:
      schooldata school 138180
      schooldata --format json school 138180 --public
    """
    record = session.data("getSchool" if public else "getSchoolProfile", {"urn": urn}).data
    session.write(lambda w: w.record(record, title=str(record.get("name", urn))))


@click.command()
@click.argument("urns", nargs=-1, metavar="URN...")
@click.option(
    "--from-file",
    "from_file",
    type=click.File("r", encoding="utf-8"),
    metavar="FILE",
    help="Also the URNs in FILE ('-': stdin), separated by spaces, commas or lines; '#' starts "
    "a comment.",
)
@output_options
@pass_session
def lookup(session: Session, urns: tuple[str, ...], from_file: TextIO | None) -> None:
    """The joined profiles of several schools at once, in the order given.

    `POST /api/v1/schools/lookup`: 1 to the plan's per_page maximum distinct URNs (locally
    up to 10,000; with --as-plan the plan's). JSON output is the API's `data` and its
    `not_found`: {"data": [...], "not_found": [...]}; a table or CSV has one row per profile.
    URNs that name no open school (unknown, closed, proposed) are listed on stderr: exit 0
    when any school was found, 1 when none was.

    \b
    Examples:
      schooldata lookup 138180 140122 109144
      schooldata --format csv lookup 138180 999999 -o profiles.csv
      schooldata --format json lookup 999999 109785      # exit code 1: none is open
    """
    asked = [*urns, *_urns_in(from_file)]
    if not asked:
        raise click.UsageError("give at least one URN, or --from-file FILE.")
    outcome = session.call("lookupSchools", {"urns": asked})
    rendered = answers.render(outcome, base_url=session.base_url)
    profiles = rendered.data
    not_found: list[str] = (rendered.meta or {}).get("not_found", [])
    if session.fmt == "json":
        session.write(lambda w: w.document({"data": profiles, "not_found": not_found}))
    else:
        caption = f"{len(profiles)} of {len(asked)} schools"
        session.write(lambda w: w.rows(profiles, views.PROFILES, caption=caption))
    if not profiles:
        raise NoResult(f"No open school has any of these URNs: {', '.join(not_found)}.")
    if not_found:
        click.echo(f"Not found (no open school): {', '.join(not_found)}", err=True)


def _urns_in(source: TextIO | None) -> list[str]:
    """The URNs of a file as written (each is checked as the API checks it)."""
    if source is None:
        return []
    found: list[str] = []
    for line in source:
        found += line.partition("#")[0].replace(",", " ").split()
    return found


@click.command()
@click.argument("postcode", required=False)
@filter_options(postcode=False)
@paging_options
@output_options
@pass_session
def nearby(
    session: Session,
    /,
    postcode: str | None,
    page: str | None,
    per_page: str | None,
    every: bool,
    **filters: str | None,
) -> None:
    """Open schools nearest a postcode, or --lat/--lon; nearest first.

    `GET /api/v1/schools/nearby` with the same filters, bounds and paging. JSON output is the
    API's `data` array.

    \b
    Examples:
      schooldata nearby "SW1A 1AA" --radius 1 --phase primary
      schooldata nearby --lat 51.5 --lon -0.14 --sort score --per-page 50
      schooldata --format csv nearby "B1 2UN" --all
    """
    params = api_parameters({**filters, "postcode": postcode})
    _list_schools(session, "nearbySchools", params, page, per_page, every)


@click.command()
@filter_options(postcode=True)
@paging_options
@output_options
@pass_session
def schools(
    session: Session, /, page: str | None, per_page: str | None, every: bool, **filters: str | None
) -> None:
    """List open schools with any of the API's filters.

    `GET /api/v1/schools` with the same filters, bounds and paging.
    Without --sort: nearest first with an origin, best match first with --query, else by
    name; ties break by URN, so pages are stable. JSON output is the API's `data` array.

    \b
    Examples:
      schooldata schools --local-authority Camden --phase secondary
      schooldata schools --ofsted-rating 1 --sort name --all --format csv
    """
    params = api_parameters(filters)
    _list_schools(session, "listSchools", params, page, per_page, every)


def _list_schools(
    session: Session,
    operation: str,
    params: dict[str, object],
    page: str | None,
    per_page: str | None,
    every: bool,
) -> None:
    def fetch(request: dict[str, object]) -> Page:
        outcome = session.call(operation, request)
        answer: ListAnswer = outcome.result
        rendered = answers.render(outcome, base_url=session.base_url)
        return Page(
            rendered.data,
            answer.page,
            answer.result.total,
            answer.total_pages,
            answer.with_distance,
        )

    every_per_page = session.every_per_page
    found = listing(
        fetch, params, page=page, per_page=per_page, every=every, every_per_page=every_per_page
    )
    view = views.schools_view(with_distance=found.first.with_distance)
    session.write_listing(found, view, "schools")


@click.command()
@click.option("-q", "--query", metavar="TEXT", help="Only names containing TEXT (2+ chars).")
@paging_options
@output_options
@pass_session
def authorities(
    session: Session, query: str | None, page: str | None, per_page: str | None, every: bool
) -> None:
    """Local authorities and how many open schools each has.

    `GET /api/v1/areas/local-authorities`; JSON output is the API's `data` array.

    \b
    Examples:
      schooldata authorities --all
      schooldata authorities -q birm --format json
    """

    def fetch(request: dict[str, object]) -> Page:
        rendered = session.data("listLocalAuthorities", request)
        paging = rendered.pagination or {}
        return Page(rendered.data, paging["page"], paging["total"], paging["total_pages"])

    params: dict[str, object] = {} if query is None else {"q": query}
    every_per_page = session.every_per_page
    found = listing(
        fetch, params, page=page, per_page=per_page, every=every, every_per_page=every_per_page
    )
    session.write_listing(found, views.AUTHORITIES, "local authorities")


@click.command()
@output_options
@pass_session
def freshness(session: Session) -> None:
    """Each dataset's period, cadence, coverage and import time.

    `GET /api/v1/data-freshness`; JSON output is the API's `data` array.

    \b
    Example:
      schooldata freshness --format csv
    """

    def fetch(request: dict[str, object]) -> Page:
        rendered = session.data("getDataFreshness", request)
        paging = rendered.pagination or {}
        return Page(rendered.data, paging["page"], paging["total"], paging["total_pages"])

    # Always every dataset: the list is short, and a partial one would mislead.
    every_per_page = session.every_per_page
    found = listing(fetch, {}, page=None, per_page=None, every=True, every_per_page=every_per_page)
    written = session.write(lambda w: w.rows(found.items, views.FRESHNESS))
    if not written:
        raise NoResult("No dataset has been imported yet.")


@click.command()
@output_options
@pass_session
def meta(session: Session) -> None:
    """Versions, source policy, plans and sources.

    `GET /api/v1/meta`; JSON output is the API's `data`.

    \b
    Example:
      schooldata --format json meta
    """
    document = session.data("getMeta", {}).data
    session.write(lambda w: w.record(document, title="schooldata"))
