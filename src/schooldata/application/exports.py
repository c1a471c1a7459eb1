"""Whole datasets in long, tidy form (`schooldata export DATASET`, `client.export(...)`).

Rules:
- `schools`: the register, one row per open school, in URN order.
- `results`: one row per school, key stage, period and measure: each figure of the school's
  results answer (`SchoolData.results`), its trend included, so a year a measure was not
  published is a row whose value is null with its reason (never 0, never left out), and
  Progress 8 for 2024/25 is null with `no_ks2_baseline`. Each row names its release status
  and date where the data says (`release_of`).
- `admissions`, `finance`: the same rows of those topics (no key stage, no release).
- `inspections`: one row per Ofsted inspection, each school's newest first, as its
  inspection history lists them (one inspection published in two files is one row).
- Filters: `local_authority` (a name or a code, as the lists take it) and `phase`, checked
  like the API's; only open schools, and only what the service serves, are exported.
- Rows are streamed: the register in URN order merged with the measures (or inspections)
  read in URN order, so memory holds one school's records at a time.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Callable, Iterable, Iterator
from itertools import groupby
from typing import TypeVar

from attrs import frozen

from schooldata.application.lineage import by_year
from schooldata.application.school_data import topic_series
from schooldata.domain.catalogue import RESULT_TOPICS, Topic
from schooldata.domain.errors import InvalidParameter
from schooldata.domain.measure import Measure
from schooldata.domain.ofsted import InspectionRecord, inspection_history
from schooldata.domain.phase import Phase, parse_phase
from schooldata.domain.releases import Release as DatasetRelease
from schooldata.domain.results import MeasureRecord
from schooldata.domain.school import School
from schooldata.domain.search import SchoolQuery, matches_filters
from schooldata.domain.text import normalise
from schooldata.ports.schools import InspectionReader, MeasureReader, SchoolReader

Progress = Callable[[int], None]
"""Told how many schools in scope have been exported so far."""
Record = TypeVar("Record", MeasureRecord, InspectionRecord)


class Dataset(enum.Enum):
    SCHOOLS = "schools"
    RESULTS = "results"
    INSPECTIONS = "inspections"
    ADMISSIONS = "admissions"
    FINANCE = "finance"


DATASETS: tuple[str, ...] = tuple(d.value for d in Dataset)
TOPICS: dict[Dataset, tuple[Topic, ...]] = {
    Dataset.RESULTS: RESULT_TOPICS,
    Dataset.ADMISSIONS: (Topic.ADMISSIONS,),
    Dataset.FINANCE: (Topic.FINANCE,),
}


@frozen(kw_only=True)
class ExportRequest:
    """An export whose every parameter is valid."""

    dataset: Dataset
    local_authority: str | None = None
    phases: frozenset[Phase] = frozenset()

    @property
    def query(self) -> SchoolQuery:
        return SchoolQuery(local_authority=self.local_authority, phases=self.phases)


@frozen
class Release:
    """Where a results figure stands: the publisher's release status (`provisional`,
    `revised`, `final`) and the date it was released; None where the data does not say."""

    status: str | None = None
    released_on: dt.date | None = None


UNKNOWN_RELEASE = Release()
Releases = dict[tuple[str, str], DatasetRelease]


def release_of(record: MeasureRecord | None, releases: Releases) -> Release:
    """The release of the stored record behind a results figure, from its dataset's release of
    that year (None: nothing was published for that year, or the file did not say)."""
    if record is None:
        return UNKNOWN_RELEASE
    found = releases.get((record.dataset, record.period))
    if found is None:
        return UNKNOWN_RELEASE
    status = None if found.status is None else found.status.value
    return Release(status=status, released_on=found.released)


@frozen(kw_only=True)
class MeasureRow:
    """One figure of one school: a topic's measure for one period."""

    school: School
    topic: Topic
    period: str
    code: str
    measure: Measure
    cohort: int | None
    release: Release


@frozen(kw_only=True)
class InspectionRow:
    school: School
    record: InspectionRecord


ExportRow = School | MeasureRow | InspectionRow


class Exports:
    def __init__(
        self, *, schools: SchoolReader, measures: MeasureReader, inspections: InspectionReader
    ) -> None:
        self._schools = schools
        self._measures = measures
        self._inspections = inspections

    @staticmethod
    def prepare(
        dataset: object, *, local_authority: object = None, phase: object = None
    ) -> ExportRequest:
        """Every parameter rule, nothing read: what this raises is the caller's mistake."""
        known = {d.value: d for d in Dataset}
        chosen = known.get(dataset.lower()) if isinstance(dataset, str) else None
        if chosen is None:
            raise InvalidParameter(
                "dataset", f"dataset must be one of {', '.join(DATASETS)}; got {dataset!r}."
            )
        if local_authority is not None and not isinstance(local_authority, str):
            raise InvalidParameter("local_authority", "local_authority must be text.")
        if phase is not None and not isinstance(phase, str):
            raise InvalidParameter("phase", "phase must be text.")
        return ExportRequest(
            dataset=chosen,
            local_authority=None if local_authority is None else normalise(local_authority),
            phases=frozenset() if phase is None else frozenset({parse_phase(phase)}),
        )

    def schools(self, request: ExportRequest) -> Iterator[School]:
        """The open schools in scope, in URN order."""
        query = request.query
        return (s for s in self._schools.iter_all() if matches_filters(query, s))

    def count(self, request: ExportRequest) -> int:
        """How many schools are in scope (a progress bar's total)."""
        return sum(1 for _ in self.schools(request))

    def rows(self, request: ExportRequest, progress: Progress | None = None) -> Iterator[ExportRow]:
        """Every row of the export, streamed; `progress` is told the schools done."""
        schools = _counted(self.schools(request), progress)
        if request.dataset is Dataset.SCHOOLS:
            return schools
        if request.dataset is Dataset.INSPECTIONS:
            return self._inspection_rows(schools)
        return self._measure_rows(schools, TOPICS[request.dataset])

    def _measure_rows(
        self, schools: Iterable[School], topics: tuple[Topic, ...]
    ) -> Iterator[MeasureRow]:
        releases = by_year(self._measures.releases())
        for school, records in _merged(schools, self._measures.iter_measures()):
            for topic in topic_series(records, topics):
                for series in topic.series:
                    for point in series.trend:
                        yield MeasureRow(
                            school=school,
                            topic=topic.topic,
                            period=point.period,
                            code=series.code,
                            measure=point.measure,
                            cohort=point.cohort,
                            release=release_of(point.record, releases),
                        )

    def _inspection_rows(self, schools: Iterable[School]) -> Iterator[InspectionRow]:
        for school, records in _merged(schools, self._inspections.iter_inspections()):
            for record in inspection_history(records):
                yield InspectionRow(school=school, record=record)


def _counted(schools: Iterator[School], progress: Progress | None) -> Iterator[School]:
    if progress is None:
        yield from schools
        return
    for done, school in enumerate(schools, start=1):
        yield school
        progress(done)


def _merged(
    schools: Iterable[School], records: Iterator[Record]
) -> Iterator[tuple[School, list[Record]]]:
    """Each school with its records (both in URN order): records of schools not in scope (or
    not served) are passed over, and a school with none is left out."""
    groups = groupby(records, key=lambda record: record.urn.value)
    pending = next(groups, None)
    for school in schools:
        wanted = school.urn.value
        while pending is not None and pending[0] < wanted:
            pending = next(groups, None)
        if pending is not None and pending[0] == wanted:
            yield school, list(pending[1])
            pending = next(groups, None)
