"""Driven port: what an in-memory read model of one data version is built from."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from schooldata.domain.dataset import DatasetRecord, SourceCheck
from schooldata.domain.links import EstablishmentLink
from schooldata.domain.school import School
from schooldata.domain.versions import DataVersion


class RegisterSource(Protocol):
    def version(self) -> str:
        """Changes whenever any served data changes."""
        ...

    def iter_all(self) -> Iterator[School]:
        """Every served school, in URN order."""
        ...

    def local_authorities(self) -> list[tuple[str | None, str, int]]: ...

    def current(self) -> list[DatasetRecord]: ...

    def data_version(self) -> DataVersion | None: ...

    def sources(self) -> list[SourceCheck]: ...

    def iter_postcodes(self) -> Iterator[tuple[str, float, float]]:
        """Every live postcode (compact) and its location, in compact order; a postcode that
        several sources hold comes once per source, the winning source last."""
        ...

    def iter_outward_codes(self) -> Iterator[tuple[str, float, float]]:
        """Each outward code and the centroid of its live postcodes."""
        ...

    def iter_links(self) -> Iterator[EstablishmentLink]:
        """Every establishment link (served schools' or not), by URN, each school's in the
        order `links_for` gives, each with its linked establishment's register facts."""
        ...
