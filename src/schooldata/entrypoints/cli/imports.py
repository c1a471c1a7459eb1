"""`schooldata import`: publishers' files (or the bundled sample) into the database."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from schooldata.domain.dataset import ImportReport
from schooldata.domain.errors import ImportRejected
from schooldata.entrypoints.cli.context import Session, output_options, pass_session
from schooldata.entrypoints.cli.errors import CliError, ExitCode
from schooldata.entrypoints.cli.output import Column, RowsView, Writer
from schooldata.ports.imports import Progress as ProgressCallback
from schooldata.ports.imports import RejectLog

DATASETS = (
    "gias",
    "links",
    "postcodes",
    "ks4-info",
    "ks4-results",
    "ks2-results",
    "ks5-results",
    "ks5-destinations",
    "ofsted",
    "admissions",
    "finance",
    "sample",
)
REJECTS_SHOWN = 10
REJECTS = RowsView(table=(Column("line", "Line"), Column("reason", "Reason")), csv=None)
SUMMARY_COLUMNS = (
    "dataset",
    "rows_read",
    "rows_imported",
    "rows_skipped",
    "rows_rejected",
    "records_stored",
)
SUMMARY = RowsView(table=(), csv=SUMMARY_COLUMNS)


@click.command("import")
@click.argument("dataset", type=click.Choice(DATASETS), metavar="DATASET")
@click.argument(
    "files", nargs=-1, type=click.Path(exists=True, path_type=Path), metavar="[FILE]..."
)
@click.option(
    "--extract-date",
    metavar="YYYY-MM-DD",
    type=click.DateTime(["%Y-%m-%d"]),
    help="The publisher's extract date, when the file name does not say (YYYY-MM-DD).",
)
@click.option(
    "--period",
    metavar="YYYY/YY",
    help="The academic year of an older DfE performance-tables file that has no time_period "
    "column and whose name does not say it (e.g. --period 2018/19).",
)
@click.option(
    "--allow-shrink",
    is_flag=True,
    help="Import even if the file would stop serving schools it does not list as closed, or "
    "more than 5% of what is served now (refused otherwise, exit 3).",
)
@output_options
@pass_session
def import_(
    session: Session,
    dataset: str,
    files: tuple[Path, ...],
    extract_date: dt.datetime | None,
    period: str | None,
    allow_shrink: bool,
) -> None:
    """Import a dataset file (or the bundled sample), all or nothing.

    A failed import changes nothing: the data served before stays served. Progress shows on
    a terminal; the summary lists rows read, imported, skipped and rejected (the first 10
    rejects with their line and reason).

    A file that would shrink what is served is refused (exit 3) unless --allow-shrink: a GIAS
    file that leaves out a school served now (rather than listing it as closed) or closes
    more than 5% of them, a links or postcode file with more than 5% fewer records.

    \b
    DATASET is one of:
      gias       GIAS establishments (edubasealldataYYYYMMDD.csv)
      links      GIAS establishment links (links_edubasealldataYYYYMMDD.csv)
      postcodes  OS Code-Point Open or ONSPD files (files or a directory)
      ks4-info   KS4 information about schools (EES table)
      ks4-results, ks2-results, ks5-results, ks5-destinations
                 DfE school results (EES tables, or the older performance-tables
                 downloads such as england_ks4final.csv, with --period)
      ofsted     Ofsted state-funded schools MI (report-card or graded layout)
      admissions school admissions: applications and offers (school level)
      finance    school income and expenditure (england_cfr.csv, with --period)
      sample     the bundled demonstration dataset (no FILE)

    \b
    FILE may be a zip archive as published (codepo_gb.zip, an EES download): its .csv and
    .csv.gz members are read in place.

    \b
    Examples:
      schooldata import gias edubasealldata20250422.csv
      schooldata import postcodes codepo_gb.zip
      schooldata import ks4-results 2018-2019/england_ks4final.csv
      schooldata import ks4-results england_ks4final.csv --period 2018/19
      schooldata import sample
    """
    session.create_database = True  # an import may be the first thing a database holds
    if dataset == "sample":
        if files or period or allow_shrink:
            raise click.UsageError(
                "'import sample' loads the bundled data; it takes no FILE, --period or "
                "--allow-shrink."
            )
        reports = list(session.runtime.load_sample(session.app))
    else:
        if not files:
            raise click.UsageError(f"'import {dataset}' needs at least one FILE.")
        date = extract_date.date() if extract_date is not None else None
        reports = [_import(session, dataset, list(files), date, period, allow_shrink)]
    session.write(lambda w: _summary(w, reports))


def _import(
    session: Session,
    name: str,
    files: list[Path],
    date: dt.date | None,
    period: str | None,
    allow_shrink: bool,
) -> ImportReport:
    importer = session.runtime.importers().get(name)
    if importer is None:
        raise CliError(f"this build has no {name!r} importer.", ExitCode.UNAVAILABLE)
    if period is not None and not importer.periodic:
        raise click.UsageError(f"--period does not apply to '{name}': its files say their dates.")
    app = session.app
    try:
        record = importer.record_for(files, extract_date=date)
        log = RejectLog()
        with _progress(f"{name}: {files[0].name}{' ...' if len(files) > 1 else ''}") as progress:
            items = (
                importer.parse(files, log, progress=progress, period=period)
                if period is not None
                else importer.parse(files, log, progress=progress)
            )
            return app.import_dataset.execute(
                kind=importer.kind, items=items, log=log, record=record, allow_shrink=allow_shrink
            )
    except ImportRejected as refused:
        raise _naming_the_files(refused, files) from refused


def _naming_the_files(refused: ImportRejected, files: list[Path]) -> ImportRejected:
    """Every refusal names the file it is about: most importer messages start with it; the
    others (too many bad rows, nothing to import) are prefixed here."""
    if any(path.name in refused.message for path in files):
        return refused
    names = ", ".join(path.name for path in files[:3]) + (" ..." if len(files) > 3 else "")
    return ImportRejected(f"{names}: {refused.message}")


@contextmanager
def _progress(description: str) -> Iterator[ProgressCallback]:
    """A live row counter on stderr when it is a terminal; silent otherwise."""
    console = Console(stderr=True)
    bar = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,} rows read"),
        TimeElapsedColumn(),
        console=console,
        disable=not console.is_terminal,
    )
    with bar:
        task = bar.add_task(description, total=None)
        yield lambda rows: bar.update(task, completed=rows)


def summary_item(report: ImportReport) -> dict[str, Any]:
    return {
        "dataset": report.dataset,
        "rows_read": report.rows_read,
        "rows_imported": report.rows_imported,
        "rows_skipped": report.skipped,
        "rows_rejected": report.rows_rejected,
        "records_stored": report.records_stored,
        "rejects": [
            {"line": line, "reason": reason} for line, reason in report.rejects[:REJECTS_SHOWN]
        ],
        "removed_demo_datasets": list(report.removed_demo),
    }


def removal_notice(report: ImportReport) -> str | None:
    """What a real import into the demo database removed (said on stderr, in every format)."""
    if not report.removed_demo:
        return None
    return (
        f"Removed the bundled demo ({', '.join(report.removed_demo)}): real and demo data are "
        "never served together. From now on only the real data you import is served: import "
        "postcodes, gias and the other datasets you need."
    )


def _summary(writer: Writer, reports: list[ImportReport]) -> None:
    items = [summary_item(r) for r in reports]
    for report in reports:
        notice = removal_notice(report)
        if notice is not None:
            click.echo(notice, err=True)
    if writer.fmt == "json":
        writer.document(items)
        return
    if writer.fmt == "csv":
        writer.rows([{k: v for k, v in i.items() if k in SUMMARY_COLUMNS} for i in items], SUMMARY)
        return
    for item, report in zip(items, reports, strict=True):
        if not item["removed_demo_datasets"]:
            del item["removed_demo_datasets"]
        rejects = item.pop("rejects")
        writer.record(item, title=f"Imported {report.dataset}")
        if rejects:
            shown = f"first {len(rejects)} of {report.rows_rejected} rejected rows"
            writer.rows(rejects, REJECTS, caption=shown)
