"""The rows of whole-dataset exports (`application.exports`), declared once: their columns
(dotted, as CSV names them), the type of each column, and each row as JSON values.

- `schools`: a school's commercial profile (every commercially licensed field, as
  `GET /api/v1/schools/{urn}` with a key gives it, and its `url`), without its links and
  resource URLs, which are other tables.
- `results`: `ResultRow`; `admissions`, `finance`: `TopicRow`. A figure is its value with
  its status and reason, as in the API: null unless reported, never 0.
- `inspections`: the school's URN, then an inspection as the API's inspection history gives
  it, its evaluation areas and sub-judgements one column each.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import msgspec
from attrs import frozen
from msgspec import Struct
from msgspec import inspect as types

from schooldata.application.exports import Dataset, ExportRow, InspectionRow, MeasureRow
from schooldata.domain.catalogue import spec_of
from schooldata.domain.ofsted import GRADED_SUB_JUDGEMENTS, REPORT_CARD_AREAS
from schooldata.domain.school import School
from schooldata.entrypoints.frames import Kind, kinds_of
from schooldata.entrypoints.wire.common import school_url
from schooldata.entrypoints.wire.datasets import Inspection, Status, inspection_of
from schooldata.entrypoints.wire.records import PROFILE

Row = dict[str, Any]


class ResultRow(Struct, kw_only=True):
    """One results figure of one school: a key stage's measure for one period."""

    urn: int
    key_stage: str
    period: str
    measure: str
    label: str
    unit: str
    value: float | None
    status: Status
    reason: str | None
    cohort: int | None
    release_status: str | None
    released_on: dt.date | None


class TopicRow(Struct, kw_only=True):
    """One admissions or finance figure of one school for one period."""

    urn: int
    period: str
    measure: str
    label: str
    unit: str
    value: float | None
    status: Status
    reason: str | None
    cohort: int | None


def struct_columns(shape: Any, expand: dict[str, tuple[str, ...]] | None = None) -> list[str]:
    """The dotted columns of a Struct's rows, nested Structs flattened (`location.latitude`);
    `expand` names the keys of a dict field (`evaluation_areas.inclusion`)."""
    columns: list[str] = []
    info = types.type_info(shape)
    if not isinstance(info, types.StructType):  # pragma: no cover - rows are Structs
        raise TypeError(f"{shape!r} is not a Struct")
    for field in info.fields:
        member = _bare(field.type)
        if isinstance(member, types.StructType):
            columns += [f"{field.encode_name}.{c}" for c in struct_columns(member.cls)]
        elif expand and field.encode_name in expand:
            columns += [f"{field.encode_name}.{key}" for key in expand[field.encode_name]]
        else:
            columns.append(field.encode_name)
    return columns


def _bare(info: Any) -> Any:
    while isinstance(info, types.Metadata):
        info = info.type
    if isinstance(info, types.UnionType):
        members = [m for m in info.types if not isinstance(m, types.NoneType)]
        return members[0] if len(members) == 1 else info
    return info


# ------------------------------------------------------------------------------- rows

_PROFILE_ONLY = ("links", "resources")
SCHOOL_COLUMNS = tuple(
    c for c in struct_columns(PROFILE.shape) if c.split(".")[0] not in _PROFILE_ONLY
)
_EXPANDED = {"evaluation_areas": REPORT_CARD_AREAS, "sub_judgements": GRADED_SUB_JUDGEMENTS}
_INSPECTION = tuple(struct_columns(Inspection, _EXPANDED))
INSPECTION_COLUMNS = ("urn", *_INSPECTION)


def _school(school: School, base_url: str) -> Row:
    url = school_url(base_url, school.urn)
    built: Row = msgspec.to_builtins(PROFILE.of(school, links=[], resources=None, url=url))
    for name in _PROFILE_ONLY:
        built.pop(name, None)
    return built


def _result(row: MeasureRow, _base_url: str) -> Row:
    spec = spec_of(row.code)
    built: Row = msgspec.to_builtins(
        ResultRow(
            urn=row.school.urn.value,
            key_stage=row.topic.value,
            period=row.period,
            measure=row.code,
            label=spec.label,
            unit=spec.unit,
            value=row.measure.value,
            status=row.measure.status.value,
            reason=row.measure.reason,
            cohort=row.cohort,
            release_status=row.release.status,
            released_on=row.release.released_on,
        )
    )
    return built


def _topic(row: MeasureRow, _base_url: str) -> Row:
    spec = spec_of(row.code)
    built: Row = msgspec.to_builtins(
        TopicRow(
            urn=row.school.urn.value,
            period=row.period,
            measure=row.code,
            label=spec.label,
            unit=spec.unit,
            value=row.measure.value,
            status=row.measure.status.value,
            reason=row.measure.reason,
            cohort=row.cohort,
        )
    )
    return built


def _inspection(row: InspectionRow, _base_url: str) -> Row:
    inspection: Row = msgspec.to_builtins(inspection_of(row.record))
    return {"urn": row.school.urn.value, **inspection}


@frozen
class ExportTable:
    """A dataset's table: its columns, their kinds (from the Structs above), its rows."""

    columns: tuple[str, ...]
    kinds: tuple[Kind, ...]
    row: Callable[[Any, str], Row]


def _table(shape: Any, row: Callable[[Any, str], Row]) -> ExportTable:
    columns = tuple(struct_columns(shape))
    return ExportTable(columns, kinds_of(shape, columns), row)


_MEASURES = _table(TopicRow, _topic)
TABLES: dict[Dataset, ExportTable] = {
    Dataset.SCHOOLS: ExportTable(SCHOOL_COLUMNS, kinds_of(PROFILE.shape, SCHOOL_COLUMNS), _school),
    Dataset.RESULTS: _table(ResultRow, _result),
    Dataset.ADMISSIONS: _MEASURES,
    Dataset.FINANCE: _MEASURES,
    Dataset.INSPECTIONS: ExportTable(
        INSPECTION_COLUMNS, ("int", *kinds_of(Inspection, _INSPECTION)), _inspection
    ),
}


def export_row(dataset: Dataset, row: ExportRow, base_url: str) -> Row:
    return TABLES[dataset].row(row, base_url)
