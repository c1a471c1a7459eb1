"""The in-memory store: every driven data port in dictionaries. Also the tests' fake."""

from __future__ import annotations

import datetime as dt
import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import attrs

from schooldata.adapters.memory.index import SchoolIndex
from schooldata.domain.changes import ChangeFilter, ListedChange, SchoolChange
from schooldata.domain.dataset import DatasetRecord, SourceCheck
from schooldata.domain.geo import Location
from schooldata.domain.links import Establishment, EstablishmentLink
from schooldata.domain.ofsted import HistoricGrade, InspectionRecord
from schooldata.domain.postcode import PostcodeQuery, outward_of
from schooldata.domain.releases import Release
from schooldata.domain.results import MeasureRecord
from schooldata.domain.school import School, is_servable_status
from schooldata.domain.scoring import Score
from schooldata.domain.search import SchoolQuery, SearchPage
from schooldata.domain.text import normalise
from schooldata.domain.urn import Urn
from schooldata.domain.versions import DataVersion


@attrs.define
class _State:
    schools: dict[Urn, School] = attrs.field(factory=dict)
    postcodes: dict[str, dict[str, Location]] = attrs.field(
        factory=dict
    )  # source -> compact -> loc
    links: list[EstablishmentLink] = attrs.field(factory=list)
    measures: dict[str, list[MeasureRecord]] = attrs.field(factory=dict)
    inspections: dict[str, list[InspectionRecord]] = attrs.field(factory=dict)
    datasets: dict[str, DatasetRecord] = attrs.field(factory=dict)
    sources: dict[str, SourceCheck] = attrs.field(factory=dict)
    establishments: dict[Urn, Establishment] = attrs.field(factory=dict)
    releases: dict[tuple[str, str], Release] = attrs.field(factory=dict)
    # Oldest first; each version's changes in the order recorded.
    versions: tuple[DataVersion, ...] = ()
    changes: tuple[tuple[int, SchoolChange], ...] = ()
    generation: int = 0

    def copy(self) -> _State:
        return _State(
            schools=dict(self.schools),
            postcodes=dict(self.postcodes.items()),
            links=list(self.links),
            measures=dict(self.measures.items()),
            inspections=dict(self.inspections),
            datasets=dict(self.datasets),
            sources=dict(self.sources),
            establishments=dict(self.establishments),
            releases=dict(self.releases),
            versions=self.versions,
            changes=self.changes,
            generation=self.generation,
        )

    def linked(self, link: EstablishmentLink) -> EstablishmentLink:
        return attrs.evolve(link, linked=self.establishments.get(link.linked_urn))


_INSTANCES = itertools.count(1)


class InMemoryStore:
    """Reads see one committed state; a transaction works on a copy and swaps it in on success."""

    def __init__(self, schools: Iterable[School] = ()) -> None:
        # Versions name this store too: another store at the same generation is other data.
        self._instance = next(_INSTANCES)
        self._state = _State()
        self._index = SchoolIndex(())
        self._postcode_cache: dict[str, Location] = {}
        self._outward_cache: dict[str, Location] = {}
        if schools:
            with self.transaction() as tx:
                tx.replace_schools(schools=schools)

    # -- SchoolReader
    def get(self, *, urn: Urn) -> School | None:
        return self._index.by_urn.get(urn)

    def search(self, *, query: SchoolQuery) -> SearchPage:
        return self._index.answer(query)

    def iter_all(self) -> Iterator[School]:
        return iter(self._index.ordered)

    def local_authorities(self) -> list[tuple[str | None, str, int]]:
        counts: dict[tuple[str | None, str], int] = defaultdict(int)
        for school in self._index.ordered:
            if school.la_name:
                counts[(school.la_code, school.la_name)] += 1
        rows = [(code, name, n) for (code, name), n in counts.items()]
        return sorted(rows, key=lambda r: (normalise(r[1]), r[0] or ""))

    def version(self) -> str:
        return f"mem-{self._instance}-{self._state.generation}"

    # -- PostcodeDirectory
    def locate(self, *, postcode: PostcodeQuery) -> Location | None:
        if postcode.is_outward_only:
            return self._outward_cache.get(postcode.compact)
        return self._postcode_cache.get(postcode.compact)

    def iter_postcodes(self) -> Iterator[tuple[str, float, float]]:
        for compact in sorted(self._postcode_cache):
            location = self._postcode_cache[compact]
            yield compact, location.latitude, location.longitude

    def iter_outward_codes(self) -> Iterator[tuple[str, float, float]]:
        for code, location in self._outward_cache.items():
            yield code, location.latitude, location.longitude

    # -- DatasetRegistry
    def current(self) -> list[DatasetRecord]:
        return [self._state.datasets[k] for k in sorted(self._state.datasets)]

    def sources(self) -> list[SourceCheck]:
        return [self._state.sources[k] for k in sorted(self._state.sources)]

    def data_version(self) -> DataVersion | None:
        versions = self._state.versions
        return versions[-1] if versions else None

    # -- ChangeLog
    def current_version(self) -> DataVersion | None:
        return self.data_version()

    def held_version(self, *, sequence: int) -> DataVersion | None:
        return next((v for v in self._state.versions if v.sequence == sequence), None)

    def oldest_version(self, *, made_since: dt.datetime) -> DataVersion | None:
        return next((v for v in self._state.versions if v.made_at >= made_since), None)

    def changes(
        self, *, after: int, upto: int, wanted: ChangeFilter, offset: int, limit: int
    ) -> tuple[int, list[ListedChange]]:
        state = self._state
        versions = {v.sequence: v for v in state.versions}
        chosen = [
            (sequence, change)
            for sequence, change in state.changes
            if after < sequence <= upto and wanted.matches(change)
        ]
        chosen.sort(key=lambda item: (item[0], item[1].urn.value))  # stable: recorded order
        page = [
            ListedChange(
                version=versions[sequence].id, made_at=versions[sequence].made_at, change=change
            )
            for sequence, change in chosen[offset : offset + limit]
        ]
        return len(chosen), page

    # -- SourceLog
    def record_check(self, *, check: SourceCheck) -> bool:
        """Outside any transaction: the generation (the data version) stays."""
        held = self._state.sources.get(check.dataset)
        if held is None or held.sha256 != check.sha256:
            return False
        moved = attrs.evolve(
            held,
            source_url=check.source_url,
            checked_at=check.checked_at,
            etag=check.etag,
            last_modified=check.last_modified,
        )
        self._state.sources = {**self._state.sources, check.dataset: moved}  # one assignment
        return True

    # -- measures (for the results use cases and tests)
    def measures_for(self, *, urn: Urn) -> list[MeasureRecord]:
        return [r for records in self._state.measures.values() for r in records if r.urn == urn]

    def measures_with_code(self, *, code: str) -> list[MeasureRecord]:
        return [r for records in self._state.measures.values() for r in records if r.code == code]

    def iter_measures(self) -> Iterator[MeasureRecord]:
        # A stable sort: each school's records stay in `measures_for`'s order.
        every = [r for records in self._state.measures.values() for r in records]
        return iter(sorted(every, key=lambda r: r.urn.value))

    def inspections_for(self, *, urn: Urn) -> list[InspectionRecord]:
        return [r for records in self._state.inspections.values() for r in records if r.urn == urn]

    def iter_inspections(self) -> Iterator[InspectionRecord]:
        every = [r for records in self._state.inspections.values() for r in records]
        return iter(sorted(every, key=lambda r: r.urn.value))

    def releases(self) -> list[Release]:
        return [self._state.releases[k] for k in sorted(self._state.releases)]

    def links_for(self, *, urn: Urn) -> list[EstablishmentLink]:
        state = self._state
        return [state.linked(link) for link in state.links if link.urn == urn]

    def iter_links(self) -> Iterator[EstablishmentLink]:
        state = self._state
        ordered = sorted(state.links, key=lambda link: link.urn.value)
        return iter([state.linked(link) for link in ordered])

    # -- DataStore
    @contextmanager
    def transaction(self) -> Iterator[_MemoryTransaction]:
        tx = _MemoryTransaction(self._state.copy())
        yield tx
        tx.state.generation += 1
        self._publish(tx.state)

    def _publish(self, state: _State) -> None:
        merged: dict[str, Location] = {}
        for source in sorted(state.postcodes):
            merged.update(state.postcodes[source])
        self._postcode_cache = merged
        self._outward_cache = outward_centroids(merged)
        self._index = SchoolIndex(state.schools.values())
        self._state = state


def outward_centroids(postcodes: dict[str, Location]) -> dict[str, Location]:
    """Mean latitude/longitude of each outward code's live postcodes (computed at import)."""
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for compact, loc in postcodes.items():
        acc = sums[outward_of(compact)]
        acc[0] += loc.latitude
        acc[1] += loc.longitude
        acc[2] += 1
    return {k: Location(v[0] / v[2], v[1] / v[2]) for k, v in sums.items()}


class _MemoryTransaction:
    def __init__(self, state: _State) -> None:
        self.state = state

    def replace_schools(self, *, schools: Iterable[School]) -> int:
        kept = {s.urn: s for s in schools if is_servable_status(s.status)}
        self.state.schools = kept
        return len(kept)

    def replace_postcodes(self, *, postcodes: Iterable[tuple[str, Location]], source: str) -> int:
        table = dict(postcodes)
        self.state.postcodes[source] = table
        return len(table)

    def replace_links(self, *, links: Iterable[EstablishmentLink]) -> int:
        self.state.links = [attrs.evolve(link, linked=None) for link in links]
        return len(self.state.links)

    def links(self) -> Iterator[EstablishmentLink]:
        return iter(list(self.state.links))

    def replace_establishments(self, *, establishments: Iterable[Establishment]) -> int:
        self.state.establishments = {e.urn: e for e in establishments}
        return len(self.state.establishments)

    def replace_measures(self, *, dataset: str, records: Iterable[MeasureRecord]) -> int:
        new = list(records)
        periods = {r.period for r in new}
        kept = [r for r in self.state.measures.get(dataset, ()) if r.period not in periods]
        self.state.measures[dataset] = kept + new
        return len(new)

    def measure_periods(self, *, dataset: str) -> dict[str, int]:
        counts = Counter(r.period for r in self.state.measures.get(dataset, ()))
        return dict(sorted(counts.items()))

    def dataset_measures(self, *, dataset: str) -> Iterator[MeasureRecord]:
        return iter(list(self.state.measures.get(dataset, ())))

    def set_releases(self, *, dataset: str, releases: Iterable[Release]) -> None:
        for release in releases:
            self.state.releases[(dataset, release.period)] = release

    def releases(self) -> list[Release]:
        return [self.state.releases[k] for k in sorted(self.state.releases)]

    def replace_inspections(self, *, dataset: str, records: Iterable[InspectionRecord]) -> int:
        self.state.inspections[dataset] = list(records)
        return len(self.state.inspections[dataset])

    def set_scores(self, *, scores: dict[Urn, Score]) -> None:
        for urn, school in list(self.state.schools.items()):
            score = scores.get(urn)
            if score is not None:
                self.state.schools[urn] = attrs.evolve(
                    school, svc_score=score.value, score_suppressed_reason=score.reason
                )

    def set_historic_grades(self, *, grades: dict[Urn, HistoricGrade | None]) -> None:
        for urn, grade in grades.items():
            school = self.state.schools.get(urn)
            if school is not None:
                self.state.schools[urn] = attrs.evolve(school, ofsted=grade)

    def inspections(self, *, datasets: Iterable[str] | None) -> Iterator[InspectionRecord]:
        held = self.state.inspections
        for dataset in sorted(held) if datasets is None else datasets:
            yield from held.get(dataset, ())

    def record_dataset(self, *, record: DatasetRecord) -> None:
        self.state.datasets[record.name] = record

    def datasets(self) -> list[DatasetRecord]:
        return [self.state.datasets[k] for k in sorted(self.state.datasets)]

    def set_source(self, *, dataset: str, check: SourceCheck | None) -> None:
        if check is None:
            self.state.sources.pop(dataset, None)
        else:
            self.state.sources[dataset] = check

    def remove_dataset(self, *, name: str) -> None:
        self.state.sources.pop(name, None)
        self.state.measures.pop(name, None)
        self.state.releases = {k: r for k, r in self.state.releases.items() if k[0] != name}
        self.state.inspections.pop(name, None)
        self.state.postcodes.pop(name, None)
        self.state.datasets.pop(name, None)

    def served_schools(self) -> Iterator[School]:
        return iter(sorted(self.state.schools.values(), key=lambda s: s.urn.value))

    def served_urns(self) -> set[Urn]:
        return set(self.state.schools)

    def measures(self, *, codes: Iterable[str]) -> Iterator[MeasureRecord]:
        wanted = set(codes)
        for records in self.state.measures.values():
            yield from (r for r in records if r.code in wanted)

    def last_version(self) -> DataVersion | None:
        versions = self.state.versions
        return versions[-1] if versions else None

    def record_version(
        self,
        *,
        made_at: dt.datetime,
        datasets: Iterable[str],
        changes: Iterable[SchoolChange],
        retain_since: dt.datetime,
        restart: bool = False,
    ) -> DataVersion:
        state = self.state
        # The sequence number is the generation this transaction commits as (as the SQL
        # store's is its commit counter).
        version = DataVersion(
            sequence=state.generation + 1, made_at=made_at, datasets=tuple(datasets)
        )
        kept = () if restart else tuple(v for v in state.versions if v.made_at >= retain_since)
        held = {v.sequence for v in kept}
        state.versions = (*kept, version)
        state.changes = (
            *(item for item in state.changes if item[0] in held),
            *((version.sequence, change) for change in changes),
        )
        return version
