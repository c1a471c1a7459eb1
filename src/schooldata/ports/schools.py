"""Driven ports for school records."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from schooldata.domain.links import EstablishmentLink
from schooldata.domain.ofsted import InspectionRecord
from schooldata.domain.releases import Release
from schooldata.domain.results import MeasureRecord
from schooldata.domain.school import School
from schooldata.domain.search import SchoolQuery, SearchPage
from schooldata.domain.urn import Urn


class SchoolReader(Protocol):
    """Reads the served (open) schools."""

    def get(self, *, urn: Urn) -> School | None:
        """The open school with this URN, or None."""
        ...

    def search(self, *, query: SchoolQuery) -> SearchPage:
        """Answer a validated question (the rules are `domain.search.evaluate`)."""
        ...

    def iter_all(self) -> Iterator[School]:
        """Every served school, in URN order (streams; does not load all at once)."""
        ...

    def local_authorities(self) -> list[tuple[str | None, str, int]]:
        """(LA code, LA name, open school count), by name."""
        ...

    def version(self) -> str:
        """Changes whenever the served data changes (for caches and ETags)."""
        ...


class LinkReader(Protocol):
    def links_for(self, *, urn: Urn) -> list[EstablishmentLink]:
        """Predecessor/successor links of an establishment, served or not (GIAS links), each
        with the register's facts of the establishment it leads to, where it lists it."""
        ...


class MeasureReader(Protocol):
    def measures_for(self, *, urn: Urn) -> list[MeasureRecord]:
        """Every stored measure of a school, all datasets and periods."""
        ...

    def measures_with_code(self, *, code: str) -> list[MeasureRecord]:
        """Every stored record of one measure, all schools and periods (for rankings)."""
        ...

    def iter_measures(self) -> Iterator[MeasureRecord]:
        """Every stored measure, in URN order, each school's in `measures_for`'s order
        (streams, for whole-dataset exports)."""
        ...

    def releases(self) -> list[Release]:
        """The release of every year each measures dataset holds (status and date)."""
        ...


class InspectionReader(Protocol):
    def inspections_for(self, *, urn: Urn) -> list[InspectionRecord]:
        """Every stored Ofsted inspection of a school, any framework, any order."""
        ...

    def iter_inspections(self) -> Iterator[InspectionRecord]:
        """Every stored inspection, in URN order (streams, for whole-dataset exports)."""
        ...
