"""A day in the life of the bundled demo: the files that change it, written from its own.

- A GIAS file in which one school closed (`CLOSED`), one opened (`OPENED`), one was renamed
  (`RENAMED`) and one converted (`CONVERTED`: closed, and its successor `SUCCESSOR` opened
  the next day), with its links file (the successor's Predecessor link and the other way).
- A KS4 results file that revises 2024/25: the demo's own figures of that year, its rows
  now saying `Revised`.

The schools are chosen so that nothing else changes: nurseries (no score, so no peer's score
moves), and a secondary academy with results but no score of its own (so not a peer either).
They are imported as the demo's own datasets (synthetic, part of the demo), as a later demo
release would be: a real file would replace the demo (and restart its history).
"""

from __future__ import annotations

import csv
import datetime as dt
import gzip
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from schooldata.adapters.importers.gias import parse_gias
from schooldata.adapters.importers.links import parse_links
from schooldata.adapters.importers.performance.datasets import KS4_RESULTS
from schooldata.adapters.importers.performance.reader import parse_table
from schooldata.adapters.sample import demo
from schooldata.application.import_dataset import DatasetKind
from schooldata.application.service import Application
from schooldata.domain.dataset import ImportReport
from schooldata.domain.urn import Urn
from schooldata.ports.imports import RejectLog

CLOSED = 100441  # Blackthorn Nursery School, Kent
RENAMED = 100590  # Redwood Nursery School, Hertfordshire
RENAMED_TO = "Redwood Nursery and Children's Centre"
CONVERTED = 141998  # Orchard Academy: results in 2023/24 and 2024/25, no score
SUCCESSOR = 159002
OPENED = 159001
OPENED_NAME = "Juniper Fields Primary School"
CONVERSION_DAY = dt.date(2026, 9, 1)
REVISED_YEAR = "2024/25"


def _entry(fmt: str) -> dict[str, Any]:
    return next(e for e in demo.manifest() if e["format"] == fmt)


def _rows(name: str) -> tuple[list[str], list[list[str]]]:
    with gzip.open(demo.DATA / name, "rt", encoding="cp1252" if "gias" in name else "utf-8") as f:
        header, *rows = list(csv.reader(f))
    return header, rows


def _write(path: Path, header: list[str], rows: list[list[str]], encoding: str) -> Path:
    with path.open("w", encoding=encoding, newline="") as f:
        writer = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
        writer.writerow(header)
        writer.writerows(rows)
    return path


def gias_file(directory: Path) -> Path:
    header, rows = _rows("gias_demo.csv.gz")
    at = {name: header.index(name) for name in header}

    def status(row: list[str], code: str, name: str) -> None:
        row[at["EstablishmentStatus (code)"]] = code
        row[at["EstablishmentStatus (name)"]] = name

    by_urn = {int(row[0]): row for row in rows}
    closed = by_urn[CLOSED]
    status(closed, "2", "Closed")
    closed[at["CloseDate"]] = "31-08-2026"
    by_urn[RENAMED][at["EstablishmentName"]] = RENAMED_TO
    old = by_urn[CONVERTED]
    successor = list(old)
    status(old, "2", "Closed")
    old[at["CloseDate"]] = (CONVERSION_DAY - dt.timedelta(days=1)).strftime("%d-%m-%Y")
    successor[0] = str(SUCCESSOR)
    successor[at["OpenDate"]] = CONVERSION_DAY.strftime("%d-%m-%Y")
    successor[at["CloseDate"]] = ""
    opened = list(by_urn[RENAMED])
    opened[0] = str(OPENED)
    opened[at["EstablishmentName"]] = OPENED_NAME
    opened[at["OpenDate"]] = CONVERSION_DAY.strftime("%d-%m-%Y")
    rows += [successor, opened]
    return _write(directory / "edubasealldata20260901.csv", header, rows, "cp1252")


def links_file(directory: Path) -> Path:
    header = ["URN", "LinkURN", "LinkName", "LinkType", "LinkEstablishedDate"]
    day = CONVERSION_DAY.strftime("%d-%m-%Y")
    rows = [
        [str(SUCCESSOR), str(CONVERTED), "Orchard Academy", "Predecessor", day],
        [str(CONVERTED), str(SUCCESSOR), "Orchard Academy", "Successor", day],
    ]
    return _write(directory / "links_edubasealldata20260901.csv", header, rows, "cp1252")


def revised_results_file(directory: Path) -> Path:
    header, rows = _rows("ks4_results_demo.csv.gz")
    year = header.index("time_period")
    kept = [[*row, "Revised"] for row in rows if row[year] == REVISED_YEAR.replace("/", "")]
    return _write(directory / "202425_ks4_results_revised.csv", [*header, "version"], kept, "utf-8")


def revised_urns(path: Path) -> set[Urn]:
    """The schools the revised file holds figures of (each gets its year's change)."""
    return {record.urn for record in parse_table(KS4_RESULTS, path, RejectLog())}


def import_gias(app: Application, path: Path) -> ImportReport:
    log = RejectLog()
    record = demo._record(_entry("gias_establishments"))
    return app.import_dataset.execute(
        kind=DatasetKind.SCHOOLS, items=parse_gias(path, log), log=log, record=record
    )


def import_links(app: Application, path: Path) -> ImportReport:
    log = RejectLog()
    record = attrs.evolve(
        demo._record(_entry("gias_establishments")),
        name="gias_links",
        title="Get Information about Schools: links — SYNTHETIC DEMO DATA, not real schools",
    )
    return app.import_dataset.execute(
        kind=DatasetKind.LINKS, items=parse_links(path, log), log=log, record=record
    )


def import_results(app: Application, path: Path) -> ImportReport:
    log = RejectLog()
    record = demo._record(_entry("ks4_results"))
    items = parse_table(KS4_RESULTS, path, log)
    return app.import_dataset.execute(
        kind=DatasetKind.MEASURES, items=items, log=log, record=record
    )


def a_day_of_changes(app: Application, directory: Path) -> Path:
    """The register, its links and the revised year, imported in that order (three
    versions); the revised results file, for what it holds."""
    import_gias(app, gias_file(directory))
    import_links(app, links_file(directory))
    results = revised_results_file(directory)
    import_results(app, results)
    return results


def expected_changes(results: Path) -> set[tuple[Any, ...]]:
    """(urn, kind, detail) of every change the day makes, and nothing else."""
    register: set[tuple[Any, ...]] = {
        (CLOSED, "closed", None),
        (OPENED, "opened", None),
        (RENAMED, "updated", ("name",)),
        (CONVERTED, "closed", None),
        (SUCCESSOR, "opened", None),
        (SUCCESSOR, "linked", (CONVERTED, "Predecessor")),
        (CONVERTED, "linked", (SUCCESSOR, "Successor")),
    }
    year = {(urn.value, "results_added", ("ks4", REVISED_YEAR)) for urn in revised_urns(results)}
    return register | year


def as_expected(item: dict[str, Any]) -> tuple[Any, ...]:
    """An API change item as `expected_changes` names it."""
    kind = item["kind"]
    detail: Any = None
    if kind == "updated":
        detail = tuple(item["fields"])
    elif kind == "results_added":
        detail = (item["key_stage"], item["year"])
    elif kind == "linked":
        detail = (item["linked_urn"], item["link_type"])
    return (item["urn"], kind, detail)


def pages(get: Any, first: str, headers: dict[str, str]) -> Iterator[dict[str, Any]]:
    """Every answer of a paged list, following `meta.pagination.next` from `first`."""
    url: str | None = first
    while url is not None:
        answer = get(url, headers=headers)
        assert answer.status_code == 200, answer.text
        body: dict[str, Any] = answer.json()
        yield body
        url = body["meta"]["pagination"]["next"]
