"""Sources to paths: which data files a file, directory, zip archive or glob names.

Publishers ship zip archives (OS Code-Point Open, ONSPD, EES "download all files"): a zip is
read in place, as the .csv/.csv.gz members it holds in any folder, exactly as if it had been
unpacked into a directory; nothing is extracted to disk.
"""

from __future__ import annotations

import glob
import io
import os
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from attrs import frozen

from schooldata.domain.errors import ImportRejected

DATA_SUFFIXES = (".csv", ".csv.gz")
_GLOB_CHARS = frozenset("*?[")
_ZIP_BUFFER = 1 << 20
_ZIP_MAGIC = b"PK\x03\x04"


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
        return io.BufferedReader(_MemberRaw(archive, member), _ZIP_BUFFER)

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
