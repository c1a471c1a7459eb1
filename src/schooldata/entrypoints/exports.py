"""Whole datasets as tables for the CLI (`schooldata export`) and the library
(`client.export`): the rows of `application.exports` in the columns of `wire.exports`, as CSV
or Parquet, with what must travel with them.

The open licences ask for attribution wherever the data goes, so every export names its
sources, their licences and attribution, and the data version it was read at: a CSV file has
a sidecar `FILE.meta.json` (CSV has no place for it), a Parquet file holds the same document
in its schema's metadata (key `schooldata`).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Literal

import msgspec

from schooldata.application.exports import ExportRequest, Progress
from schooldata.application.service import Application
from schooldata.entrypoints.frames import Frame
from schooldata.entrypoints.local import data_version
from schooldata.entrypoints.tables import Lines, flatten, write_csv
from schooldata.entrypoints.wire.exports import TABLES
from schooldata.entrypoints.wire.meta import sources

ExportFormat = Literal["csv", "parquet"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("csv", "parquet")
SIDECAR_SUFFIX = ".meta.json"


def export_frame(
    app: Application,
    request: ExportRequest,
    *,
    base_url: str,
    filters: Mapping[str, str | None],
    progress: Progress | None = None,
) -> Frame:
    """The export as a table; its rows are read again each time they are asked for."""
    table = TABLES[request.dataset]

    def rows() -> Iterator[dict[str, Any]]:
        for row in app.exports.rows(request, progress):
            yield flatten(table.row(row, base_url))

    return Frame(table.columns, table.kinds, rows, metadata=about(app, request, filters))


def about(
    app: Application, request: ExportRequest, filters: Mapping[str, str | None]
) -> dict[str, Any]:
    """What travels with an export: the dataset and its filters, when it was made from which
    data version, and every source with its publisher, licence and attribution."""
    records = list(app.ports.datasets.current())
    listed = msgspec.to_builtins(sources(records))
    return {
        "dataset": request.dataset.value,
        "filters": {name: value for name, value in filters.items() if value is not None},
        "data_version": data_version(app),
        "exported_at": msgspec.to_builtins(app.ports.clock.now()),
        "licences": sorted({source["licence"] for source in listed}),
        "sources": listed,
    }


def write_csv_rows(frame: Frame, stream: Lines) -> int:
    """The header and every row (the CLI's and REST's CSV writer); returns how many rows."""
    return write_csv(stream, frame.rows(), frame.columns)


def sidecar_of(path: Path) -> Path:
    return path.with_name(path.name + SIDECAR_SUFFIX)


def attribution_line(metadata: Mapping[str, Any]) -> str:
    """The publishers, licences and data version in one line (for an export written where no
    sidecar can go); each source's attribution is in the sidecar or the Parquet metadata."""
    listed = metadata.get("sources", [])
    publishers = ", ".join(dict.fromkeys(s["publisher"] for s in listed)) or "none imported"
    licences = ", ".join(metadata.get("licences", [])) or "none"
    return f"Sources: {publishers}; licences: {licences}; data version {metadata['data_version']}."


def save(frame: Frame, path: Path, fmt: ExportFormat) -> int:
    """Write the export to `path`, whole or not at all, with its sidecar for CSV; returns how
    many rows."""
    if fmt == "parquet":
        with _replaced(path, binary=True) as stream:
            return frame.write_parquet(stream)
    with _replaced(path, binary=False) as stream:
        count = write_csv_rows(frame, stream)
    write_sidecar(frame, path, rows=count)
    return count


def write_sidecar(frame: Frame, path: Path, *, rows: int) -> Path:
    sidecar = sidecar_of(path)
    document = {**(frame.metadata or {}), "rows": rows, "file": path.name}
    with _replaced(sidecar, binary=False) as stream:
        json.dump(document, stream, indent=2, ensure_ascii=False)
        stream.write("\n")
    return sidecar


@contextmanager
def _replaced(path: Path, *, binary: bool) -> Iterator[IO[Any]]:
    """A file written beside `path` and renamed over it once whole."""
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or Path("."))
    try:
        if binary:
            with os.fdopen(fd, "wb") as handle:
                yield handle
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as text:
                yield text
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
