"""The importers the CLI offers: name -> parser, dataset kind and provenance record.

One table, so that `schooldata import NAME` and a refresh (through `readers.ImporterFiles`)
read a dataset alike; the provenance records, and what a file adds to them, are in
`provenance`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from typing import Any, Protocol

import attrs
from attrs import frozen

from schooldata.adapters.importers.files.sources import DataPath, Source, expand_sources
from schooldata.adapters.importers.gias import parse_servable_gias
from schooldata.adapters.importers.ks4_info import parse_ks4_information
from schooldata.adapters.importers.links import parse_links
from schooldata.adapters.importers.ofsted import parse_ofsted
from schooldata.adapters.importers.performance.datasets import (
    ADMISSIONS,
    FINANCE,
    KS2_RESULTS,
    KS4_RESULTS,
    KS5_DESTINATIONS,
    KS5_RESULTS,
)
from schooldata.adapters.importers.performance.reader import parse_table
from schooldata.adapters.importers.performance.spec import TableSpec
from schooldata.adapters.importers.postcodes import parse_postcodes
from schooldata.adapters.importers.provenance import (
    CODEPOINT_RECORD,
    GIAS_RECORD,
    KS4_INFO_RECORD,
    LINKS_RECORD,
    OFSTED_RECORD,
    dated_by_name,
    ks4_period,
    ofsted_layout,
    postcode_record,
    table_period,
    with_year,
)
from schooldata.application.about import DATASET_FACTS
from schooldata.application.import_dataset import DatasetKind
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.errors import ImportRejected
from schooldata.ports.imports import Progress, RejectLog


class Parser(Protocol):
    def __call__(
        self,
        source: Source,
        log: RejectLog,
        *,
        progress: Progress | None = None,
        period: str | None = None,
    ) -> Iterator[Any]: ...


def _without_period(parse: Callable[..., Iterator[Any]], what: str) -> Parser:
    """A parser of files that name their own dates: `--period` is refused, not ignored."""

    def read(
        source: Source,
        log: RejectLog,
        *,
        progress: Progress | None = None,
        period: str | None = None,
    ) -> Iterator[Any]:
        if period is not None:
            raise ImportRejected(f"--period does not apply to {what}: their files date themselves.")
        return parse(source, log, progress=progress)

    return read


Describe = Callable[[list[DataPath], DatasetRecord], DatasetRecord]


def _as_is(paths: list[DataPath], record: DatasetRecord) -> DatasetRecord:
    return record


@frozen
class Importer:
    """One CLI importer. `template` may hold a `{year}` for the attribution's copyright year."""

    name: str
    parse: Parser
    kind: DatasetKind
    template: DatasetRecord
    describe: Describe = _as_is
    periodic: bool = False  # takes `--period` (the older performance-tables downloads)

    @property
    def record(self) -> DatasetRecord:
        """The provenance when nothing is known about the files."""
        return with_year(self.template)

    def record_for(self, source: Source, *, extract_date: dt.date | None = None) -> DatasetRecord:
        """The provenance of importing `source`; an explicit extract date wins over the name's."""
        record = self.describe(expand_sources(source), self.template)
        if extract_date is not None:
            record = attrs.evolve(record, extract_date=extract_date)
        return with_year(record)


EES = "https://explore-education-statistics.service.gov.uk/find-statistics/"
PERFORMANCE_TABLES_DOWNLOAD = "https://www.compare-school-performance.service.gov.uk/download-data"


def _table_importer(name: str, spec: TableSpec, title: str, url: str) -> Importer:
    def parse(
        source: Source,
        log: RejectLog,
        *,
        progress: Progress | None = None,
        period: str | None = None,
    ) -> Iterator[Any]:
        return parse_table(spec, source, log, progress=progress, period=period)

    record = attrs.evolve(
        KS4_INFO_RECORD,
        name=spec.dataset,
        title=title,
        url=url,
        cadence="annual",
        coverage=DATASET_FACTS[spec.dataset][1],
    )
    return Importer(name, parse, DatasetKind.MEASURES, record, table_period, periodic=True)


TABLE_IMPORTERS = {
    "ks4-results": _table_importer(
        "ks4-results",
        KS4_RESULTS,
        "Key stage 4 performance: school results",
        f"{EES}key-stage-4-performance",
    ),
    "ks2-results": _table_importer(
        "ks2-results",
        KS2_RESULTS,
        "Key stage 2 attainment: school results",
        f"{EES}key-stage-2-attainment",
    ),
    "ks5-results": _table_importer(
        "ks5-results",
        KS5_RESULTS,
        "A level and other 16 to 18 results: school and college results",
        f"{EES}a-level-and-other-16-to-18-results",
    ),
    "ks5-destinations": _table_importer(
        "ks5-destinations",
        KS5_DESTINATIONS,
        "16-18 destination measures: institution cohorts",
        f"{EES}16-18-destination-measures",
    ),
    "admissions": _table_importer(
        "admissions",
        ADMISSIONS,
        "Secondary and primary school applications and offers: school level",
        f"{EES}secondary-and-primary-school-applications-and-offers",
    ),
    "finance": _table_importer(
        "finance",
        FINANCE,
        "Schools' income and expenditure per pupil (Consistent Financial Reporting)",
        PERFORMANCE_TABLES_DOWNLOAD,
    ),
}

IMPORTERS: dict[str, Importer] = {
    "gias": Importer(
        "gias",
        _without_period(parse_servable_gias, "GIAS extracts"),
        DatasetKind.SCHOOLS,
        GIAS_RECORD,
        dated_by_name,
    ),
    "links": Importer(
        "links",
        _without_period(parse_links, "GIAS links"),
        DatasetKind.LINKS,
        LINKS_RECORD,
        dated_by_name,
    ),
    "postcodes": Importer(
        "postcodes",
        _without_period(parse_postcodes, "postcode directories"),
        DatasetKind.POSTCODES,
        CODEPOINT_RECORD,
        postcode_record,
    ),
    "ks4-info": Importer(
        "ks4-info",
        _without_period(parse_ks4_information, "KS4 information files"),
        DatasetKind.MEASURES,
        KS4_INFO_RECORD,
        ks4_period,
    ),
    "ofsted": Importer(
        "ofsted",
        _without_period(parse_ofsted, "Ofsted management information"),
        DatasetKind.INSPECTIONS,
        OFSTED_RECORD,
        ofsted_layout,
    ),
    **TABLE_IMPORTERS,
}
