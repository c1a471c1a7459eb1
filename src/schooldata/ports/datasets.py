"""Driven port: the provenance of imported datasets."""

from __future__ import annotations

from typing import Protocol

from schooldata.domain.dataset import DatasetRecord


class DatasetRegistry(Protocol):
    def current(self) -> list[DatasetRecord]:
        """The current record of each imported dataset kind, by name."""
        ...
