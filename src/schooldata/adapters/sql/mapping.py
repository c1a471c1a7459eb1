"""Rows <-> domain objects. Every derived column is computed here, from domain functions."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import attrs
from sqlalchemy import RowMapping

from schooldata.domain.dataset import DatasetRecord, SourceCheck
from schooldata.domain.geo import Location
from schooldata.domain.links import Establishment, EstablishmentLink
from schooldata.domain.measure import Measure, MeasureStatus
from schooldata.domain.ofsted import (
    GradedInspection,
    HistoricGrade,
    Inspection,
    InspectionRecord,
    ReportCard,
    ReportCardScale,
    UngradedInspection,
)
from schooldata.domain.phase import GiasPhase
from schooldata.domain.releases import Release, ReleaseStatus
from schooldata.domain.results import MeasureRecord
from schooldata.domain.school import School
from schooldata.domain.text import normalise, tokens
from schooldata.domain.urn import Urn

Row = RowMapping

# School fields stored one-to-one in a column of the same name; the rest are mapped below.
_COMPOSITE = frozenset({"urn", "gias_phase", "location", "ofsted"})
_PLAIN_FIELDS: tuple[str, ...] = tuple(
    f.name for f in attrs.fields(School) if f.name not in _COMPOSITE
)


def school_row(school: School) -> dict[str, Any]:
    row = {name: getattr(school, name) for name in _PLAIN_FIELDS}
    location, ofsted = school.location, school.ofsted
    row.update(
        urn=school.urn.value,
        gias_phase=None if school.gias_phase is None else school.gias_phase.value,
        latitude=None if location is None else location.latitude,
        longitude=None if location is None else location.longitude,
        ofsted_grade=None if ofsted is None else ofsted.grade,
        ofsted_date=None if ofsted is None else ofsted.inspection_date,
        # The same keys domain.search compares (see _matches_filters and sort_key).
        phase=None if school.phase is None else school.phase.value,
        name_sort=normalise(school.name),
        la_name_key=normalise(school.la_name or ""),
        la_code_key=(school.la_code or "").lower(),
    )
    return row


def school_from_row(row: Row, shared: dict[str, str] | None = None) -> School:
    """`shared`: the strings already read by this pass, so that a value many rows repeat
    ("Open", "Mixed", an authority's name) is one object, not one per school (a snapshot of
    the whole register holds about 40 MB less)."""
    latitude, longitude, grade = row["latitude"], row["longitude"], row["ofsted_grade"]
    if shared is None:
        plain = {name: row[name] for name in _PLAIN_FIELDS}
    else:
        plain = {name: _one_of(shared, row[name]) for name in _PLAIN_FIELDS}
    return School(
        urn=Urn(row["urn"]),
        gias_phase=None if row["gias_phase"] is None else GiasPhase(row["gias_phase"]),
        location=None if latitude is None or longitude is None else Location(latitude, longitude),
        ofsted=None if grade is None else HistoricGrade(grade, row["ofsted_date"]),
        **plain,
    )


def _one_of(shared: dict[str, str], value: Any) -> Any:
    return shared.setdefault(value, value) if type(value) is str else value


def school_tokens(school: School) -> Iterator[tuple[str, int]]:
    """(token, urn) for every distinct token the text search matches against."""
    found = {*tokens(school.name), *tokens(school.la_name), *tokens(school.type_name)}
    return ((token, school.urn.value) for token in sorted(found))


MEASURE_COLUMNS = (
    "urn", "dataset", "record_dataset", "period", "code", "status", "value", "reason", "cohort",
)  # fmt: skip


def measure_values(dataset: str, record: MeasureRecord) -> tuple[Any, ...]:
    """A row in MEASURE_COLUMNS order (plain values, for bulk loading)."""
    measure = record.measure
    return (
        record.urn.value,
        dataset,
        None if record.dataset == dataset else record.dataset,
        record.period,
        record.code,
        measure.status.value,
        measure.value,
        measure.reason,
        record.cohort,
    )


def measure_from_row(row: Row) -> MeasureRecord:
    return MeasureRecord(
        urn=Urn(row["urn"]),
        dataset=row["record_dataset"] or row["dataset"],
        period=row["period"],
        code=row["code"],
        measure=Measure(MeasureStatus(row["status"]), row["value"], row["reason"]),
        cohort=row["cohort"],
    )


def link_row(link: EstablishmentLink) -> dict[str, Any]:
    return {
        "urn": link.urn.value,
        "linked_urn": link.linked_urn.value,
        "linked_name": link.linked_name,
        "link_type": link.link_type,
        "established": link.established,
    }


def link_from_row(row: Row) -> EstablishmentLink:
    """A link; with the linked establishment's facts when the row joined them (`est_*`)."""
    name = row.get("est_name")
    linked = None
    if name is not None:
        linked = Establishment(
            urn=Urn(row["linked_urn"]),
            name=name,
            status=row["est_status"],
            opened=row["est_open_date"],
            closed=row["est_close_date"],
        )
    return EstablishmentLink(
        urn=Urn(row["urn"]),
        linked_urn=Urn(row["linked_urn"]),
        linked_name=row["linked_name"],
        link_type=row["link_type"],
        established=row["established"],
        linked=linked,
    )


def establishment_row(establishment: Establishment) -> dict[str, Any]:
    return {
        "urn": establishment.urn.value,
        "name": establishment.name,
        "status": establishment.status,
        "open_date": establishment.opened,
        "close_date": establishment.closed,
    }


def release_row(dataset: str, release: Release) -> dict[str, Any]:
    status = release.status
    return {
        "dataset": dataset,
        "period": release.period,
        "status": None if status is None else status.value,
        "released": release.released,
    }


def release_from_row(row: Row) -> Release:
    status = row["status"]
    return Release(
        dataset=row["dataset"],
        period=row["period"],
        status=None if status is None else ReleaseStatus(status),
        released=row["released"],
    )


def dataset_row(record: DatasetRecord) -> dict[str, Any]:
    return attrs.asdict(record, recurse=False)


def dataset_from_row(row: Row) -> DatasetRecord:
    return DatasetRecord(**{f.name: row[f.name] for f in attrs.fields(DatasetRecord)})


def source_row(check: SourceCheck) -> dict[str, Any]:
    return attrs.asdict(check, recurse=False)


def source_from_row(row: Row) -> SourceCheck:
    return SourceCheck(**{f.name: row[f.name] for f in attrs.fields(SourceCheck)})


def inspection_row(dataset: str, record: InspectionRecord) -> dict[str, Any]:
    inspection = record.inspection
    row: dict[str, Any] = {
        "urn": record.urn.value,
        "dataset": dataset,
        "inspection_number": record.inspection_number,
        "framework": record.framework,
        "inspection_date": inspection.inspection_date,
        "publication_date": inspection.publication_date,
        "inspection_type": inspection.inspection_type,
    }
    if isinstance(inspection, ReportCard):
        areas = {k: None if v is None else v.value for k, v in inspection.areas.items()}
        return row | {
            "overall_effectiveness": None,  # every row has every key: executemany needs it
            "safeguarding": inspection.safeguarding_met,
            "judgements": json.dumps(areas),
        }
    if isinstance(inspection, UngradedInspection):
        return row | {
            "overall_effectiveness": None,
            "safeguarding": None,
            "judgements": json.dumps({"outcome": inspection.outcome}),
        }
    return row | {
        "overall_effectiveness": inspection.overall_effectiveness,
        "safeguarding": inspection.safeguarding_effective,
        "judgements": json.dumps(inspection.sub_grades),
    }


def inspection_from_row(row: Row) -> InspectionRecord:
    judgements: dict[str, Any] = json.loads(row["judgements"])
    inspection: Inspection
    if row["framework"] == "ungraded":
        inspection = UngradedInspection(
            inspection_date=row["inspection_date"],
            publication_date=row["publication_date"],
            inspection_type=row["inspection_type"],
            outcome=judgements.get("outcome"),
        )
    elif row["framework"] == "report_card":
        inspection = ReportCard(
            inspection_date=row["inspection_date"],
            publication_date=row["publication_date"],
            inspection_type=row["inspection_type"],
            areas={k: None if v is None else ReportCardScale(v) for k, v in judgements.items()},
            safeguarding_met=row["safeguarding"],
        )
    else:
        inspection = GradedInspection(
            inspection_date=row["inspection_date"],
            publication_date=row["publication_date"],
            inspection_type=row["inspection_type"],
            overall_effectiveness=row["overall_effectiveness"],
            sub_grades=judgements,
            safeguarding_effective=row["safeguarding"],
        )
    return InspectionRecord(
        urn=Urn(row["urn"]), inspection=inspection, inspection_number=row["inspection_number"]
    )
