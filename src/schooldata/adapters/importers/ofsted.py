"""Ofsted state-funded schools management information -> InspectionRecord.

Three layouts, told apart by their headers; each is its own dataset:
- report cards (inspections from 10 November 2025): evaluation areas on the five-point scale
  (Exceptional .. Urgent improvement) and Safeguarding Met / Not met;
- graded inspections (before): overall effectiveness and sub-judgements 1-4, 9 = no judgement;
- "latest inspections" (the monthly file since report cards began): each school's latest
  report card and, in the `Latest OEIF ...` columns, its latest graded inspection, side by
  side in one row. Each becomes its own record; the two frameworks are never merged or mapped
  onto each other.
A school with no inspection of a kind has `NULL` (or nothing) there: that is no record, not a
bad row. Only Ofsted material is read; independent-school inspectorates publish elsewhere and
are never imported. Dates are DD/MM/YYYY (or DD-MM-YYYY, or ISO).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

from attrs import frozen

from schooldata.adapters.importers.files import (
    Columns,
    RowCounter,
    Source,
    csv_rows,
    read_header,
    single_file,
)
from schooldata.domain.errors import ImportRejected, InvalidUrn
from schooldata.domain.ofsted import (
    GradedInspection,
    InspectionRecord,
    ReportCard,
    parse_grade,
    parse_scale,
)
from schooldata.domain.urn import Urn
from schooldata.ports.imports import Progress, RejectLog

# Column names as Ofsted writes them, compared after `_normal` (case, spacing, "well-being" or
# "wellbeing", a trailing "(where applicable)"): the MI has renamed columns between releases, and
# each field lists every name it has been published under, newest first.
URN = ("urn",)
TYPE = ("inspection type",)
PUBLISHED = ("publication date",)
REPORT_CARD_NUMBER = ("inspection number of latest full inspection", "inspection number")
REPORT_CARD_START = ("inspection start date of latest full inspection", "inspection start date")
REPORT_CARD_AREAS = {
    "inclusion": ("inclusion",),
    "curriculum_and_teaching": ("curriculum and teaching",),
    "achievement": ("achievement",),
    "attendance_and_behaviour": ("attendance and behaviour",),
    "personal_development_and_well_being": ("personal development and wellbeing",),
    "leadership_and_governance": ("leadership and governance",),
    "early_years": ("early years", "early years provision"),
    "post_16": ("post-16", "post-16 provision", "post 16 provision", "sixth form provision"),
}
SAFEGUARDING = ("safeguarding standards", "safeguarding")
# The graded framework: on its own in the historic MI files, and as the "Latest OEIF ..."
# columns of the report-card-era "latest inspections" file (OEIF: the education inspection
# framework the 1-4 grades were given under). Each field: (its names beside report cards, the
# plain names of the historic files); beside report cards only the former are the graded
# inspection's (a plain "Inspection start date" there is the report card's).
GRADED_NUMBER = (
    (
        "inspection number of latest oeif graded inspection",
        "inspection number of latest graded inspection",
    ),
    ("inspection number",),
)
GRADED_START = (
    (
        "inspection start date of latest oeif graded inspection",
        "inspection start date of latest graded inspection",
    ),
    ("inspection start date",),
)
GRADED_PUBLISHED = (
    (
        "publication date of latest oeif graded inspection",
        "publication date of latest graded inspection",
    ),
    ("publication date",),
)
GRADED_TYPE = (("inspection type of latest oeif graded inspection",), ("inspection type",))
OVERALL = (("latest oeif overall effectiveness",), ("overall effectiveness",))
GRADED = {
    "quality_of_education": (("latest oeif quality of education",), ("quality of education",)),
    "behaviour_and_attitudes": (
        ("latest oeif behaviour and attitudes",),
        ("behaviour and attitudes",),
    ),
    "personal_development": (("latest oeif personal development",), ("personal development",)),
    "leadership_and_management": (
        ("latest oeif effectiveness of leadership and management",),
        ("effectiveness of leadership and management",),
    ),
    "early_years": (("latest oeif early years provision",), ("early years provision",)),
    "sixth_form": (("latest oeif sixth form provision",), ("sixth form provision",)),
}
SAFEGUARDING_EFFECTIVE = (
    ("latest oeif safeguarding is effective?",),
    ("safeguarding is effective?",),
)
DATASET_REPORT_CARD, DATASET_GRADED = "ofsted_report_card", "ofsted_graded"
DATASET_LATEST = "ofsted_latest_inspections"
# What the MI writes where a school has no such inspection or judgement.
ABSENT = frozenset({"", "null", "n/a", "na", "not applicable", "none", "-"})


def _normal(name: str) -> str:
    text = " ".join(name.replace("\ufeff", "").strip().lower().split())
    text = text.replace("well-being", "wellbeing").replace("well being", "wellbeing")
    return text.removesuffix(" (where applicable)").removesuffix(" (if applicable)")


class Header:
    """A MI file's columns by normalised name (the first of each name counts)."""

    def __init__(self, columns: Columns, names: list[str]) -> None:
        self.width = columns.width
        self._index: dict[str, int] = {}
        for position, name in enumerate(names):
            self._index.setdefault(_normal(name), position)

    def find(self, aliases: tuple[str, ...]) -> int | None:
        for alias in aliases:
            if (at := self._index.get(alias)) is not None:
                return at
        return None

    def has(self, aliases: tuple[str, ...]) -> bool:
        return self.find(aliases) is not None


@frozen
class _Block:
    """Where one framework's fields are in a file (None: the file has no such column)."""

    number: int | None
    start: int
    published: int | None
    kind: int | None
    fields: dict[str, int | None]
    safeguarding: int | None


def _report_card_block(header: Header) -> _Block | None:
    start = header.find(REPORT_CARD_START)
    if start is None or not header.has(("inclusion",)) or not header.has(SAFEGUARDING):
        return None
    return _Block(
        number=header.find(REPORT_CARD_NUMBER),
        start=start,
        published=header.find(PUBLISHED),
        kind=header.find(TYPE),
        fields={area: header.find(names) for area, names in REPORT_CARD_AREAS.items()},
        safeguarding=header.find(SAFEGUARDING),
    )


def _graded_block(header: Header, *, beside_report_cards: bool) -> _Block | None:
    def find(names: tuple[tuple[str, ...], tuple[str, ...]]) -> int | None:
        own, plain = names
        return header.find(own if beside_report_cards else own + plain)

    overall, start = find(OVERALL), find(GRADED_START)
    if overall is None or start is None:
        return None
    return _Block(
        number=find(GRADED_NUMBER),
        start=start,
        published=find(GRADED_PUBLISHED),
        kind=find(GRADED_TYPE),
        fields={"overall": overall, **{name: find(names) for name, names in GRADED.items()}},
        safeguarding=find(SAFEGUARDING_EFFECTIVE),
    )


@frozen
class Layout:
    """A MI file's layout: which frameworks it holds, and so which dataset it is."""

    dataset: str
    report_cards: _Block | None
    graded: _Block | None


def detect_layout(header: Header) -> Layout:
    report_cards = _report_card_block(header)
    graded = _graded_block(header, beside_report_cards=report_cards is not None)
    if report_cards is not None and graded is not None:
        return Layout(DATASET_LATEST, report_cards, graded)
    if report_cards is not None:
        return Layout(DATASET_REPORT_CARD, report_cards, None)
    if graded is not None:
        return Layout(DATASET_GRADED, None, graded)
    raise ImportRejected(
        "Not an Ofsted management-information file: expected report-card columns "
        "(Inclusion, ..., Safeguarding standards, with an inspection start date) or graded "
        "columns (Overall effectiveness, with an inspection start date)."
    )


def parse_date(raw: str) -> dt.date | None:
    text = raw.strip()
    for fmt in ("%d/%m/%Y", "%d-%m-%Y", "%Y-%m-%d"):
        try:
            return dt.datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    return None


def _read_header(path: Path) -> Header:
    names = read_header(path)
    columns = Columns(names)
    header = Header(columns, names)
    if not header.has(URN):
        raise ImportRejected(
            f"{path.name} is not an Ofsted management information file: no 'URN' column."
        )
    return header


def parse_ofsted(
    source: Source, log: RejectLog, *, progress: Progress | None = None
) -> Iterator[InspectionRecord]:
    path = single_file(source, "An Ofsted management-information file")
    header = _read_header(path)
    layout = detect_layout(header)
    return _records(path, header, layout, log, RowCounter(log, progress))


def _records(
    path: Path, header: Header, layout: Layout, log: RejectLog, counter: RowCounter
) -> Iterator[InspectionRecord]:
    rows = csv_rows(path)
    next(rows)
    urn_at = header.find(URN)
    assert urn_at is not None  # _read_header checked it
    for line, row in rows:
        counter.row()
        if len(row) != header.width:
            log.reject(line, f"has {len(row)} fields; the header has {header.width}")
            continue
        try:
            urn = Urn.parse(row[urn_at].strip())
        except InvalidUrn as err:
            log.reject(line, err.message)
            continue
        try:
            records = list(_row_records(row, urn, layout))
        except ValueError as bad:
            log.reject(line, f"URN {urn}: {bad}")
            continue
        if not records:  # no inspection of either kind yet (a new school)
            log.skipped += 1
        yield from records
    counter.done()


def _row_records(row: list[str], urn: Urn, layout: Layout) -> Iterator[InspectionRecord]:
    """The row's inspections: none of a kind whose date or judgements are all absent (NULL);
    ValueError for a date that is not one."""
    for block, build in ((layout.report_cards, _report_card), (layout.graded, _graded)):
        if block is None or (raw_start := _cell(row, block.start)) is None:
            continue
        judged = (block.safeguarding, *block.fields.values())
        if all(_cell(row, at) is None for at in judged):
            continue
        started = parse_date(raw_start)
        if started is None:
            raise ValueError(f"inspection start date {raw_start!r} is not a date")
        yield InspectionRecord(
            urn=urn,
            inspection=build(row, block, started),
            inspection_number=_cell(row, block.number),
        )


def _cell(row: list[str], at: int | None) -> str | None:
    """A cell's text, or None where the column is absent or the MI says there is nothing."""
    if at is None:
        return None
    text = row[at].strip()
    return None if text.lower() in ABSENT else text


def _report_card(row: list[str], block: _Block, started: dt.date) -> ReportCard:
    safeguarding = (_cell(row, block.safeguarding) or "").lower()
    return ReportCard(
        inspection_date=started,
        publication_date=parse_date(_cell(row, block.published) or ""),
        inspection_type=_cell(row, block.kind),
        areas={area: parse_scale(_cell(row, at)) for area, at in block.fields.items()},
        safeguarding_met={"met": True, "not met": False}.get(safeguarding),
    )


def _graded(row: list[str], block: _Block, started: dt.date) -> GradedInspection:
    effective = (_cell(row, block.safeguarding) or "").lower()
    grades = {name: parse_grade(_cell(row, at)) for name, at in block.fields.items()}
    overall = grades.pop("overall")
    return GradedInspection(
        inspection_date=started,
        publication_date=parse_date(_cell(row, block.published) or ""),
        inspection_type=_cell(row, block.kind),
        overall_effectiveness=overall,
        sub_grades=grades,
        safeguarding_effective={"yes": True, "no": False}.get(effective),
    )


def dataset_of(source: Source) -> str:
    path = single_file(source, "An Ofsted management-information file")
    return detect_layout(_read_header(path)).dataset
