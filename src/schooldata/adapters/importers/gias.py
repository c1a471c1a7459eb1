"""GIAS establishments (`edubasealldataYYYYMMDD.csv`) -> School, one per row with a valid URN.

- Columns are read by header name, so the 2025 (135-column) and 2024 (140-column) layouts
  both work; a file without URN, name and status is refused before anything is yielded.
- Every row with a valid URN is yielded whatever its status (the store decides what is
  served); non-open rows are counted as `skipped`, not as rejects.
- Blank cells become None, never 0 or "". An optional cell that does not parse (a capacity
  of "n/a") also becomes None: the row is still a real school.
- Easting/Northing are converted to WGS84 in batches; blank or 0/0 means no location.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from schooldata.adapters.importers.files import Columns, RowCounter, Source, csv_rows, single_file
from schooldata.adapters.importers.osgb import GridPoint, grid_point, locate_in_batches
from schooldata.domain.errors import InvalidUrn
from schooldata.domain.ofsted import HistoricGrade, parse_grade
from schooldata.domain.phase import parse_gias_phase
from schooldata.domain.school import School, is_servable_status
from schooldata.domain.urn import Urn
from schooldata.ports.imports import Progress, RejectLog

URN = "URN"
NAME = "EstablishmentName"
STATUS = "EstablishmentStatus (name)"
REQUIRED = (URN, NAME, STATUS)

TEXT_COLUMNS: dict[str, str] = {
    "la_code": "LA (code)",
    "la_name": "LA (name)",
    "establishment_number": "EstablishmentNumber",
    "type_name": "TypeOfEstablishment (name)",
    "type_group": "EstablishmentTypeGroup (name)",
    "gender": "Gender (name)",
    "religious_character": "ReligiousCharacter (name)",
    "admissions_policy": "AdmissionsPolicy (name)",
    "boarders": "Boarders (name)",
    "nursery_provision": "NurseryProvision (name)",
    "official_sixth_form": "OfficialSixthForm (name)",
    "trust_name": "Trusts (name)",
    "street": "Street",
    "locality": "Locality",
    "address3": "Address3",
    "town": "Town",
    "county": "County (name)",
    "postcode": "Postcode",
    "website": "SchoolWebsite",
    "telephone": "TelephoneNum",
    "region": "GOR (name)",
    "district": "DistrictAdministrative (name)",
    "ward": "AdministrativeWard (name)",
    "parliamentary_constituency": "ParliamentaryConstituency (name)",
    "urban_rural": "UrbanRural (name)",
    "ukprn": "UKPRN",
    "uprn": "UPRN",
}
INT_COLUMNS: dict[str, str] = {
    "statutory_low_age": "StatutoryLowAge",
    "statutory_high_age": "StatutoryHighAge",
    "capacity": "SchoolCapacity",
    "pupils": "NumberOfPupils",
}
FLOAT_COLUMNS: dict[str, str] = {"percentage_fsm": "PercentageFSM"}
PHASE = "PhaseOfEducation (name)"
OPEN_DATE = "OpenDate"
HEAD_NAME = ("HeadTitle (name)", "HeadFirstName", "HeadLastName")
INSPECTORATE = "InspectorateName (name)"
EASTING, NORTHING = "Easting", "Northing"
# Only the 2024 layout has these; the 2025 layout dropped Ofsted grades from GIAS.
OFSTED_RATING, OFSTED_DATE = "OfstedRating (name)", "OfstedLastInsp"

COLUMNS_READ: tuple[str, ...] = (
    *REQUIRED,
    *TEXT_COLUMNS.values(),
    *INT_COLUMNS.values(),
    *FLOAT_COLUMNS.values(),
    PHASE,
    OPEN_DATE,
    *HEAD_NAME,
    INSPECTORATE,
    EASTING,
    NORTHING,
    OFSTED_RATING,
    OFSTED_DATE,
)

_DATE = re.compile(r"([0-9]{1,2})[-/]([0-9]{1,2})[-/]([0-9]{4})")
# GIAS writes 01-01-1900 where an establishment's real date was never recorded.
_UNRECORDED_DATE = dt.date(1900, 1, 1)
# Words GIAS puts in name columns that mean "no value" for the purposes below.
_NO_VALUE = frozenset({"not applicable", "not recorded", "none"})


def parse_gias(
    source: Source,
    log: RejectLog,
    *,
    progress: Progress | None = None,
    batch_size: int = 2_000,
) -> Iterator[School]:
    """Schools from one GIAS establishments file; the header is checked before returning."""
    path = single_file(source, "A GIAS establishments extract")
    columns = Columns.read(path, required=REQUIRED, what="GIAS establishments")
    return _schools(path, columns, log, progress, batch_size)


def _schools(
    path: Path, columns: Columns, log: RejectLog, progress: Progress | None, batch_size: int
) -> Iterator[School]:
    rows = _rows(path, columns, log, RowCounter(log, progress))
    for school, location in locate_in_batches(rows, batch_size):
        yield school if location is None else attrs.evolve(school, location=location)


def _rows(
    path: Path, columns: Columns, log: RejectLog, counter: RowCounter
) -> Iterator[tuple[School, GridPoint | None]]:
    reader = _RowReader(columns)
    records = csv_rows(path)
    next(records)  # the header, already checked
    for line, row in records:
        counter.row()
        if len(row) != columns.width:
            log.reject(line, f"has {len(row)} fields; the header has {columns.width}")
            continue
        reader.row = row
        try:
            urn = Urn.parse(reader.text(URN) or "")
        except InvalidUrn as err:
            log.reject(line, err.message)
            continue
        name = reader.text(NAME)
        if name is None:
            log.reject(line, f"URN {urn}: {NAME} is blank")
            continue
        school = reader.school(urn, name)
        if not is_servable_status(school.status):
            log.skipped += 1
        yield school, grid_point(reader.text(EASTING), reader.text(NORTHING))
    counter.done()


class _RowReader:
    """Typed access to the current row's cells by column name."""

    def __init__(self, columns: Columns) -> None:
        self._columns = columns
        self.row: list[str] = []

    def text(self, name: str) -> str | None:
        index = self._columns.index(name)
        if index is None:
            return None
        return self.row[index].strip() or None

    def school(self, urn: Urn, name: str) -> School:
        fields: dict[str, Any] = {attr: self.text(col) for attr, col in TEXT_COLUMNS.items()}
        fields.update({attr: _int(self.text(col)) for attr, col in INT_COLUMNS.items()})
        fields.update({attr: _float(self.text(col)) for attr, col in FLOAT_COLUMNS.items()})
        return School(
            urn=urn,
            name=name,
            status=self.text(STATUS) or "",
            gias_phase=parse_gias_phase(self.text(PHASE) or ""),
            open_date=parse_gias_date(self.text(OPEN_DATE)),
            head_name=self._head_name(),
            inspectorate_name=self._inspectorate(),
            ofsted=self._ofsted(),
            **fields,
        )

    def _head_name(self) -> str | None:
        parts = [self.text(col) for col in HEAD_NAME]
        kept = [p for p in parts if p is not None and p.lower() not in _NO_VALUE]
        return " ".join(kept) or None

    def _inspectorate(self) -> str | None:
        # Only a non-Ofsted inspectorate is worth keeping: it marks material never served.
        name = self.text(INSPECTORATE)
        if name is None or name.lower() in _NO_VALUE or name.lower() == "ofsted":
            return None
        return name

    def _ofsted(self) -> HistoricGrade | None:
        grade = parse_grade(self.text(OFSTED_RATING))
        if grade is None:
            return None
        return HistoricGrade(grade, parse_gias_date(self.text(OFSTED_DATE)))


def parse_gias_date(raw: str | None) -> dt.date | None:
    """GIAS dates are DD-MM-YYYY (DD/MM/YYYY after a spreadsheet re-save); else None."""
    match = _DATE.fullmatch((raw or "").strip())
    if match is None:
        return None
    day, month, year = (int(g) for g in match.groups())
    try:
        date = dt.date(year, month, day)
    except ValueError:
        return None
    return None if date == _UNRECORDED_DATE else date


def _int(raw: str | None) -> int | None:
    number = _float(raw)
    if number is None or not number.is_integer():
        return None
    return int(number)


def _float(raw: str | None) -> float | None:
    if raw is None:
        return None
    try:
        number = float(raw.replace(",", ""))
    except ValueError:
        return None
    return number if math.isfinite(number) else None
