"""Text to CSV rows: every record of a file with its line number, or the bare rows of a
one-line-per-record file at C speed; a download cut off mid-record is refused, never read.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Generator, Iterable, Iterator
from contextlib import contextmanager
from itertools import chain

from schooldata.adapters.importers.files.decoding import Utf8OrCp1252, open_binary, text_chunks
from schooldata.adapters.importers.files.sources import DataPath, label_of
from schooldata.domain.errors import ImportRejected

# Marks the end of the text for the CSV reader: a private-use character no publisher writes.
_END = "\uf8ff"
_END_ROW = [_END]


class _Ending:
    """Watches the decoded text go by: its first line, and how it ends.

    A download cut off mid-row ends without a line break, or inside a quoted field; the
    readers below refuse such a file rather than import its broken last record.
    """

    def __init__(self) -> None:
        self.first_line: str | None = None
        self.last_line = ""  # the text after the last line break
        self.terminated = True  # ends with a line break (or holds nothing)
        self.finished = False

    def watch(self, pieces: Iterable[str]) -> Iterator[str]:
        for piece in pieces:
            if self.first_line is None:
                end = piece.find("\n")
                self.first_line = piece if end < 0 else piece[:end]
            self.terminated = piece.endswith(("\n", "\r"))
            self.last_line = "" if self.terminated else piece[piece.rfind("\n") + 1 :]
            yield piece
        self.finished = True

    def marked(self, pieces: Iterable[str]) -> Iterator[str]:
        """The text, then an end mark on a line of its own, twice: a reader still inside a
        quoted field swallows the marks into that field instead of reading them as records.
        (Twice so that a reader that stopped at the first mark can still tell: the second is
        there to read.)"""
        yield from self.watch(pieces)
        # (No line break is needed before them: csv ends a record that is not inside quotes
        # at the end of each line it is given, and the last line is given on its own.)
        yield f"{_END}\n{_END}\n"


def _lines(binary: io.BufferedIOBase, path: DataPath, ending: _Ending) -> Iterator[str]:
    """Decoded lines with their endings kept (csv needs them inside quoted fields), then the
    end marks.

    Splitting happens in C (StringIO iteration), not per line in Python: this is the inner
    loop of a 1.7M-row import.
    """
    pieces = ending.marked(text_chunks(binary, Utf8OrCp1252(path)))
    return chain.from_iterable(io.StringIO(piece, newline="") for piece in pieces)


def _cut_off(path: DataPath, what: str) -> ImportRejected:
    return ImportRejected(
        f"{label_of(path)}: the file is cut off: {what}. Nothing was imported; download it again."
    )


def csv_rows(path: DataPath) -> Generator[tuple[int, list[str]], None, None]:
    """(line number where the record starts, fields) for every non-empty record of a file.

    A file cut off mid-record is refused once its end is reached: a quoted field that never
    closes, or a last record without a line break that has fewer fields than the first."""
    ending = _Ending()
    with open_binary(path) as binary:
        reader = csv.reader(_lines(binary, path, ending))
        start = 1
        width = 0
        last: list[str] = []
        last_start = 0
        try:
            for row in reader:
                if row:
                    if _END in row[-1]:
                        if row != [_END]:
                            raise _cut_off(
                                path, f"the quoted field of the record at line {start} never closes"
                            )
                        break
                    width = width or len(row)
                    last, last_start = row, start
                    yield start, row
                start = reader.line_num + 1
        except csv.Error as err:
            raise ImportRejected(
                f"{label_of(path)}: malformed CSV near line {start}: {err}"
            ) from err
    if not ending.terminated and len(last) < width:
        raise _cut_off(
            path,
            f"its last record (line {last_start}) has {len(last)} of {width} fields "
            "and no line break",
        )


@contextmanager
def plain_rows(path: DataPath) -> Iterator[Iterator[list[str]]]:
    """The rows of a file whose records are one line each, straight from the csv reader.

    No generator wraps the reader, so each row costs no Python frame: this is for the
    million-row postcode files, where that overhead is a sizeable share of the run time.
    (The rows stop at the first end mark: `iter(callable, sentinel)` compares in C.)
    Once the rows are used up, a file cut off mid-record refuses the file: a last line with no
    line break and an open quote or fewer fields than the first line, or a quoted field opened
    on any line that never closes (it swallowed both end marks, so none is left to read).
    """
    ending = _Ending()
    with open_binary(path) as binary:
        reader = csv.reader(_lines(binary, path, ending))
        try:
            yield iter(reader.__next__, _END_ROW)
            unread = next(reader, None) if ending.finished else _END_ROW
        except csv.Error as err:
            raise ImportRejected(f"{label_of(path)}: malformed CSV: {err}") from err
    if ending.finished and not ending.terminated:
        _check_last_line(path, ending)
    if unread is None:
        raise _cut_off(path, "a quoted field opens and never closes")


def _check_last_line(path: DataPath, ending: _Ending) -> None:
    records = list(csv.reader(io.StringIO(f"{ending.last_line}\n{_END}\n", newline="")))
    if records[-1] != [_END]:
        raise _cut_off(path, "its last line opens a quoted field that never closes")
    first = next(csv.reader([ending.first_line or ""]), [])
    if len(records[0]) < len(first):
        raise _cut_off(
            path, f"its last line has {len(records[0])} of {len(first)} fields and no line break"
        )


def read_header(path: DataPath) -> list[str]:
    """The first record of a file, whitespace-trimmed; an empty file has no header."""
    rows = csv_rows(path)
    try:
        first = next(rows, None)
    finally:
        rows.close()
    if first is None:
        raise ImportRejected(f"{label_of(path)}: the file is empty.")
    return [name.strip() for name in first[1]]
