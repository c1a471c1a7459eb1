"""Driven ports: the provenance of imported datasets, and what `refresh` last fetched."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from schooldata.domain.dataset import DatasetRecord, SourceCheck
from schooldata.domain.versions import DataVersion


class DatasetRegistry(Protocol):
    def current(self) -> Sequence[DatasetRecord]:
        """The current record of each imported dataset kind, by name; never changed by the
        caller (an adapter may hand the same sequence to every caller of a data version)."""
        ...

    def sources(self) -> list[SourceCheck]:
        """What `refresh` last fetched for each dataset it keeps current, by dataset. Read as
        stored, never from a cache of the data version: a check that finds a file unchanged
        moves `checked_at` without moving the version."""
        ...

    def data_version(self) -> DataVersion | None:
        """The data version `current()` belongs to (None: no import has made one yet)."""
        ...


class SourceLog(Protocol):
    def record_check(self, *, check: SourceCheck) -> bool:
        """Note that the file `check` describes is still the publisher's newest: its
        `checked_at`, address and validators replace the stored ones, outside any data transaction
        (the served data and its version do not change). False, and nothing written, when the
        dataset's stored source is no longer that file (an import since replaced it)."""
        ...
