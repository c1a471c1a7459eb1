"""The DatasetFiles port over the importer table: a use case that is handed a file (refresh)
reads it exactly as `schooldata import NAME FILE` would."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from schooldata.adapters.importers.registry import IMPORTERS, Importer
from schooldata.domain.dataset import DatasetRecord
from schooldata.ports.imports import Progress, RejectLog


class ImporterFiles:
    def __init__(self, importers: Mapping[str, Importer] = IMPORTERS) -> None:
        self._importers = importers

    def describe(self, *, reader: str, path: Path) -> DatasetRecord:
        return self._importers[reader].record_for([path])

    def parse(
        self, *, reader: str, path: Path, log: RejectLog, progress: Progress | None = None
    ) -> Iterator[Any]:
        return self._importers[reader].parse([path], log, progress=progress)
