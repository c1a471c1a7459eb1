"""Where each import comes from: the publisher, licence, attribution and source of every dataset.

Each record is a template: what the files tell (an extract date, a period) is filled in by the
describers here when `Importer.record_for` asks; `imported_at` is a placeholder that the
ImportDataset use case replaces with the store's clock when the import commits.
"""

from __future__ import annotations

import datetime as dt
import re

import attrs

from schooldata.adapters.importers.codepoint import release_date
from schooldata.adapters.importers.files.sources import DataPath
from schooldata.adapters.importers.ks4_info import DATASET as KS4_DATASET
from schooldata.adapters.importers.ofsted import (
    DATASET_ALL,
    DATASET_LATEST,
    DATASET_REPORT_CARD,
    dataset_of,
)
from schooldata.adapters.importers.performance.periods import period_from_name
from schooldata.adapters.importers.postcodes import detect_postcode_format
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.results import period_label

OGL = "Open Government Licence v3.0"
OGL_ATTRIBUTION = (
    "Contains public sector information licensed under the Open Government Licence v3.0."
)
PLACEHOLDER_IMPORTED_AT = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
CODEPOINT_ATTRIBUTION = (
    "Contains OS data © Crown copyright and database right {year}. "
    "Contains Royal Mail data © Royal Mail copyright and database right {year}. "
    "Contains National Statistics data © Crown copyright and database right {year}."
)
ONSPD_ATTRIBUTION = (
    "Source: Office for National Statistics licensed under the Open Government Licence v3.0. "
    "Contains OS data © Crown copyright and database right {year}. "
    "Contains Royal Mail data © Royal Mail copyright and database right {year}. "
    "Contains GeoPlace data © Local Government Information House Limited copyright and "
    "database right {year}."
)


# ---- GIAS ------------------------------------------------------------------------------

GIAS_RECORD = DatasetRecord(
    name="gias_establishments",
    title="Get Information about Schools: establishment data (edubasealldata)",
    publisher="Department for Education",
    licence=OGL,
    attribution=OGL_ATTRIBUTION,
    url="https://get-information-schools.service.gov.uk/Downloads",
    extract_date=None,
    imported_at=PLACEHOLDER_IMPORTED_AT,
    cadence="daily",
    coverage="England: every establishment registered with GIAS; open ones are served",
)
LINKS_RECORD = attrs.evolve(
    GIAS_RECORD,
    name="gias_links",
    title="Get Information about Schools: establishment links (predecessors and successors)",
    coverage="England: links between establishments registered with GIAS",
)
_YYYYMMDD = re.compile(r"(?<![0-9])([0-9]{4})([0-9]{2})([0-9]{2})(?![0-9])")


def dated_by_name(paths: list[DataPath], record: DatasetRecord) -> DatasetRecord:
    """GIAS names its downloads by extract date: `edubasealldata20250422.csv`."""
    match = _YYYYMMDD.search(paths[0].name)
    if match is None:
        return record
    try:
        date = dt.date(*(int(g) for g in match.groups()))
    except ValueError:
        return record
    return attrs.evolve(record, extract_date=date)


# ---- Postcodes -------------------------------------------------------------------------

CODEPOINT_RECORD = DatasetRecord(
    name="codepoint_open",
    title="OS Code-Point Open",
    publisher="Ordnance Survey",
    licence=OGL,
    attribution=CODEPOINT_ATTRIBUTION,
    url="https://www.ordnancesurvey.co.uk/products/code-point-open",
    extract_date=None,
    imported_at=PLACEHOLDER_IMPORTED_AT,
    cadence="quarterly",
    coverage="Great Britain: live postcode units (no Northern Ireland, Isle of Man or "
    "Channel Islands)",
)
ONSPD_RECORD = DatasetRecord(
    name="onspd",
    title="ONS Postcode Directory",
    publisher="Office for National Statistics",
    licence=OGL,
    attribution=ONSPD_ATTRIBUTION,
    url="https://geoportal.statistics.gov.uk/",
    extract_date=None,
    imported_at=PLACEHOLDER_IMPORTED_AT,
    cadence="quarterly",
    coverage="United Kingdom: live postcode units (terminated postcodes are not imported)",
)
_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_ONSPD_RELEASE = re.compile(rf"_({'|'.join(_MONTHS)})_?([0-9]{{4}})", re.IGNORECASE)


def postcode_record(paths: list[DataPath], record: DatasetRecord) -> DatasetRecord:
    """The release date (and so the copyright year of the attribution) comes from the data:
    Code-Point's metadata.txt or its zip, ONSPD's release name; else it is unknown."""
    if detect_postcode_format(paths) == "codepoint":
        released = release_date(paths)
        return record if released is None else attrs.evolve(record, extract_date=released)
    match = _ONSPD_RELEASE.search(paths[0].name)  # `ONSPD_NOV_2025_UK.csv`
    if match is None:
        return ONSPD_RECORD
    month = _MONTHS.index(match.group(1).upper()) + 1
    return attrs.evolve(ONSPD_RECORD, extract_date=dt.date(int(match.group(2)), month, 1))


def with_year(record: DatasetRecord) -> DatasetRecord:
    """Fill the copyright year of OS/ONS attributions: the release's year where the files say
    it, else (nothing to go on) this year's."""
    if "{year}" not in record.attribution:
        return record
    year = (record.extract_date or dt.datetime.now(dt.UTC).date()).year
    return attrs.evolve(record, attribution=record.attribution.format(year=year))


# ---- Performance tables ----------------------------------------------------------------

KS4_INFO_RECORD = DatasetRecord(
    name=KS4_DATASET,
    title="Key stage 4 performance: information about schools",
    publisher="Department for Education",
    licence=OGL,
    attribution=OGL_ATTRIBUTION,
    url="https://explore-education-statistics.service.gov.uk/find-statistics/key-stage-4-performance",
    extract_date=None,
    imported_at=PLACEHOLDER_IMPORTED_AT,
    cadence="annual (provisional in the autumn, revised in the spring)",
    coverage="England: schools with pupils at the end of key stage 4",
)
_EES_NAME = re.compile(r"^([0-9]{6})_.*?(provisional|revised|final)?\.csv", re.IGNORECASE)


def ks4_period(paths: list[DataPath], record: DatasetRecord) -> DatasetRecord:
    """EES names files `202425_..._provisional.csv`: the period and release are in the name."""
    match = _EES_NAME.match(paths[0].name.removesuffix(".gz"))
    if match is None:
        return record
    release = f" ({match.group(2).lower()})" if match.group(2) else ""
    return attrs.evolve(
        record, period=period_label(match.group(1)), title=f"{record.title}{release}"
    )


# ---- Ofsted MI and the other school-level tables -------------------------------------

OFSTED_RECORD = DatasetRecord(
    name="ofsted_graded",
    title="Ofsted state-funded schools management information: graded inspections (historic)",
    publisher="Ofsted",
    licence=OGL,
    attribution=OGL_ATTRIBUTION,
    url="https://www.gov.uk/government/statistical-data-sets/monthly-management-information-ofsteds-school-inspections-outcomes",
    extract_date=None,
    imported_at=PLACEHOLDER_IMPORTED_AT,
    cadence="monthly",
    coverage="England: state-funded schools' latest inspections",
)


_OFSTED_TITLES = {
    DATASET_REPORT_CARD: "Ofsted state-funded schools management information: report cards",
    DATASET_ALL: (
        "Ofsted state-funded schools management information: all inspections in the year "
        "(graded inspections from September 2024 have no overall grade)"
    ),
    DATASET_LATEST: (
        "Ofsted state-funded schools management information: latest inspections "
        "(report cards, and the latest graded inspection as historic)"
    ),
}


# Ofsted names its MI files by the date they are "as at" (`..._as_at_31_Jan_2026.csv`), its
# year-to-date files by the date they were "published by" (`..._published_by_31_Aug_2025.csv`).
_AS_AT = re.compile(
    r"(?:as_at|published_by)_(\d{1,2})_([A-Za-z]{3})[A-Za-z]*_(\d{4})", re.IGNORECASE
)


def ofsted_layout(paths: list[DataPath], record: DatasetRecord) -> DatasetRecord:
    """Each MI layout is its own dataset; report cards and graded outcomes are never merged.
    The extract date is the file's "as at" date."""
    dataset = dataset_of(paths)
    if dataset in _OFSTED_TITLES:
        record = attrs.evolve(record, name=dataset, title=_OFSTED_TITLES[dataset])
    match = _AS_AT.search(paths[0].name)
    if match is None or match.group(2).upper() not in _MONTHS:
        return record
    day, month, year = (
        int(match.group(1)),
        _MONTHS.index(match.group(2).upper()) + 1,
        int(match.group(3)),
    )
    try:
        return attrs.evolve(record, extract_date=dt.date(year, month, day))
    except ValueError:
        return record


def table_period(paths: list[DataPath], record: DatasetRecord) -> DatasetRecord:
    """EES names (`202425_..._provisional.csv`) as for KS4; the older downloads name the year
    in their file or folder (`2018-2019/england_ks4final.csv`)."""
    named = ks4_period(paths, record)
    if named is not record:
        return named
    period = period_from_name(paths[0])
    return record if period is None else attrs.evolve(record, period=period)
