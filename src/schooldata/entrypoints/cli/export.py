"""`schooldata export DATASET`: a whole dataset in long, tidy form, as CSV or Parquet.

The rows are `application.exports`' (the same rules as the library's `client.export`),
streamed: the full national register is written in flat memory. On a terminal a progress bar
counts the schools done (on stderr). What travels with the data (the sources, their licences
and attribution, the data version) goes beside a CSV file as `FILE.meta.json`, inside a
Parquet file's metadata, and on stderr in one line when the CSV goes to stdout.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from schooldata.application.exports import DATASETS
from schooldata.entrypoints.cli.context import Session, pass_session
from schooldata.entrypoints.cli.errors import NoResult
from schooldata.entrypoints.cli.options import completer, phase_option
from schooldata.entrypoints.cli.output import opened, opened_binary, output_target
from schooldata.entrypoints.exports import (
    EXPORT_FORMATS,
    ExportFormat,
    attribution_line,
    export_frame,
    sidecar_of,
    write_csv_rows,
    write_sidecar,
)


@click.command()
@click.argument("dataset", metavar="DATASET", shell_complete=completer(DATASETS))
@click.option("--local-authority", metavar="NAME|CODE", help="Only this authority's schools.")
@phase_option("Only schools of this phase: primary, secondary, ...")
@click.option(
    "-f",
    "--format",
    "export_format",
    type=click.Choice(EXPORT_FORMATS),
    help="csv (default) or parquet (needs schooldata[parquet]).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="Write to FILE (whole or not at all) instead of stdout.",
)
@pass_session
def export(
    session: Session,
    dataset: str,
    local_authority: str | None,
    phase: str | None,
    export_format: ExportFormat | None,
    output: Path | None,
) -> None:
    """A whole dataset, one tidy row per fact: schools, results, inspections, admissions or
    finance.

    \b
    schools      the register: one row per open school (the profile's fields)
    results      one row per school, key stage, period and measure, with its
                 status, reason and release status (null where not known)
    inspections  one row per Ofsted inspection
    admissions   one row per school, period and measure
    finance      one row per school, period and measure

    A null is an empty cell, never 0. CSV goes with FILE.meta.json (the sources, their
    licences and the data version); Parquet holds the same in its metadata.

    \b
    Examples:
      schooldata export schools -o schools.csv
      schooldata export results --local-authority Camden -o camden-results.csv
      schooldata export results --format parquet -o results.parquet
      schooldata export inspections --phase secondary > inspections.csv
    """
    if session.as_plan is not None:
        raise click.UsageError("export has no API twin: --as-plan does not apply to it.")
    fmt = _format(session, export_format)
    output = output or session.output
    request = session.app.exports.prepare(dataset, local_authority=local_authority, phase=phase)
    if fmt == "parquet" and output is None and sys.stdout.isatty():
        raise click.UsageError("Parquet is binary: give --output FILE or redirect stdout.")
    if output is not None:
        output_target(output)  # refused before anything is read
    filters = {"local_authority": local_authority, "phase": phase}
    total = session.app.exports.count(request)
    with _progress(f"{request.dataset.value}", total) as progress:
        frame = export_frame(
            session.app,
            request,
            base_url=session.base_url,
            filters=filters,
            progress=progress,
        )
        if fmt == "parquet":
            with opened_binary(output) as binary:
                rows = frame.write_parquet(binary)
        else:
            with opened(output) as text:
                rows = write_csv_rows(frame, text)
    metadata = frame.metadata or {}
    if output is not None and fmt == "csv":
        write_sidecar(frame, output, rows=rows)
        click.echo(f"Wrote {rows:,} rows; sources and licences: {sidecar_of(output)}", err=True)
    elif output is not None:
        click.echo(
            f"Wrote {rows:,} rows; sources and licences are in its metadata ('schooldata').",
            err=True,
        )
    else:
        click.echo(f"Wrote {rows:,} rows. {attribution_line(metadata)}", err=True)
    if rows == 0:
        raise NoResult(f"No {request.dataset.value} rows to export.")


def _format(session: Session, given: ExportFormat | None) -> ExportFormat:
    """The export's own --format, else a global --format csv, else CSV; JSON and tables are
    not formats of a whole dataset."""
    if given is not None:
        return given
    if session.fmt in ("table", "csv"):
        return "csv"
    raise click.UsageError("export writes csv or parquet (--format csv|parquet).")


@contextmanager
def _progress(description: str, total: int) -> Iterator[Callable[[int], None]]:
    """A bar counting the schools exported, on stderr when it is a terminal; else silent."""
    console = Console(stderr=True)
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("schools"),
        TimeElapsedColumn(),
        console=console,
        disable=not console.is_terminal,
    )
    with bar:
        task = bar.add_task(description, total=total)
        yield lambda done: bar.update(task, completed=done)
