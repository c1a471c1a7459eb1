"""Ofsted state-funded schools management information -> InspectionRecord.

Two layouts, told apart by their headers and never mixed:
- report cards (inspections from 10 November 2025): evaluation areas on the five-point scale
  (Exceptional .. Urgent improvement) and Safeguarding Met / Not met;
- graded inspections (before): overall effectiveness and sub-judgements 1-4, 9 = no judgement.
Only Ofsted material is read; independent-school inspectorates publish elsewhere and are
never imported. Dates are DD/MM/YYYY (or DD-MM-YYYY, or ISO).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

from schooldata.adapters.importers.files import Columns, RowCounter, Source, csv_rows, single_file
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

URN, NUMBER, TYPE = "URN", "Inspection number", "Inspection type"
START, PUBLISHED = "Inspection start date", "Publication date"
REPORT_CARD_AREAS = {
    "inclusion": "Inclusion",
    "curriculum_and_teaching": "Curriculum and teaching",
    "achievement": "Achievement",
    "attendance_and_behaviour": "Attendance and behaviour",
    "personal_development_and_well_being": "Personal development and well-being",
    "leadership_and_governance": "Leadership and governance",
    "early_years": "Early years",
    "post_16": "Post-16",
}
SAFEGUARDING = "Safeguarding"
GRADED = {
    "quality_of_education": "Quality of education",
    "behaviour_and_attitudes": "Behaviour and attitudes",
    "personal_development": "Personal development",
    "leadership_and_management": "Effectiveness of leadership and management",
    "early_years": "Early years provision (where applicable)",
    "sixth_form": "Sixth form provision (where applicable)",
}
OVERALL, SAFEGUARDING_EFFECTIVE = "Overall effectiveness", "Safeguarding is effective?"
DATASET_REPORT_CARD, DATASET_GRADED = "ofsted_report_card", "ofsted_graded"


def detect_layout(columns: Columns) -> str:
    if "Inclusion" in columns and SAFEGUARDING in columns:
        return DATASET_REPORT_CARD
    if OVERALL in columns:
        return DATASET_GRADED
    raise ImportRejected(
        "Not an Ofsted management-information file: expected report-card columns "
        "(Inclusion, ..., Safeguarding) or graded columns (Overall effectiveness, ...)."
    )


def parse_date(raw: str) -> dt.date | None:
    text = raw.strip()
    for fmt in ("%d/%m/%Y", "%d-%m-%Y", "%Y-%m-%d"):
        try:
            return dt.datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    return None


def parse_ofsted(
    source: Source, log: RejectLog, *, progress: Progress | None = None
) -> Iterator[InspectionRecord]:
    path = single_file(source, "An Ofsted management-information file")
    columns = Columns.read(path, required=(URN, START), what="Ofsted management information")
    layout = detect_layout(columns)
    return _records(path, columns, layout, log, RowCounter(log, progress))


def _records(
    path: Path, columns: Columns, layout: str, log: RejectLog, counter: RowCounter
) -> Iterator[InspectionRecord]:
    rows = csv_rows(path)
    next(rows)

    def cell(row: list[str], name: str) -> str:
        index = columns.index(name)
        return "" if index is None else row[index].strip()

    for line, row in rows:
        counter.row()
        if len(row) != columns.width:
            log.reject(line, f"has {len(row)} fields; the header has {columns.width}")
            continue
        try:
            urn = Urn.parse(cell(row, URN))
        except InvalidUrn as err:
            log.reject(line, err.message)
            continue
        started = parse_date(cell(row, START))
        if started is None:
            log.reject(line, f"URN {urn}: no valid inspection start date")
            continue
        published = parse_date(cell(row, PUBLISHED))
        kind = cell(row, TYPE) or None
        number = cell(row, NUMBER) or None
        if layout == DATASET_REPORT_CARD:
            safeguarding = cell(row, SAFEGUARDING).lower()
            inspection: ReportCard | GradedInspection = ReportCard(
                inspection_date=started,
                publication_date=published,
                inspection_type=kind,
                areas={
                    area: parse_scale(cell(row, column))
                    for area, column in REPORT_CARD_AREAS.items()
                },
                safeguarding_met={"met": True, "not met": False}.get(safeguarding),
            )
        else:
            effective = cell(row, SAFEGUARDING_EFFECTIVE).lower()
            inspection = GradedInspection(
                inspection_date=started,
                publication_date=published,
                inspection_type=kind,
                overall_effectiveness=parse_grade(cell(row, OVERALL)),
                sub_grades={
                    name: parse_grade(cell(row, column)) for name, column in GRADED.items()
                },
                safeguarding_effective={"yes": True, "no": False}.get(effective),
            )
        yield InspectionRecord(urn=urn, inspection=inspection, inspection_number=number)
    counter.done()


def dataset_of(source: Source) -> str:
    path = single_file(source, "An Ofsted management-information file")
    return detect_layout(
        Columns.read(path, required=(URN, START), what="Ofsted management information")
    )
