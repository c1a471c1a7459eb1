"""GIAS links (`links_edubasealldataYYYYMMDD.csv`) -> EstablishmentLink (predecessors, successors).

A row is rejected when either URN is invalid or the link type is blank: a link without both
ends or without a meaning cannot be served. A blank or unparseable date is None.
"""

from __future__ import annotations

from collections.abc import Iterator

from schooldata.adapters.importers.files.columns import Columns
from schooldata.adapters.importers.files.counting import RowCounter
from schooldata.adapters.importers.files.rows import csv_rows
from schooldata.adapters.importers.files.sources import DataPath, Source, single_file
from schooldata.adapters.importers.gias import parse_gias_date
from schooldata.domain.errors import InvalidUrn
from schooldata.domain.links import EstablishmentLink
from schooldata.domain.urn import Urn
from schooldata.ports.imports import Progress, RejectLog

URN, LINK_URN, LINK_NAME, LINK_TYPE, LINK_DATE = (
    "URN",
    "LinkURN",
    "LinkName",
    "LinkType",
    "LinkEstablishedDate",
)
REQUIRED = (URN, LINK_URN, LINK_TYPE)
COLUMNS_READ = (URN, LINK_URN, LINK_NAME, LINK_TYPE, LINK_DATE)


def parse_links(
    source: Source, log: RejectLog, *, progress: Progress | None = None
) -> Iterator[EstablishmentLink]:
    """Links from one GIAS links file; the header is checked before returning."""
    path = single_file(source, "A GIAS links extract")
    columns = Columns.read(path, required=REQUIRED, what="GIAS links")
    return _links(path, columns, log, RowCounter(log, progress))


def _links(
    path: DataPath, columns: Columns, log: RejectLog, counter: RowCounter
) -> Iterator[EstablishmentLink]:
    positions = [columns.index(name) for name in COLUMNS_READ]
    records = csv_rows(path)
    next(records)  # the header, already checked
    for line, row in records:
        counter.row()
        if len(row) != columns.width:
            log.reject(line, f"has {len(row)} fields; the header has {columns.width}")
            continue
        urn, linked, name, link_type, date = (
            None if i is None else (row[i].strip() or None) for i in positions
        )
        try:
            ends = (Urn.parse(urn or ""), Urn.parse(linked or ""))
        except InvalidUrn as err:
            log.reject(line, f"{URN if _bad(urn) else LINK_URN}: {err.message}")
            continue
        if link_type is None:
            log.reject(line, f"URN {ends[0]}: {LINK_TYPE} is blank")
            continue
        link = EstablishmentLink(ends[0], ends[1], name, link_type, parse_gias_date(date))
        yield link
    counter.done()


def _bad(raw: str | None) -> bool:
    try:
        Urn.parse(raw or "")
    except InvalidUrn:
        return True
    return False
