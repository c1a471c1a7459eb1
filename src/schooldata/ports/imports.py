"""Driven ports for imports: parsers that read publishers' files, and an all-or-nothing writer."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

from attrs import define, field

from schooldata.domain.changes import SchoolChange
from schooldata.domain.dataset import DatasetRecord, SourceCheck
from schooldata.domain.geo import Location
from schooldata.domain.links import Establishment, EstablishmentLink
from schooldata.domain.ofsted import HistoricGrade, InspectionRecord
from schooldata.domain.releases import Release, ReleaseStatus
from schooldata.domain.results import MeasureRecord
from schooldata.domain.school import School
from schooldata.domain.scoring import Score
from schooldata.domain.urn import Urn
from schooldata.domain.versions import DataVersion

Progress = Callable[[int], None]
"""Called with the number of input rows read so far (for progress bars)."""


@define
class RejectLog:
    """Rows a parser refused, with reasons; filled in while the parser's items are consumed.

    `listed_closed` holds the URNs a register file lists with a status that is not served
    (Closed, Proposed to open): the file says they are gone, so no longer serving them is not
    a shrink (domain.shrink). `listed` holds what a register file says of every establishment
    it lists, served or not (name, status, dates). `releases` holds what a results file says
    of each year it holds: provisional, revised or final (None: it does not say)."""

    rows_read: int = 0
    skipped: int = 0
    rejects: list[tuple[int, str]] = field(factory=list)
    listed_closed: set[Urn] = field(factory=set)
    listed: dict[Urn, Establishment] = field(factory=dict)
    releases: dict[str, ReleaseStatus | None] = field(factory=dict)

    def reject(self, line: int, reason: str) -> None:
        self.rejects.append((line, reason))


class DataTransaction(Protocol):
    """Writes inside one transaction. Nothing is visible to readers until it commits."""

    def replace_schools(self, *, schools: Iterable[School]) -> int: ...

    def replace_postcodes(self, *, postcodes: Iterable[tuple[str, Location]], source: str) -> int:
        """Replace the postcodes from `source` (compact postcode, location); recompute
        outward-code centroids over all live postcodes."""
        ...

    def replace_links(self, *, links: Iterable[EstablishmentLink]) -> int: ...

    def links(self) -> Iterator[EstablishmentLink]:
        """Every link as this transaction sees it (its `linked` facts left out)."""
        ...

    def replace_establishments(self, *, establishments: Iterable[Establishment]) -> int:
        """Replace what the register lists of every establishment, served or not."""
        ...

    def replace_measures(self, *, dataset: str, records: Iterable[MeasureRecord]) -> int:
        """Replace the records `dataset` holds for the periods the new records cover; its other
        periods are kept (a publisher's file is one year: last year's stays history)."""
        ...

    def dataset_measures(self, *, dataset: str) -> Iterator[MeasureRecord]:
        """Every record `dataset` holds, as this transaction sees them."""
        ...

    def set_releases(self, *, dataset: str, releases: Iterable[Release]) -> None:
        """Replace the release of each year given (the years the import replaced)."""
        ...

    def releases(self) -> list[Release]:
        """Every release held, as this transaction sees them."""
        ...

    def measure_periods(self, *, dataset: str) -> dict[str, int]:
        """The periods `dataset` holds, oldest first, each with its number of records, as this
        transaction sees them."""
        ...

    def replace_inspections(self, *, dataset: str, records: Iterable[InspectionRecord]) -> int:
        """Replace the inspections that came from `dataset` (each Ofsted MI layout is its own)."""
        ...

    def set_scores(self, *, scores: dict[Urn, Score]) -> None: ...

    def set_historic_grades(self, *, grades: dict[Urn, HistoricGrade | None]) -> None:
        """Set the historic Ofsted grade of these schools (None: no single-word grade); others
        keep the register's own."""
        ...

    def inspections(self, *, datasets: Iterable[str] | None) -> Iterator[InspectionRecord]:
        """Stored inspections from these datasets (None: every dataset), as this transaction
        sees them."""
        ...

    def record_dataset(self, *, record: DatasetRecord) -> None: ...

    def set_source(self, *, dataset: str, check: SourceCheck | None) -> None:
        """Record what `refresh` fetched the dataset from, or (None) forget it."""
        ...

    def datasets(self) -> list[DatasetRecord]:
        """The dataset records as this transaction sees them."""
        ...

    def remove_dataset(self, *, name: str) -> None:
        """Forget a dataset: its record and source, and the measures (and their releases),
        inspections and postcodes it holds.
        (The register and its links are whole tables: `replace_schools` / `replace_links`.)"""
        ...

    def served_schools(self) -> Iterator[School]:
        """The schools as this transaction sees them (for rescoring before commit)."""
        ...

    def served_urns(self) -> set[Urn]:
        """The URNs of the schools as this transaction sees them (for the shrink guard)."""
        ...

    def measures(self, *, codes: Iterable[str]) -> Iterator[MeasureRecord]:
        """Stored records of the given measure codes, as this transaction sees them."""
        ...

    def last_version(self) -> DataVersion | None:
        """The newest data version, as this transaction sees it."""
        ...

    def record_version(
        self,
        *,
        made_at: dt.datetime,
        datasets: Iterable[str],
        changes: Iterable[SchoolChange],
        retain_since: dt.datetime,
        restart: bool = False,
    ) -> DataVersion:
        """Make this transaction's writes a new data version, with the changes it made (in
        the order given), committed with them or not at all. Versions made before
        `retain_since` are forgotten with their changes (never the new one); `restart`
        forgets every earlier version (the history starts again)."""
        ...


class DatasetFiles(Protocol):
    """The importers, by name (`gias`, `links`, `postcodes`, ...), for a use case that is
    handed a file rather than told which (refresh)."""

    def describe(self, *, reader: str, path: Path) -> DatasetRecord:
        """The provenance of importing `path` (its dates as the file or its name say)."""
        ...

    def parse(
        self, *, reader: str, path: Path, log: RejectLog, progress: Progress | None = None
    ) -> Iterator[Any]:
        """The file's items for ImportDataset, read lazily (rejects and counts go to `log`)."""
        ...


class DataStore(Protocol):
    def transaction(self) -> AbstractContextManager[DataTransaction]:
        """Begin an all-or-nothing transaction; an exception inside rolls everything back."""
        ...
