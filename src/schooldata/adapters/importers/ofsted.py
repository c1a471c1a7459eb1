"""Ofsted state-funded schools management information -> InspectionRecord.

Four layouts, told apart by their headers; each is its own dataset:
- report cards (inspections from 10 November 2025): evaluation areas on the five-point scale
  (Exceptional .. Urgent improvement) and Safeguarding Met / Not met;
- graded inspections (the "latest graded inspection" files before): overall effectiveness and
  sub-judgements 1-4, 9 = no judgement, and the school's latest ungraded inspection beside them;
- "all inspections" (the year-to-date file, one row per inspection): graded inspections, which
  from September 2024 have sub-judgements but no overall effectiveness (never invented: the
  grade stays null), and ungraded and monitoring inspections with their outcome in words;
- "latest inspections" (the monthly file since report cards began): each school's latest
  report card and, in the `Latest OEIF ...` columns, its latest graded inspection, and its
  latest ungraded inspection, side by side in one row.
Each inspection becomes its own record; the frameworks are never merged or mapped onto each
other, and an ungraded inspection's outcome ("School remains Good") is kept as Ofsted wrote it,
never turned into a grade. A school with no inspection of a kind has `NULL` (or nothing)
there: that is no record, not a bad row. Only Ofsted material is read; independent-school
inspectorates publish elsewhere and are never imported. Dates are DD/MM/YYYY (or DD-MM-YYYY,
or ISO).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator

import attrs
from attrs import frozen

from schooldata.adapters.importers.files.columns import Columns
from schooldata.adapters.importers.files.counting import RowCounter
from schooldata.adapters.importers.files.rows import csv_rows, read_header
from schooldata.adapters.importers.files.sources import DataPath, Source, label_of, single_file
from schooldata.domain.errors import ImportRejected, InvalidUrn
from schooldata.domain.ofsted import (
    GradedInspection,
    Inspection,
    InspectionRecord,
    ReportCard,
    UngradedInspection,
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
    ("latest oeif safeguarding is effective?", "latest oeif safeguarding is effective"),
    # Without the "?" in the year-to-date files from September 2024; "Is safeguarding
    # effective?" before 2019.
    ("safeguarding is effective?", "safeguarding is effective", "is safeguarding effective?"),
)
# The ungraded (section 8) inspection: in the "latest" files, the school's latest one beside its
# graded inspection; in the "all inspections" file, a row of its own with its outcome in words.
UNGRADED_NUMBER = (
    "latest ungraded inspection number",
    "latest ungraded inspection number since last graded inspection",
)
UNGRADED_START = ("date of latest ungraded inspection",)
UNGRADED_PUBLISHED = ("ungraded inspection publication date",)
UNGRADED_OUTCOME = ("ungraded inspection overall outcome",)
ROW_OUTCOME = (
    "outcomes for ungraded and monitoring inspections",
    "outcomes for s8 inspections that did not convert",
)
DATASET_REPORT_CARD, DATASET_GRADED = "ofsted_report_card", "ofsted_graded"
DATASET_LATEST = "ofsted_latest_inspections"
DATASET_ALL = "ofsted_all_inspections"
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

    start = find(GRADED_START)
    grades = {"overall": find(OVERALL), **{name: find(names) for name, names in GRADED.items()}}
    # From September 2024 a graded inspection has no overall effectiveness: its sub-judgements
    # are the graded columns then.
    if start is None or all(at is None for at in grades.values()):
        return None
    return _Block(
        number=find(GRADED_NUMBER),
        start=start,
        published=find(GRADED_PUBLISHED),
        kind=find(GRADED_TYPE),
        fields=grades,
        safeguarding=find(SAFEGUARDING_EFFECTIVE),
    )


def _ungraded_block(header: Header, graded: _Block | None) -> _Block | None:
    """The latest ungraded inspection's columns, or (one row per inspection) the row's own
    inspection with its outcome column."""
    outcome = header.find(UNGRADED_OUTCOME)
    start = header.find(UNGRADED_START)
    if outcome is not None and start is not None:
        return _Block(
            number=header.find(UNGRADED_NUMBER),
            start=start,
            published=header.find(UNGRADED_PUBLISHED),
            kind=None,
            fields={"outcome": outcome},
            safeguarding=None,
        )
    row_outcome = header.find(ROW_OUTCOME)
    if row_outcome is not None and graded is not None:
        return attrs.evolve(graded, fields={"outcome": row_outcome}, safeguarding=None)
    return None


@frozen
class Layout:
    """A MI file's layout: which frameworks it holds, and so which dataset it is."""

    dataset: str
    report_cards: _Block | None
    graded: _Block | None
    ungraded: _Block | None = None


def detect_layout(header: Header, name: str = "The file") -> Layout:
    report_cards = _report_card_block(header)
    graded = _graded_block(header, beside_report_cards=report_cards is not None)
    ungraded = _ungraded_block(header, graded)
    if report_cards is not None and graded is not None:
        return Layout(DATASET_LATEST, report_cards, graded, ungraded)
    if report_cards is not None:
        return Layout(DATASET_REPORT_CARD, report_cards, None, ungraded)
    if graded is not None:
        one_row_per_inspection = header.has(ROW_OUTCOME) or graded.fields["overall"] is None
        dataset = DATASET_ALL if one_row_per_inspection else DATASET_GRADED
        return Layout(dataset, None, graded, ungraded)
    raise ImportRejected(
        f"{name} is not an Ofsted management-information file: expected report-card columns "
        "(Inclusion, ..., Safeguarding standards, with an inspection start date) or graded "
        "columns (Overall effectiveness or Quality of education ..., with an inspection start "
        "date)."
    )


def parse_date(raw: str) -> dt.date | None:
    text = raw.strip()
    for fmt in ("%d/%m/%Y", "%d-%m-%Y", "%Y-%m-%d"):
        try:
            return dt.datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    return None


def _read_header(path: DataPath) -> Header:
    names = read_header(path)
    columns = Columns(names)
    header = Header(columns, names)
    if not header.has(URN):
        raise ImportRejected(
            f"{label_of(path)} is not an Ofsted management-information file: no 'URN' column."
        )
    return header


def parse_ofsted(
    source: Source, log: RejectLog, *, progress: Progress | None = None
) -> Iterator[InspectionRecord]:
    path = single_file(source, "An Ofsted management-information file")
    header = _read_header(path)
    layout = detect_layout(header, label_of(path))
    return _records(path, header, layout, log, RowCounter(log, progress))


def _records(
    path: DataPath, header: Header, layout: Layout, log: RejectLog, counter: RowCounter
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
    blocks: tuple[tuple[_Block | None, Callable[[list[str], _Block, dt.date], Inspection]], ...]
    blocks = (
        (layout.report_cards, _report_card),
        (layout.graded, _graded),
        (layout.ungraded, _ungraded),
    )
    for block, build in blocks:
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


def _ungraded(row: list[str], block: _Block, started: dt.date) -> UngradedInspection:
    return UngradedInspection(
        inspection_date=started,
        publication_date=parse_date(_cell(row, block.published) or ""),
        inspection_type=_cell(row, block.kind),
        outcome=_cell(row, block.fields["outcome"]),
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
    return detect_layout(_read_header(path), label_of(path)).dataset
