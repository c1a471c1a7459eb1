"""Writing answers: a rich table for people, JSON and CSV for programs.

- JSON is exactly the REST response's data (from `wire`), nulls as null. Lists are written
  as a JSON array one item at a time, so a long answer is never held whole.
- CSV is `entrypoints.tables`, the writer REST's `Accept: text/csv` uses too: a header row,
  an empty cell for null, nested objects flattened with dots (`location.latitude`), lists of
  plain values joined with "; ". Rows are written as produced.
- Tables show a dim "—" for null, and every value whole: numbers as they are, long text
  folded onto more lines (to a terminal's width; a file or pipe gets the table's own width).
  A table needs every row to size its columns: use CSV or JSON for very large answers.
- Text is UTF-8 whatever the locale says, on stdout as in files.
"""

from __future__ import annotations

import errno
import io
import json
import os
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Literal, TextIO

from attrs import frozen
from rich.console import Console
from rich.table import Table
from rich.text import Text

from schooldata.entrypoints.tables import (
    cell_text,
    flatten,
    union_of_keys,
    write_csv,
    write_record,
)

Format = Literal["table", "json", "csv"]
FORMATS: tuple[Format, ...] = ("table", "json", "csv")
NULL_MARK = "—"
UNBOUNDED = 1 << 20  # columns: a table written to a file or pipe is as wide as it needs
# After a table from the bundled demo, on stderr: JSON and CSV stay the API's data alone.
SYNTHETIC_NOTICE = (
    "Synthetic demo data: these schools are invented (real local authorities and postcodes); "
    "import the publishers' files for real data (schooldata import --help)."
)


@frozen
class Column:
    key: str  # a flattened key: `location.latitude`
    header: str


@frozen
class RowsView:
    """How a list answer is shown: a few columns in the table, the stated columns in CSV.
    `csv=None` means every flattened key of every row, in the order first seen."""

    table: Sequence[Column]
    csv: Sequence[str] | None


def table_cell(value: Any) -> Text:
    if value is None:
        return Text(NULL_MARK, style="dim")
    if isinstance(value, bool):
        return Text("yes" if value else "no")
    return Text(cell_text(value))


def _plain(text: str | None) -> Text | None:
    """Data is never read as rich markup: a school called "[x]" stays "[x]"."""
    return None if text is None else Text(text)


class Writer:
    """One answer, in one format, to one stream."""

    def __init__(self, fmt: Format, stream: TextIO) -> None:
        self.fmt = fmt
        self.stream = stream
        self.drew_table = False  # a table of data was drawn (not only a message)

    def document(self, data: Any) -> None:
        """A whole JSON document (single resources and the public SearchResponse)."""
        json.dump(data, self.stream, indent=2, ensure_ascii=False)
        self.stream.write("\n")

    def record(self, data: Mapping[str, Any], *, title: str | None = None) -> None:
        if self.fmt == "json":
            self.document(data)
            return
        if self.fmt == "csv":
            write_record(self.stream, data)
            return
        flat = flatten(data)
        table = Table(title=_plain(title))
        table.add_column("Field", overflow="fold")
        table.add_column("Value", overflow="fold")
        for key, value in flat.items():
            table.add_row(Text(key), table_cell(value))
        self._draw(table)

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
        return write_csv(self.stream, items, columns)

    def _table(
        self, items: Iterable[Mapping[str, Any]], columns: Sequence[Column], caption: str | None
    ) -> int:
        flat_rows: Iterable[dict[str, Any]] = (flatten(item) for item in items)
        if not columns:
            flat_rows = list(flat_rows)
            columns = [Column(key, key) for key in union_of_keys(flat_rows)]
        table = Table(caption=_plain(caption))
        for column in columns:
            table.add_column(Text(column.header), overflow="fold")
        count = 0
        for flat in flat_rows:
            table.add_row(*(table_cell(flat.get(c.key)) for c in columns))
            count += 1
        if count:  # an empty answer is said on stderr (exit code 1), not drawn
            self._draw(table)
        return count

    def _draw(self, table: Table) -> None:
        self._console().print(table)
        self.drew_table = True

    def message(self, text: str) -> None:
        """Plain human text (confirmations); never part of a JSON or CSV answer."""
        self._console().print(text, highlight=False, markup=False)

    def _console(self) -> Console:
        # A terminal folds a wide table to its width; a file or pipe gets the table's own
        # width, so no value is ever cut or wrapped for a width nobody is looking at.
        terminal = self.stream.isatty()
        return Console(file=self.stream, soft_wrap=False, width=None if terminal else UNBOUNDED)


def use_utf8(*streams: TextIO) -> None:
    """Answers are UTF-8 whatever the locale (LANG=C, a Latin-1 terminal, PYTHONIOENCODING):
    a school's name or the null mark must never fail to print, nor print as something else."""
    for stream in streams:
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if encoding != "utf8" and isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(encoding="utf-8")


class UnsafeOutput(OSError):
    """`--output` names something that is not a regular file: never replaced."""


def output_target(path: Path) -> Path:
    """The regular file `--output PATH` writes: PATH itself, or the file a symbolic link to a
    regular file points at (the link stays). A directory, a FIFO, a device or a socket is
    refused: replacing it with a file (`-o /dev/null` as root) would do harm."""
    target = Path(os.path.realpath(path))
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return target
    if not stat.S_ISREG(mode):
        kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise UnsafeOutput(
            errno.EEXIST, f"{kind}; --output only writes (or replaces) a regular file", str(path)
        )
    return target


@contextmanager
def opened(path: Path | None) -> Iterator[TextIO]:
    """stdout, or FILE written whole or not at all (a failed run leaves no half file)."""
    if path is None:
        use_utf8(sys.stdout)
        yield sys.stdout
        sys.stdout.flush()
        return
    with _replacing(path) as temporary, open(temporary, "w", encoding="utf-8", newline="") as text:
        yield text


@contextmanager
def opened_binary(path: Path | None) -> Iterator[BinaryIO]:
    """`opened` for bytes (a Parquet file)."""
    if path is None:
        sys.stdout.flush()
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    with _replacing(path) as temporary, open(temporary, "wb") as stream:
        yield stream


@contextmanager
def _replacing(path: Path) -> Iterator[str]:
    """A temporary file beside FILE's target (readable by its owner only), renamed over it
    once written: FILE appears whole or not at all."""
    target = output_target(path)
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    os.close(fd)
    try:
        yield temporary
        output_target(path)  # still a regular file (or nothing) now the answer is written
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
