"""The column names the importers read, taken from them: a file the generator writes is read
by the same names, so neither can drift from the other."""

from __future__ import annotations

from schooldata.adapters.importers import gias, ks4_info
from schooldata.adapters.importers.performance.reader import (
    BREAKDOWN_COLUMNS,
    LEVEL_COLUMN,
    PERIOD_COLUMNS,
    URN_COLUMNS,
)
from schooldata.adapters.importers.performance.spec import TableSpec

PERIOD, URN, LEVEL = PERIOD_COLUMNS[0], URN_COLUMNS[0], LEVEL_COLUMN
BREAKDOWN_TOPIC, BREAKDOWN, DISADVANTAGE = (
    BREAKDOWN_COLUMNS[0],
    BREAKDOWN_COLUMNS[1],
    BREAKDOWN_COLUMNS[3],
)
COHORT_LEVEL_GROUP, COHORT_LEVEL = BREAKDOWN_COLUMNS[-2], BREAKDOWN_COLUMNS[-1]

# GIAS: a school attribute's column (`GIAS["street"]` is "Street"), and the named ones.
GIAS = {**gias.TEXT_COLUMNS, **gias.INT_COLUMNS, **gias.FLOAT_COLUMNS}
GIAS_READ = gias
KS4_INFO = ks4_info


def measure(spec: TableSpec, code: str, group: str | None = None) -> str:
    """The column of a measure as EES names it now (the first name the importer reads)."""
    return _fields(spec, group)[code].names[0]


def cohort(spec: TableSpec, code: str, group: str | None = None) -> str:
    """The column of the pupil count a measure rests on."""
    return _fields(spec, group)[code].cohort[0]


def split(spec: TableSpec) -> str:
    """The column whose value says which measures a row of a long table carries."""
    assert spec.split is not None, spec.dataset
    return spec.split.column


def _fields(spec: TableSpec, group: str | None) -> dict[str, object] | object:
    if group is None:
        return spec.measures
    assert spec.split is not None, spec.dataset
    return spec.split.groups[group]
