"""ONS Postcode Directory (ONSPD, and NSPL, which shares its columns) -> (postcode, location).

ONSPD has a header and WGS84 `lat`/`long` already, so no grid conversion is needed. It also
lists terminated postcodes (`doterm` set) and postcodes without a grid reference (latitude
99.999999): both are counted as skipped, never served as a place. Column names are matched
case-insensitively (releases have used both `pcd` and `PCD`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from attrs import frozen

from schooldata.adapters.importers.codepoint import postcode_key
from schooldata.adapters.importers.files.columns import Columns
from schooldata.adapters.importers.files.counting import RowCounter
from schooldata.adapters.importers.files.rows import csv_rows, read_header
from schooldata.adapters.importers.files.sources import DataPath, Source, expand_sources
from schooldata.domain.errors import ImportRejected
from schooldata.domain.geo import Location
from schooldata.ports.imports import Progress, RejectLog

# Preferred first: `pcds` is the one-space form; `pcd`/`pcd7` are fixed-width forms of it.
POSTCODE_COLUMNS = ("pcds", "pcd", "pcd7", "pcd8")
LATITUDE, LONGITUDE, TERMINATED = "lat", "long", "doterm"
# ONSPD's placeholder for "no grid reference".
NO_LOCATION_LATITUDE = 99.999999


def parse_onspd(
    source: Source, log: RejectLog, *, progress: Progress | None = None
) -> Iterator[tuple[str, Location]]:
    """Live postcodes with a location from one or many ONSPD CSVs, a directory or a glob."""
    paths = expand_sources(source)
    _layout(paths[0])
    return _postcodes(paths, log, RowCounter(log, progress))


def looks_like_onspd(header: list[str]) -> bool:
    names = {name.strip().lower() for name in header}
    return bool(names & set(POSTCODE_COLUMNS)) and {LATITUDE, LONGITUDE} <= names


@frozen
class _Layout:
    width: int
    postcode: int
    latitude: int
    longitude: int
    terminated: int | None


def _layout(path: DataPath) -> _Layout:
    """Where this file keeps the columns read, or a clear refusal."""
    columns = Columns([name.lower() for name in read_header(path)])
    postcode = next((columns.index(n) for n in POSTCODE_COLUMNS if n in columns), None)
    latitude, longitude = columns.index(LATITUDE), columns.index(LONGITUDE)
    if postcode is None or latitude is None or longitude is None:
        raise ImportRejected(
            f"{path.name} is not an ONSPD file: it needs a postcode column "
            f"({'/'.join(POSTCODE_COLUMNS)}) and '{LATITUDE}' and '{LONGITUDE}' columns."
        )
    return _Layout(columns.width, postcode, latitude, longitude, columns.index(TERMINATED))


def _postcodes(
    paths: list[DataPath], log: RejectLog, counter: RowCounter
) -> Iterator[tuple[str, Location]]:
    for path in paths:
        yield from _file(path, log, counter)
    counter.done()


def _file(path: DataPath, log: RejectLog, counter: RowCounter) -> Iterator[tuple[str, Location]]:
    layout = _layout(path)
    postcode, lat_at, long_at, term_at = (
        layout.postcode,
        layout.latitude,
        layout.longitude,
        layout.terminated,
    )
    name = path.name
    records = csv_rows(path)
    next(records)  # the header
    for line, row in records:
        counter.row()
        if len(row) != layout.width:
            log.reject(line, f"{name}: has {len(row)} fields; the header has {layout.width}")
            continue
        if term_at is not None and row[term_at].strip():
            log.skipped += 1
            continue
        key = postcode_key(row[postcode])
        if key is None:
            log.reject(line, f"{name}: {row[postcode][:20]!r} is not a full postcode")
            continue
        try:
            lat, lon = float(row[lat_at]), float(row[long_at])
        except ValueError:
            log.reject(
                line, f"{name}: {key}: unparseable lat/long {row[lat_at]!r}, {row[long_at]!r}"
            )
            continue
        if math.isclose(lat, NO_LOCATION_LATITUDE, abs_tol=1e-6):
            log.skipped += 1
            continue
        if not (math.isfinite(lat) and math.isfinite(lon) and abs(lat) <= 90 and abs(lon) <= 180):
            log.reject(line, f"{name}: {key}: lat/long out of range")
            continue
        yield key, Location(lat, lon)
