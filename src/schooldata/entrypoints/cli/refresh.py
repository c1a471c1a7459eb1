"""`schooldata refresh`: the publishers' newest files, imported when they changed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from schooldata.application.publishers import PUBLICATION_NAMES
from schooldata.application.refresh import SourceOutcome, Status
from schooldata.entrypoints.cli.context import Session, output_options, pass_session
from schooldata.entrypoints.cli.errors import CliError, ExitCode
from schooldata.entrypoints.cli.output import RowsView, Writer
from schooldata.ports.downloads import ByteProgress
from schooldata.ports.imports import Progress as RowProgress

ALREADY_RUNNING = "already running"
OUTCOMES = RowsView(
    table=(),
    csv=("source", "status", "publisher_date", "rows", "url", "detail"),
)


@click.command()
@click.option(
    "--only",
    metavar="SOURCES",
    help=f"Comma-separated, of {', '.join(PUBLICATION_NAMES)} (default: all three).",
)
@click.option(
    "--dry-run", is_flag=True, help="Say what would be downloaded; download and change nothing."
)
@click.option(
    "--db",
    metavar="URL",
    expose_value=False,
    callback=lambda ctx, param, value: _use_database(ctx, value),
    help="The database to keep current (as the global --db; after the command too).",
)
@output_options
@pass_session
def refresh(session: Session, only: str | None, dry_run: bool) -> None:
    """Fetch the publishers' newest files and import the ones that changed.

    For each source (GIAS establishments and links: today's file, else the newest of the
    last 7 days; OS Code-Point Open), one line on stdout: `unchanged`, `imported N rows
    (date)`, or why it was refused or unreachable. A file is unchanged when the publisher
    answers 304 or it is the file imported last (same date and SHA-256). Anything else is
    imported as `import` would, every guard included (a file that would shrink what is
    served is refused). A second refresh while one runs prints `already running` and exits 0.

    Exit 0 when every source is current or imported, 3 when one was refused or unreachable
    (the others are still done), 2 for a bad option.

    \b
    Examples:
      schooldata refresh
      schooldata refresh --only gias,links --dry-run
      schooldata --db postgresql+psycopg://app@db/schooldata refresh --only postcodes
    """
    names = _names(only)
    session.create_database = not dry_run  # refresh writes data, as an import does
    build = session.runtime.refresh
    if build is None:
        raise CliError("this build has no refresh.", ExitCode.UNAVAILABLE)
    use_case = build(session.app, session.settings)
    with _bars() as bars:
        report = use_case.execute(only=names, dry_run=dry_run, progress=bars)
    if report.already_running:
        click.echo(ALREADY_RUNNING)
        return
    for outcome in report.outcomes:
        if outcome.removed_demo:
            click.echo(
                f"Removed the bundled demo ({', '.join(outcome.removed_demo)}): real and demo "
                "data are never served together.",
                err=True,
            )
    session.write(lambda writer: _write(writer, list(report.outcomes)))
    if not report.ok:
        raise click.exceptions.Exit(ExitCode.UNAVAILABLE)


def _use_database(ctx: click.Context, url: str | None) -> None:
    session = ctx.find_object(Session)
    if url is not None and session is not None:
        session.database_url = url


def _names(only: str | None) -> list[str] | None:
    if only is None:
        return None
    names = [name.strip() for name in only.split(",") if name.strip()]
    unknown = [name for name in names if name not in PUBLICATION_NAMES]
    if unknown or not names:
        raise click.BadParameter(
            f"takes one or more of {', '.join(PUBLICATION_NAMES)}, comma-separated; got {only!r}.",
            param_hint="'--only'",
        )
    return names


def line(outcome: SourceOutcome) -> str:
    """One line per source: what was done, or why not."""
    status = outcome.status
    if status is Status.IMPORTED:
        rows = outcome.rows or 0
        said = f"imported {rows:,} row{'' if rows == 1 else 's'} ({outcome.publisher_date})"
    elif status is Status.UNCHANGED:
        said = "unchanged"
    elif status is Status.WOULD_DOWNLOAD:
        dated = f" ({outcome.publisher_date})" if outcome.publisher_date else ""
        said = f"would download {outcome.url}{dated} {outcome.detail}"
    else:
        said = f"{status.value}: {' '.join(outcome.detail.split())}"
    return f"{outcome.source}: {said}"


def item(outcome: SourceOutcome) -> dict[str, Any]:
    return {
        "source": outcome.source,
        "status": outcome.status.value,
        "publisher_date": outcome.publisher_date,
        "rows": outcome.rows,
        "url": outcome.url,
        "detail": outcome.detail or None,
    }


def _write(writer: Writer, outcomes: list[SourceOutcome]) -> None:
    if writer.fmt == "table":
        for outcome in outcomes:
            writer.stream.write(line(outcome) + "\n")
        return
    writer.rows([item(o) for o in outcomes], OUTCOMES)


class _Bars:
    """Progress on stderr (shown only on a terminal): bytes downloaded, then rows read."""

    def __init__(self, bars: Progress) -> None:
        self._bars = bars

    def downloading(self, source: str, url: str) -> ByteProgress:
        task = self._bars.add_task(f"{source}: {url.rsplit('/', 1)[-1]}", total=None)

        def update(received: int, total: int | None) -> None:
            self._bars.update(task, completed=received, total=total)

        return update

    def importing(self, source: str) -> RowProgress:
        task: TaskID = self._bars.add_task(f"{source}: importing", total=None)
        return lambda rows: self._bars.update(task, description=f"{source}: {rows:,} rows read")


@contextmanager
def _bars() -> Iterator[_Bars]:
    console = Console(stderr=True)
    bars = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=not console.is_terminal,
    )
    with bars:
        yield _Bars(bars)
