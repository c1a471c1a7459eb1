"""OS Code-Point Open -> (compact postcode, WGS84 location), over one or many area files.

The product's CSVs have no header; columns are fixed: Postcode, Positional_quality_indicator,
Eastings, Northings, then codes this service does not use. Leading header-like rows (a
re-save with a header, or the product's own `Code-Point_Open_Column_Headers.csv`) are
skipped. Positional quality 90 and 0/0 grid references mean "no coordinates": counted as
skipped, never turned into a location. Rows are checked in blocks and grid references are
converted ~50k at a time, so nothing is held beyond one batch.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import zipfile
from array import array
from collections.abc import Iterable, Iterator
from itertools import chain, islice, repeat
from pathlib import Path

from schooldata.adapters.importers.files.counting import RowCounter
from schooldata.adapters.importers.files.rows import csv_rows, plain_rows
from schooldata.adapters.importers.files.sources import DataPath, Source, ZipMember, expand_sources
from schooldata.adapters.importers.osgb import MAX_EASTING, MAX_NORTHING, convert, convert_all
from schooldata.domain.errors import ImportRejected
from schooldata.domain.geo import Location
from schooldata.ports.imports import Progress, RejectLog

COLUMNS_READ = ("Postcode", "Positional_quality_indicator", "Eastings", "Northings")
NO_COORDINATES_QUALITY = "90"
BATCH_SIZE = 50_000
# Rows checked together on the fast path; PQ 90 rows cluster, so small blocks keep most clean.
BLOCK = 2_000
# The product's own header names, long and short (Code-Point_Open_Column_Headers.csv).
_HEADERS = frozenset({("postcode", "positional_quality_indicator"), ("pc", "pq")})
_FULL_POSTCODE = re.compile(r"[A-Z]{1,2}[0-9][A-Z0-9]?[0-9][A-Z]{2}")
# The product's Doc/metadata.txt: "COPYRIGHT DATE: 20251020".
_COPYRIGHT_DATE = re.compile(r"COPYRIGHT DATE:\s*([0-9]{4})([0-9]{2})([0-9]{2})", re.IGNORECASE)
METADATA = "metadata.txt"


def parse_codepoint(
    source: Source,
    log: RejectLog,
    *,
    progress: Progress | None = None,
    batch_size: int = BATCH_SIZE,
) -> Iterator[tuple[str, Location]]:
    """Live postcodes with coordinates from Code-Point Open files, a directory or a glob."""
    paths = expand_sources(source)
    if not looks_like_codepoint(first_row(paths[0])):
        raise ImportRejected(f"{paths[0].name} is not an OS Code-Point Open CSV.")
    return _located(paths, log, RowCounter(log, progress), batch_size)


def release_date(paths: list[DataPath]) -> dt.date | None:
    """The date of the Code-Point release these files come from: the product's own
    `Doc/metadata.txt` (beside the area files, up the release's folders, or in its zip), else the
    date the zip archive records for its area files; None when neither says."""
    for text in _metadata_texts(paths):
        match = _COPYRIGHT_DATE.search(text)
        if match is not None:
            try:
                return dt.date(*(int(g) for g in match.groups()))
            except ValueError:
                continue
    members = [path for path in paths if isinstance(path, ZipMember)]
    if members:
        return max(dt.date(*member.modified()) for member in members)
    return None


def _metadata_texts(paths: list[DataPath]) -> Iterator[str]:
    seen: set[Path] = set()
    for path in paths:
        if isinstance(path, ZipMember):
            if path.archive in seen:
                continue
            seen.add(path.archive)
            with zipfile.ZipFile(path.archive) as archive:
                for name in archive.namelist():
                    if name.rsplit("/", 1)[-1].lower() == METADATA:
                        yield archive.read(name).decode("utf-8", "replace")
            continue
        # codepo_gb/Data/CSV/ab.csv -> codepo_gb/Doc/metadata.txt
        for folder in list(path.parents)[:4]:
            for candidate in (folder / METADATA, folder / "Doc" / METADATA):
                if candidate in seen or not candidate.is_file():
                    continue
                seen.add(candidate)
                yield candidate.read_text("utf-8", "replace")


def first_row(path: DataPath) -> list[str]:
    rows = csv_rows(path)
    try:
        first = next(rows, None)
    finally:
        rows.close()
    return [] if first is None else first[1]


def looks_like_codepoint(row: list[str]) -> bool:
    """A Code-Point data row (postcode, integer quality, eastings, northings) or its header."""
    if len(row) < 4:
        return False
    first, second = row[0].strip().lower(), row[1].strip().lower()
    if (first, second) in _HEADERS:
        return True
    return postcode_key(row[0]) is not None and second.isdigit()


def postcode_key(raw: str) -> str | None:
    """The compact key of a full unit postcode (`AB10 1AB` -> `AB101AB`), else None.

    The same grammar as domain.postcode.parse_postcode (a test holds them together), checked
    with one compiled pattern so that whole columns can be checked in C (see _Batch).
    """
    key = "".join(raw.split()).upper()
    return key if _FULL_POSTCODE.fullmatch(key) else None


def _is_header(row: list[str]) -> bool:
    # Data rows always carry an integer quality indicator in the second column.
    return len(row) < 2 or not row[1].strip().isdigit()


def _located(
    paths: list[DataPath], log: RejectLog, counter: RowCounter, batch_size: int
) -> Iterator[tuple[str, Location]]:
    # chain() hands out the pairs of each converted batch in C; a generator yielding them one
    # by one would cost a Python frame resumption per postcode.
    return chain.from_iterable(_batches(paths, log, counter, batch_size))


def _batches(
    paths: list[DataPath], log: RejectLog, counter: RowCounter, batch_size: int
) -> Iterator[Iterable[tuple[str, Location]]]:
    batch = _Batch()
    for path in paths:
        for first_line, rows in _blocks(path):
            if batch.take_clean(rows):
                counter.add(len(rows))
            else:
                counter.add(batch.take_rows(first_line, rows, log, path.name))
            if len(batch.keys) >= batch_size:
                yield batch.flush(log)
    yield batch.flush(log)
    counter.done()


def _blocks(path: DataPath) -> Iterator[tuple[int, list[list[str]]]]:
    """(line of the first row, up to BLOCK rows) after any header-like leading rows."""
    with plain_rows(path) as reader:
        line = 1
        for row in reader:
            if row and not _is_header(row):
                yield line, [row, *islice(reader, BLOCK - 1)]
                line += BLOCK
                break
            line += 1
        while rows := list(islice(reader, BLOCK)):
            yield line, rows
            line += len(rows)


class _Batch:
    """Postcodes and grid references waiting for one vectorised conversion.

    Rows arrive in blocks. A clean block (every row a located postcode, the overwhelming
    majority) is checked and copied column-wise, in C; a block with anything unusual (no
    coordinates, a bad postcode, a short row) is handled row by row, so every reject still
    gets its line and reason. The per-row Python loop this replaces was most of the run time
    of the 1.7M-row import.
    """

    def __init__(self) -> None:
        self.keys: list[str] = []
        self.eastings: array[float] = array("d")
        self.northings: array[float] = array("d")

    def _reset(self) -> None:
        self.keys, self.eastings, self.northings = [], array("d"), array("d")

    def take_clean(self, rows: list[list[str]]) -> bool:
        """Take a block if every row is a located postcode; False (nothing taken) if not."""
        if min(map(len, rows)) < 4:
            return False
        codes, quality, east, north = islice(zip(*rows, strict=False), 4)
        if NO_COORDINATES_QUALITY in quality:
            return False
        keys = list(map(str.replace, codes, repeat(" "), repeat("")))
        if None in map(_FULL_POSTCODE.fullmatch, keys):  # match objects compare by identity
            return False
        try:
            eastings, northings = array("d", map(float, east)), array("d", map(float, north))
        except ValueError:
            return False
        if not (_on_grid(eastings, MAX_EASTING) and _on_grid(northings, MAX_NORTHING)):
            return False
        self.keys += keys
        self.eastings += eastings
        self.northings += northings
        return True

    def take_rows(self, first_line: int, rows: list[list[str]], log: RejectLog, name: str) -> int:
        """Take a block row by row, logging skips and rejects; returns the rows counted."""
        counted = 0
        for line, row in enumerate(rows, start=first_line):
            if not row:
                continue  # a blank line is not a row
            counted += 1
            reason = self._take_row(row)
            if reason is _SKIPPED:  # identity: a reject reason is never this very object
                log.skipped += 1
            elif reason is not None:
                log.reject(line, f"{name}: {reason}")
        return counted

    def _take_row(self, row: list[str]) -> str | None:
        """Take one row; None when taken, else _SKIPPED or the reason it was rejected."""
        if len(row) < 4:
            return f"has {len(row)} fields; Code-Point rows have 10"
        key = postcode_key(row[0])
        if key is None:
            return f"{row[0][:20]!r} is not a full postcode"
        if row[1].strip() == NO_COORDINATES_QUALITY:
            return _SKIPPED
        try:
            east, north = float(row[2]), float(row[3])
        except ValueError:
            east = north = math.nan
        if not (0.0 < east <= MAX_EASTING and 0.0 < north <= MAX_NORTHING):
            if east == 0.0 and north == 0.0:
                return _SKIPPED
            return f"{key}: unusable grid reference {row[2]!r}, {row[3]!r}"
        self.keys.append(key)
        self.eastings.append(east)
        self.northings.append(north)
        return None

    def flush(self, log: RejectLog) -> Iterable[tuple[str, Location]]:
        """The batch's (postcode, location) pairs; the batch starts again empty."""
        keys, eastings, northings = self.keys, self.eastings, self.northings
        self._reset()
        located = convert_all(eastings, northings)
        if located is not None:
            return zip(keys, located, strict=True)
        pairs = []
        for key, location in zip(keys, convert(eastings, northings), strict=True):
            if location is None:
                # Near-impossible after the grid-range check; the row's line is no longer known.
                log.reject(0, f"{key}: PROJ could not convert its grid reference")
            else:
                pairs.append((key, location))
        return pairs


_SKIPPED = "skipped"


def _on_grid(values: array[float], maximum: float) -> bool:
    # sum() is non-finite if any value is NaN or inf; min()/max() alone can step over a NaN.
    return math.isfinite(sum(values)) and min(values) > 0.0 and max(values) <= maximum
