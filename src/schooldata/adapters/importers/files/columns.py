"""A header's columns by name, checked before any row is read: publishers add, drop and
reorder columns, so importers find theirs by name, never by position."""

from __future__ import annotations

from collections.abc import Iterable

from schooldata.adapters.importers.files.rows import read_header
from schooldata.adapters.importers.files.sources import DataPath, label_of
from schooldata.domain.errors import ImportRejected


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
