"""A school's records and history: the question that asks for its predecessors' too, the
shapes `school_data` answers with (a topic's series and the release of each year its figures
come from; an inspection history; each predecessor's own), and the releases' lookup."""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen

from schooldata.domain.catalogue import Topic
from schooldata.domain.links import Predecessor
from schooldata.domain.ofsted import InspectionRecord
from schooldata.domain.releases import Release
from schooldata.domain.results import MeasureRecord, MeasureSeries
from schooldata.domain.school import School
from schooldata.domain.urn import Urn


@frozen(kw_only=True)
class HistoryRequest:
    """A school's results or inspections, and whether its predecessors' too."""

    urn: Urn
    include_predecessors: bool = False


@frozen(kw_only=True)
class PredecessorInspections:
    predecessor: Predecessor
    inspections: tuple[InspectionRecord, ...]


@frozen(kw_only=True)
class InspectionHistory:
    school: School
    inspections: tuple[InspectionRecord, ...]
    predecessors: tuple[PredecessorInspections, ...] | None = None  # None: not asked


@frozen(kw_only=True)
class TopicSeries:
    topic: Topic
    periods: tuple[str, ...]
    series: tuple[MeasureSeries, ...]
    # The release of each year per dataset its figures come from, by year then dataset.
    releases: tuple[Release, ...] = ()


@frozen(kw_only=True)
class PredecessorTopics:
    predecessor: Predecessor
    topics: tuple[TopicSeries, ...]


@frozen(kw_only=True)
class SchoolTopics:
    school: School
    topics: tuple[TopicSeries, ...]
    predecessors: tuple[PredecessorTopics, ...] | None = None  # None: not asked


def by_year(releases: Sequence[Release]) -> dict[tuple[str, str], Release]:
    return {(r.dataset, r.period): r for r in releases}


def releases_of(
    records: Sequence[MeasureRecord], releases: dict[tuple[str, str], Release]
) -> tuple[Release, ...]:
    """The release of each (year, dataset) the school's figures come from; unknown (a null
    status) where none is recorded."""
    held = sorted({(r.period, r.dataset) for r in records})
    return tuple(
        releases.get((dataset, period))
        or Release(dataset=dataset, period=period, status=None, released=None)
        for period, dataset in held
    )
