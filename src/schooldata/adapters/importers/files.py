"""Reading publishers' files: sources to paths, bytes to text, text to CSV rows, rows counted.

Publishers disagree about encodings (GIAS writes cp1252, DfE's EES and OS write UTF-8/ASCII,
and developers re-save GIAS extracts as UTF-8), so every file is read as UTF-8 until a byte
proves otherwise, then as strict cp1252. Decoding is streamed: a 1.7M-row file is never
held whole.

Publishers also ship zip archives (OS Code-Point Open, ONSPD, EES "download all files"): a
zip is read in place, as the .csv/.csv.gz members it holds in any folder, exactly as if it
had been unpacked into a directory; nothing is extracted to disk.
"""

from __future__ import annotations

import codecs
import csv
import glob
import gzip
import io
import os
import zipfile
from collections.abc import Generator, Iterable, Iterator
from contextlib import contextmanager
from itertools import chain
from pathlib import Path
from typing import IO

from attrs import frozen

from schooldata.domain.errors import ImportRejected
from schooldata.ports.imports import Progress, RejectLog

__all__ = [
    "Columns",
    "DataPath",
    "Progress",
    "RowCounter",
    "Source",
    "ZipMember",
    "csv_rows",
    "expand_sources",
    "label_of",
    "plain_rows",
    "read_header",
    "single_file",
]

DATA_SUFFIXES = (".csv", ".csv.gz")
_GLOB_CHARS = frozenset("*?[")
_CHUNK = 1 << 20
_GZIP_MAGIC = b"\x1f\x8b"
_ZIP_MAGIC = b"PK\x03\x04"
_BOM = codecs.BOM_UTF8
# Marks the end of the text for the CSV reader: a private-use character no publisher writes.
_END = "\uf8ff"
_END_ROW = [_END]


@frozen
class ZipMember:
    """One file inside a zip archive, read in place (never extracted)."""

    archive: Path
    member: str

    @property
    def name(self) -> str:
        """The member's own file name (what publishers' naming rules apply to)."""
        return self.member.rsplit("/", 1)[-1]

    @property
    def parts(self) -> tuple[str, ...]:
        return (*self.archive.parts, *(p for p in self.member.split("/") if p))

    @property
    def label(self) -> str:
        return f"{self.archive.name}:{self.member}"

    def open_binary(self) -> io.BufferedIOBase:
        archive = zipfile.ZipFile(self.archive)
        try:
            member = archive.open(self.member)
        except (OSError, zipfile.BadZipFile, NotImplementedError, KeyError) as err:
            archive.close()
            raise ImportRejected(f"{self.label} cannot be read: {err}") from err
        return io.BufferedReader(_MemberRaw(archive, member), _CHUNK)

    def modified(self) -> tuple[int, int, int]:
        """The member's date as the archive records it (year, month, day)."""
        with zipfile.ZipFile(self.archive) as archive:
            year, month, day, *_ = archive.getinfo(self.member).date_time
        return year, month, day

    def __str__(self) -> str:
        return self.label


DataPath = Path | ZipMember
"""A file to read: on disk, or a member of a zip archive."""

Source = str | os.PathLike[str] | ZipMember | Iterable[str | os.PathLike[str] | ZipMember]
"""One file, a directory (its .csv/.csv.gz files, recursively), a zip archive (its .csv/.csv.gz
members, in any folder), a glob, or several of those."""


class _MemberRaw(io.RawIOBase):
    """A zip member's bytes; closing it closes its archive too."""

    def __init__(self, archive: zipfile.ZipFile, member: IO[bytes]) -> None:
        self._archive = archive
        self._member = member

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        data = self._member.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            try:
                self._member.close()
                self._archive.close()
            finally:
                super().close()


class _OwningGzip(gzip.GzipFile):
    """gzip over a stream it was given, closing that stream when it closes."""

    def __init__(self, stream: io.BufferedIOBase) -> None:
        super().__init__(fileobj=stream, mode="rb")
        self._stream = stream

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._stream.close()


def label_of(path: DataPath) -> str:
    """How a file is named in messages: its name, or archive:member for a zip member."""
    return path.label if isinstance(path, ZipMember) else path.name


def expand_sources(source: Source) -> list[DataPath]:
    """The data files a source names, in a stable (sorted) order; none at all is an error."""
    items = [source] if isinstance(source, str | os.PathLike | ZipMember) else list(source)
    paths: list[DataPath] = []
    for item in items:
        paths.extend(_expand_one(item))
    if not paths:
        raise ImportRejected(f"No data files (.csv or .csv.gz) found in {_describe(items)}.")
    return paths


def single_file(source: Source, what: str) -> DataPath:
    """The one file a single-file dataset (a GIAS extract, an EES table) is read from."""
    paths = expand_sources(source)
    if len(paths) != 1:
        names = ", ".join(label_of(p) for p in paths[:5])
        raise ImportRejected(f"{what} is read from exactly one file; got {len(paths)}: {names}")
    return paths[0]


def _expand_one(item: str | os.PathLike[str] | ZipMember) -> list[DataPath]:
    if isinstance(item, ZipMember):
        return [item]
    path = Path(item)
    if path.is_dir():
        found: list[DataPath] = []
        for child in sorted(p for p in path.rglob("*") if p.is_file()):
            if _is_data_file(child):
                found.append(child)
            elif child.name.lower().endswith(".zip") and is_zip(child):
                found.extend(_zip_members(child))
        return found
    if path.is_file():
        return _zip_members(path, required=True) if is_zip(path) else [path]
    text = os.fspath(item)
    if _GLOB_CHARS & set(text):
        matches = sorted(Path(p) for p in glob.glob(text, recursive=True) if Path(p).is_file())
        return [member for match in matches for member in _expand_one(match)]
    raise ImportRejected(f"No such file or directory: {text}")


def is_zip(path: Path) -> bool:
    """A zip archive, by its content (whatever its name says)."""
    try:
        with path.open("rb") as probe:
            magic = probe.read(len(_ZIP_MAGIC))
    except OSError:
        return False
    return magic == _ZIP_MAGIC and zipfile.is_zipfile(path)


def _zip_members(path: Path, *, required: bool = False) -> list[DataPath]:
    """The .csv/.csv.gz members of a zip, in any folder, sorted by their path in it."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = sorted(
                info.filename
                for info in archive.infolist()
                if not info.is_dir() and info.filename.lower().endswith(DATA_SUFFIXES)
            )
    except (OSError, zipfile.BadZipFile) as err:
        raise ImportRejected(f"{path.name} is not a readable zip archive: {err}") from err
    if not names and required:
        raise ImportRejected(f"{path.name}: the zip archive holds no .csv or .csv.gz files.")
    return [ZipMember(path, name) for name in names]


def _is_data_file(path: Path) -> bool:
    return path.name.lower().endswith(DATA_SUFFIXES)


def _describe(items: list[str | os.PathLike[str] | ZipMember]) -> str:
    return ", ".join(str(i) if isinstance(i, ZipMember) else os.fspath(i) for i in items) or (
        "(no sources given)"
    )


def _open_raw(path: DataPath) -> io.BufferedIOBase:
    return path.open_binary() if isinstance(path, ZipMember) else path.open("rb")


def _open_binary(path: DataPath) -> io.BufferedIOBase:
    # By content, not by name: a `.csv` that is really gzip (or the reverse) still reads.
    with _open_raw(path) as probe:
        magic = probe.read(len(_GZIP_MAGIC))
    raw = _open_raw(path)
    if magic == _GZIP_MAGIC:
        return _OwningGzip(raw)
    return raw


class _Utf8OrCp1252:
    """An incremental decoder: UTF-8 first; strict cp1252 from the first non-UTF-8 byte on.

    Switching mid-stream is safe only while everything decoded so far was ASCII (the two
    encodings agree on ASCII). A BOM or any non-ASCII UTF-8 text commits the file to UTF-8,
    so a later stray byte is an error rather than silent mojibake.
    """

    def __init__(self, path: DataPath) -> None:
        self.path = path
        self._decoder: codecs.IncrementalDecoder = codecs.getincrementaldecoder("utf-8")()
        self.encoding = "utf-8"
        self._committed = False
        self._offset = 0
        self._started = False

    def decode(self, chunk: bytes, *, final: bool) -> str:
        if not self._started:
            self._started = True
            if chunk.startswith(_BOM):
                chunk = chunk[len(_BOM) :]
                self._offset = len(_BOM)
                self._committed = True
        if self.encoding == "utf-8":
            pending, _ = self._decoder.getstate()
            try:
                text = self._decoder.decode(chunk, final)
            except UnicodeDecodeError as err:
                # err.object is the pending bytes plus this chunk; what precedes the bad byte
                # decoded as UTF-8, and if any of it was non-ASCII the file is UTF-8 text.
                if self._committed or not err.object[: err.start].isascii():
                    base = self._offset - len(pending)
                    raise self._rejected(err, base, "UTF-8, and earlier text was UTF-8") from err
                self.encoding = "cp1252"
                self._decoder = codecs.getincrementaldecoder("cp1252")()
                self._offset -= len(pending)
                chunk = pending + chunk
            else:
                self._committed = self._committed or not text.isascii()
                self._offset += len(chunk)
                return text
        try:
            text = self._decoder.decode(chunk, final)
        except UnicodeDecodeError as err:
            raise self._rejected(err, self._offset, "cp1252") from err
        self._offset += len(chunk)
        return text

    def _rejected(self, err: UnicodeDecodeError, base: int, why: str) -> ImportRejected:
        byte = err.object[err.start : err.start + 1].hex()
        return ImportRejected(
            f"{label_of(self.path)}: byte 0x{byte} at offset {base + err.start} is not valid "
            f"{why}; the file is neither UTF-8 nor Windows-1252 (cp1252)."
        )


def _text_chunks(binary: io.BufferedIOBase, decoder: _Utf8OrCp1252) -> Iterator[str]:
    """Decoded text in ~1 MiB pieces, each ending just after a newline (except the last)."""
    tail = ""
    while chunk := _read(binary, decoder.path):
        text = tail + decoder.decode(chunk, final=False)
        cut = text.rfind("\n") + 1
        tail = text[cut:]
        if cut:
            yield text[:cut]
    tail += decoder.decode(b"", final=True)
    if tail:
        yield tail


def _read(binary: io.BufferedIOBase, path: DataPath) -> bytes:
    try:
        return binary.read(_CHUNK)
    except (OSError, EOFError) as err:  # a truncated or corrupt .gz, an unreadable disk
        raise ImportRejected(f"{label_of(path)} cannot be read: {err}") from err


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
    pieces = ending.marked(_text_chunks(binary, _Utf8OrCp1252(path)))
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
    with _open_binary(path) as binary:
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
    with _open_binary(path) as binary:
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


class RowCounter:
    """Counts rows read into the log and reports progress every `every` rows."""

    def __init__(self, log: RejectLog, progress: Progress | None, every: int = 10_000) -> None:
        self._log = log
        self._progress = progress
        self._every = every

    def row(self) -> None:
        self._log.rows_read += 1
        if self._progress is not None and self._log.rows_read % self._every == 0:
            self._progress(self._log.rows_read)

    def add(self, rows: int) -> None:
        """Count many rows at once (hot loops count locally and report in bulk)."""
        before = self._log.rows_read
        self._log.rows_read += rows
        if (
            self._progress is not None
            and before // self._every != self._log.rows_read // self._every
        ):
            self._progress(self._log.rows_read)

    def done(self) -> None:
        if self._progress is not None:
            self._progress(self._log.rows_read)


class Columns:
    """A header's column positions by name: publishers add, drop and reorder columns."""

    def __init__(self, header: list[str]) -> None:
        self.width = len(header)
        self._index: dict[str, int] = {}
        for position, name in enumerate(header):
            self._index.setdefault(name, position)

    @classmethod
    def read(cls, path: DataPath, *, required: Iterable[str], what: str) -> Columns:
        """Read and check a file's header before any row is parsed."""
        columns = cls(read_header(path))
        missing = [name for name in required if name not in columns]
        if missing:
            raise ImportRejected(
                f"{label_of(path)} is not a {what} file: missing column(s) "
                f"{', '.join(repr(m) for m in missing)}."
            )
        return columns

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def index(self, name: str) -> int | None:
        return self._index.get(name)
