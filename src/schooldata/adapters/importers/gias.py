"""GIAS establishments (`edubasealldataYYYYMMDD.csv`) -> School, one per row with a valid URN.

- Columns are read by header name, so the 2025 (135-column) and 2024 (140-column) layouts
  both work; a file without URN, name and status is refused before anything is yielded.
  Names are resolved to positions once per file: a full extract is 65,000 rows.
- Every row with a valid URN is yielded whatever its status (the store decides what is
  served); non-open rows are counted as `skipped`, not as rejects.
- Blank cells become None, never 0 or "". An optional cell that does not parse (a capacity
  of "n/a") also becomes None: the row is still a real school.
- Easting/Northing are converted to WGS84 in batches; blank or 0/0 means no location.
- What the file says of every establishment it lists, served or not (name, status, opening
  and closing dates) goes to the log's `listed`: the facts a link shows of a closed school.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Hashable, Iterator
from operator import itemgetter
from typing import Any, TypeVar

from schooldata.adapters.importers.files.columns import Columns
from schooldata.adapters.importers.files.counting import RowCounter
from schooldata.adapters.importers.files.rows import csv_rows
from schooldata.adapters.importers.files.sources import DataPath, Source, single_file
from schooldata.adapters.importers.osgb import GridPoint, grid_point, locate_in_batches
from schooldata.domain.errors import InvalidUrn
from schooldata.domain.links import Establishment
from schooldata.domain.ofsted import HistoricGrade, parse_grade
from schooldata.domain.phase import parse_gias_phase
from schooldata.domain.postcode import canonical_postcode
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
# GIAS's categorical ("(name)") columns write a placeholder where there is no value: "Does not
# apply" for the local authority of a British school overseas, "Not applicable" for the
# admissions policy of a primary school, "Not Applicable" for the region abroad. Served as null:
# a placeholder is not a local authority, policy or region. ("None", as in religious character
# None, is an answer and is kept.)
CATEGORY_ATTRS = (
    "la_name",
    "type_name",
    "type_group",
    "gender",
    "religious_character",
    "admissions_policy",
    "boarders",
    "nursery_provision",
    "official_sixth_form",
    "trust_name",
    "county",
    "region",
    "district",
    "ward",
    "parliamentary_constituency",
    "urban_rural",
)
PLACEHOLDERS = frozenset({"does not apply", "not applicable", "not recorded", "unknown", "n/a"})
_TEXT_ATTRS = tuple(TEXT_COLUMNS)
_INT_ATTRS = tuple(INT_COLUMNS)
_FLOAT_ATTRS = tuple(FLOAT_COLUMNS)
PHASE = "PhaseOfEducation (name)"
OPEN_DATE = "OpenDate"
CLOSE_DATE = "CloseDate"
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
    CLOSE_DATE,
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
# Up to 15 digits an int is exactly the float it would round-trip through (< 2**53).
_EXACT_DIGITS = 15

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


def parse_gias(
    source: Source,
    log: RejectLog,
    *,
    progress: Progress | None = None,
    batch_size: int = 2_000,
    servable_only: bool = False,
) -> Iterator[School]:
    """Schools from one GIAS establishments file; the header is checked before returning.

    `servable_only` (what the import registry asks for): rows whose status is not served are
    counted as `skipped` without being parsed further or yielded; about 59% of a national
    file is closed, and the store would drop them anyway."""
    path = single_file(source, "A GIAS establishments extract")
    columns = Columns.read(path, required=REQUIRED, what="GIAS establishments")
    return _schools(path, columns, log, progress, batch_size, servable_only)


def parse_servable_gias(
    source: Source, log: RejectLog, *, progress: Progress | None = None
) -> Iterator[School]:
    """The open establishments of a GIAS file (the others counted as skipped)."""
    return parse_gias(source, log, progress=progress, servable_only=True)


def _schools(
    path: DataPath,
    columns: Columns,
    log: RejectLog,
    progress: Progress | None,
    batch_size: int,
    servable_only: bool,
) -> Iterator[School]:
    # Each School is built once, with its location: the grid points are converted a batch at
    # a time first, so no second (evolved) copy of every record is made.
    rows = _rows(path, columns, log, RowCounter(log, progress), servable_only)
    for fields, location in locate_in_batches(rows, batch_size):
        yield School(location=location, **fields)


def _rows(
    path: DataPath, columns: Columns, log: RejectLog, counter: RowCounter, servable_only: bool
) -> Iterator[tuple[dict[str, Any], GridPoint | None]]:
    """School fields (all but the location) and the grid point of every row with a valid URN
    and a name; other rows are rejected with their line and reason."""
    reader = _RowReader(columns)
    records = csv_rows(path)
    next(records)  # the header, already checked
    for line, row in records:
        counter.row()
        if len(row) != columns.width:
            log.reject(line, f"has {len(row)} fields; the header has {columns.width}")
            continue
        try:
            urn = Urn.parse(row[reader.urn].strip())
        except InvalidUrn as err:
            log.reject(line, err.message)
            continue
        name = row[reader.name].strip()
        if not name:
            log.reject(line, f"URN {urn}: {NAME} is blank")
            continue
        log.listed[urn] = reader.facts(row, urn, name)
        if servable_only and not is_servable_status(reader.status_of(row)):
            log.skipped += 1
            log.listed_closed.add(urn)
            continue
        fields, point = reader.fields(row)
        if not is_servable_status(fields["status"]):
            log.skipped += 1
            log.listed_closed.add(urn)
        fields["urn"], fields["name"] = urn, name
        yield fields, point
    counter.done()


def _cells(indexes: list[int]) -> Callable[[list[str]], tuple[str, ...]]:
    """The cells at `indexes`, fetched in one C call (itemgetter) rather than one by one."""
    if len(indexes) == 1:
        (only,) = indexes
        return lambda row: (row[only],)
    return itemgetter(*indexes)


def _memo(parse: Callable[[K], T]) -> Callable[[K], T]:
    """`parse`, remembered per distinct input: a file repeats few phases, grades and dates
    across its 65,000 rows. Only for parsers whose results are immutable."""
    cache: dict[K, T] = {}

    def lookup(raw: K) -> T:
        try:
            return cache[raw]
        except KeyError:
            value = cache[raw] = parse(raw)
            return value

    return lookup


class _RowReader:
    """One file's rows to School fields, its column positions resolved once for the file.

    This is the inner loop of a 65,000-row import: every column is located by name once,
    here, not once per cell, and a column this layout lacks reads as a blank cell (the
    blank appended to each row), which is what it means: no value.
    """

    def __init__(self, columns: Columns) -> None:
        blank = columns.width  # the position of the blank cell `fields` appends

        def at(name: str) -> int:
            index = columns.index(name)
            return blank if index is None else index

        self.urn, self.name = at(URN), at(NAME)
        self._texts = _cells([at(col) for col in TEXT_COLUMNS.values()])
        self._ints = _cells([at(col) for col in INT_COLUMNS.values()])
        self._floats = _cells([at(col) for col in FLOAT_COLUMNS.values()])
        self._status, self._phase, self._open_date = at(STATUS), at(PHASE), at(OPEN_DATE)
        self._close_date = at(CLOSE_DATE)
        self._head = _cells([at(col) for col in HEAD_NAME])
        self._inspectorate = at(INSPECTORATE)
        self._easting, self._northing = at(EASTING), at(NORTHING)
        self._rating, self._rating_date = at(OFSTED_RATING), at(OFSTED_DATE)
        self._parse_phase = _memo(parse_gias_phase)
        self._parse_date = _memo(parse_gias_date)
        self._parse_ofsted = _memo(_ofsted)
        self._postcode = canonical_postcode  # (one regex per row: cheaper than a memo here)

    def status_of(self, row: list[str]) -> str:
        return row[self._status].strip() if self._status < len(row) else ""

    def facts(self, row: list[str], urn: Urn, name: str) -> Establishment:
        """What the row says of its establishment, whatever its status."""
        return Establishment(
            urn=urn,
            name=name,
            status=self.status_of(row),
            opened=self._parse_date(self._cell(row, self._open_date)),
            closed=self._parse_date(self._cell(row, self._close_date)),
        )

    @staticmethod
    def _cell(row: list[str], at: int) -> str:
        return row[at] if at < len(row) else ""

    def fields(self, row: list[str]) -> tuple[dict[str, Any], GridPoint | None]:
        """A row's School fields, bar urn, name and location, and its grid point.

        The row must have the header's width; it gains the trailing blank cell."""
        row.append("")
        fields: dict[str, Any] = dict(
            zip(_TEXT_ATTRS, [cell.strip() or None for cell in self._texts(row)], strict=True)
        )
        for attr in CATEGORY_ATTRS:
            value = fields[attr]
            if value is not None and value.lower() in PLACEHOLDERS:
                fields[attr] = None
                if attr == "la_name":
                    fields["la_code"] = None  # its code beside "Does not apply" (0) is none
        fields.update(zip(_INT_ATTRS, map(_int, self._ints(row)), strict=True))
        fields.update(zip(_FLOAT_ATTRS, map(_float, self._floats(row)), strict=True))
        if fields["postcode"] is not None:
            fields["postcode"] = self._postcode(fields["postcode"])
        fields["status"] = row[self._status].strip()
        fields["gias_phase"] = self._parse_phase(row[self._phase])
        fields["open_date"] = self._parse_date(row[self._open_date])
        fields["head_name"] = _head_name(self._head(row))
        fields["inspectorate_name"] = _inspectorate(row[self._inspectorate])
        rating = row[self._rating]
        fields["ofsted"] = self._parse_ofsted((rating, row[self._rating_date])) if rating else None
        point = grid_point(row[self._easting].strip(), row[self._northing].strip())
        return fields, point


def _head_name(parts: tuple[str, ...]) -> str | None:
    kept = [p for p in map(str.strip, parts) if p and p.lower() not in _NO_VALUE]
    return " ".join(kept) or None


def _inspectorate(raw: str) -> str | None:
    # Only a non-Ofsted inspectorate is worth keeping: it marks material never served.
    name = raw.strip()
    if not name or name.lower() in _NO_VALUE or name.lower() == "ofsted":
        return None
    return name


def _ofsted(cells: tuple[str, str]) -> HistoricGrade | None:
    """A 2024-layout grade with its inspection date (both cells: one key for `_memo`)."""
    rating, date = cells
    grade = parse_grade(rating)
    if grade is None:
        return None
    return HistoricGrade(grade, parse_gias_date(date))


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


def _int(raw: str) -> int | None:
    """A whole number, or None (blank, not a number, or not whole: "n/a", "12.5")."""
    text = raw.strip()
    if text.isascii() and text.isdigit() and len(text) <= _EXACT_DIGITS:
        return int(text)  # the common case, without the float round trip
    number = _float(text)
    if number is None or not number.is_integer():
        return None
    return int(number)


def _float(raw: str) -> float | None:
    """A finite number (thousands commas allowed), or None: blank, "n/a", inf and nan."""
    text = raw.strip()
    if not text:
        return None
    try:
        number = float(text.replace(",", ""))
    except ValueError:
        return None
    return number if math.isfinite(number) else None
