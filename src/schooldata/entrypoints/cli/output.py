"""Writing answers: a rich table for people, JSON and CSV for programs.

- JSON is exactly the REST response's data (from `wire`), nulls as null. Lists are written
  as a JSON array one item at a time, so a long answer is never held whole.
- CSV has a header row, an empty cell for null, `true`/`false` for booleans and nested
  objects flattened with dots (`location.latitude`); lists of objects are numbered
  (`links.0.urn`), lists of plain values are joined with "; ". Rows are written as produced.
- Tables show a dim "—" for null. A table needs every row to size its columns: use CSV or
  JSON for very large answers.
"""

from __future__ import annotations

import csv
import json
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import chain
from pathlib import Path
from typing import Any, Literal, TextIO

from attrs import frozen
from rich.console import Console
from rich.table import Table
from rich.text import Text

Format = Literal["table", "json", "csv"]
FORMATS: tuple[Format, ...] = ("table", "json", "csv")
NULL_MARK = "—"


@frozen
class Column:
    key: str  # a flattened key: `location.latitude`
    header: str


@frozen
class RowsView:
    """How a list answer is shown: a few columns in the table, the stated columns in CSV.
    `csv=None` means the flattened keys of the first row, in the data's own order."""

    table: Sequence[Column]
    csv: Sequence[str] | None


def flatten(value: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in value.items():
        name = f"{prefix}{key}"
        if isinstance(item, Mapping):
            out.update(flatten(item, f"{name}."))
        elif isinstance(item, list) and any(isinstance(x, Mapping) for x in item):
            for index, element in enumerate(item):
                if isinstance(element, Mapping):
                    out.update(flatten(element, f"{name}.{index}."))
                else:
                    out[f"{name}.{index}"] = element
        else:
            out[name] = item
    return out


def csv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "; ".join(csv_cell(v) for v in value)
    return str(value)


def table_cell(value: Any) -> Text:
    if value is None or value == []:
        return Text(NULL_MARK, style="dim")
    if isinstance(value, bool):
        return Text("yes" if value else "no")
    if isinstance(value, float):
        return Text(f"{value:g}")
    return Text(csv_cell(value))


def _plain(text: str | None) -> Text | None:
    """Data is never read as rich markup: a school called "[x]" stays "[x]"."""
    return None if text is None else Text(text)


class Writer:
    """One answer, in one format, to one stream."""

    def __init__(self, fmt: Format, stream: TextIO) -> None:
        self.fmt = fmt
        self.stream = stream

    def document(self, data: Any) -> None:
        """A whole JSON document (single resources and the public SearchResponse)."""
        json.dump(data, self.stream, indent=2, ensure_ascii=False)
        self.stream.write("\n")

    def record(self, data: Mapping[str, Any], *, title: str | None = None) -> None:
        if self.fmt == "json":
            self.document(data)
            return
        flat = flatten(data)
        if self.fmt == "csv":
            writer = self._csv()
            writer.writerow(flat)
            writer.writerow([csv_cell(v) for v in flat.values()])
            return
        table = Table("Field", "Value", title=_plain(title))
        for key, value in flat.items():
            table.add_row(Text(key), table_cell(value))
        self._console().print(table)

    def rows(
        self, items: Iterable[Mapping[str, Any]], view: RowsView, *, caption: str | None = None
    ) -> int:
        """Write every item; returns how many there were."""
        if self.fmt == "json":
            return self._json_array(items)
        if self.fmt == "csv":
            return self._csv_rows(items, view.csv)
        return self._table(items, view.table, caption)

    def _json_array(self, items: Iterable[Mapping[str, Any]]) -> int:
        count = 0
        self.stream.write("[")
        for item in items:
            self.stream.write(",\n  " if count else "\n  ")
            json.dump(item, self.stream, ensure_ascii=False)
            count += 1
        self.stream.write("\n]\n" if count else "]\n")
        return count

    def _csv_rows(self, items: Iterable[Mapping[str, Any]], columns: Sequence[str] | None) -> int:
        writer = self._csv()
        flat_rows: Iterator[dict[str, Any]] = (flatten(item) for item in items)
        if columns is None:
            first = next(flat_rows, None)
            columns = list(first) if first is not None else []
            flat_rows = chain([first] if first is not None else [], flat_rows)
        writer.writerow(columns)
        count = 0
        for flat in flat_rows:
            writer.writerow([csv_cell(flat.get(c)) for c in columns])
            count += 1
        return count

    def _table(
        self, items: Iterable[Mapping[str, Any]], columns: Sequence[Column], caption: str | None
    ) -> int:
        flat_rows: Iterator[dict[str, Any]] = (flatten(item) for item in items)
        if not columns:
            first = next(flat_rows, None)
            columns = [Column(key, key) for key in first] if first is not None else []
            flat_rows = chain([first] if first is not None else [], flat_rows)
        table = Table(caption=_plain(caption))
        for column in columns:
            table.add_column(Text(column.header))
        count = 0
        for flat in flat_rows:
            table.add_row(*(table_cell(flat.get(c.key)) for c in columns))
            count += 1
        if count:  # an empty answer is said on stderr (exit code 1), not drawn
            self._console().print(table)
        return count

    def message(self, text: str) -> None:
        """Plain human text (confirmations); never part of a JSON or CSV answer."""
        self._console().print(text, highlight=False, markup=False)

    def _csv(self) -> Any:
        return csv.writer(self.stream, lineterminator="\n")

    def _console(self) -> Console:
        return Console(file=self.stream, soft_wrap=False)


@contextmanager
def opened(path: Path | None) -> Iterator[TextIO]:
    """stdout, or FILE written whole or not at all (a failed run leaves no half file)."""
    if path is None:
        yield sys.stdout
        sys.stdout.flush()
        return
    directory = path.parent if str(path.parent) else Path(".")
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as stream:
            yield stream
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
