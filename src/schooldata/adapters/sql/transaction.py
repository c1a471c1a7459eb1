"""An import's writes, apart from the store's reads: `SqlTransaction` works on the one
connection `SqlStore.transaction()` opens, and loads rows through the engine's bulk loader
(COPY, or executemany of plain tuples) rather than per-row Core inserts.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterable, Iterator
from typing import Any

from sqlalchemy import (
    Connection,
    Table,
    bindparam,
    delete,
    exists,
    func,
    insert,
    literal,
    select,
    update,
)

from schooldata.adapters.sql import tables as t
from schooldata.adapters.sql import versions
from schooldata.adapters.sql.engine import (
    batched,
    bulk_insert,
    unavailable_on_error,
)
from schooldata.adapters.sql.mapping import (
    MEASURE_COLUMNS,
    dataset_from_row,
    dataset_row,
    establishment_row,
    inspection_from_row,
    inspection_row,
    link_from_row,
    link_row,
    measure_from_row,
    measure_values,
    release_from_row,
    release_row,
    school_from_row,
    school_row,
    school_tokens,
    source_row,
)
from schooldata.domain.changes import SchoolChange
from schooldata.domain.dataset import DatasetRecord, SourceCheck
from schooldata.domain.geo import Location
from schooldata.domain.links import Establishment, EstablishmentLink
from schooldata.domain.ofsted import HistoricGrade, InspectionRecord
from schooldata.domain.postcode import outward_of
from schooldata.domain.releases import Release
from schooldata.domain.results import MeasureRecord
from schooldata.domain.school import School, is_servable_status
from schooldata.domain.scoring import Score
from schooldata.domain.urn import Urn
from schooldata.domain.versions import DataVersion

INSERT_BATCH = 5_000
# psycopg reports the rowcount of INSERT ... SELECT only if SQLAlchemy is asked to keep it.
ROWCOUNT = {"preserve_rowcount": True}


class SqlTransaction:
    """Writes on one connection inside one database transaction; readers see none of it
    until the store commits."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self.versioned = False  # record_version moved the data version counter already

    def replace_schools(self, *, schools: Iterable[School]) -> int:
        kept = {s.urn: s for s in schools if is_servable_status(s.status)}
        ordered = sorted(kept.values(), key=lambda s: s.urn.value)
        with unavailable_on_error():
            self._conn.execute(delete(t.school_tokens))
            self._conn.execute(delete(t.schools))
            _insert_many(self._conn, t.schools, (school_row(s) for s in ordered))
            tokens = (row for s in ordered for row in school_tokens(s))
            bulk_insert(self._conn, t.school_tokens.name, ("token", "urn"), tokens)
        return len(kept)

    def replace_postcodes(self, *, postcodes: Iterable[tuple[str, Location]], source: str) -> int:
        load = t.postcode_load
        rows = (
            (seq, compact, outward_of(compact), location.latitude, location.longitude)
            for seq, (compact, location) in enumerate(postcodes)
        )
        with unavailable_on_error():
            load.create(self._conn)
            bulk_insert(self._conn, load.name, [c.name for c in load.columns], rows)
            self._conn.execute(delete(t.postcodes).where(t.postcodes.c.source == source))
            insert_latest = _insert_last_of_each_postcode(source)
            stored = self._conn.execute(insert_latest, execution_options=ROWCOUNT).rowcount
            load.drop(self._conn)
            self._recompute_outward_codes()
        return stored

    def _recompute_outward_codes(self) -> None:
        p, newer = t.postcodes.c, t.postcodes.alias("newer").c
        rows = select(p.outward, p.latitude, p.longitude)
        sources = self._conn.execute(select(p.source).distinct().limit(2)).all()
        if len(sources) > 1:
            # A postcode held by several sources counts once, from the source that wins.
            # (Skipped with one source: the anti-join costs seconds on 1.75M rows.)
            rows = rows.where(~exists().where(newer.compact == p.compact, newer.source > p.source))
        live = rows.subquery()
        centroids = select(
            live.c.outward, func.avg(live.c.latitude), func.avg(live.c.longitude), func.count()
        ).group_by(live.c.outward)
        self._conn.execute(delete(t.outward_codes))
        self._conn.execute(
            insert(t.outward_codes).from_select(
                ["outward", "latitude", "longitude", "postcode_count"], centroids
            )
        )

    def replace_links(self, *, links: Iterable[EstablishmentLink]) -> int:
        with unavailable_on_error():
            self._conn.execute(delete(t.establishment_links))
            return _insert_many(self._conn, t.establishment_links, (link_row(k) for k in links))

    def links(self) -> Iterator[EstablishmentLink]:
        k = t.establishment_links.c
        statement = select(t.establishment_links).order_by(k.urn, k.id)
        with unavailable_on_error():
            rows = self._conn.execute(statement).mappings().all()
        return (link_from_row(row) for row in rows)

    def replace_establishments(self, *, establishments: Iterable[Establishment]) -> int:
        rows = (establishment_row(e) for e in {e.urn: e for e in establishments}.values())
        with unavailable_on_error():
            self._conn.execute(delete(t.establishments))
            return _insert_many(self._conn, t.establishments, rows)

    def replace_measures(self, *, dataset: str, records: Iterable[MeasureRecord]) -> int:
        m = t.measures.c
        periods: set[str] = set()

        def rows() -> Iterator[tuple[Any, ...]]:
            for record in records:
                periods.add(record.period)
                yield measure_values(dataset, record)

        with unavailable_on_error():
            # The new rows go in first (streamed: the periods are known only once they are
            # read), then the older rows of those periods go; ids only grow, so `id <= before`
            # is exactly what was there.
            before = self._conn.execute(select(func.max(m.id))).scalar() or 0
            stored = bulk_insert(self._conn, t.measures.name, MEASURE_COLUMNS, rows())
            for batch in batched(sorted(periods), INSERT_BATCH):
                self._conn.execute(
                    delete(t.measures).where(
                        m.dataset == dataset, m.period.in_(batch), m.id <= before
                    )
                )
            return stored

    def dataset_measures(self, *, dataset: str) -> Iterator[MeasureRecord]:
        m = t.measures.c
        statement = select(t.measures).where(m.dataset == dataset).order_by(m.id)
        with unavailable_on_error():
            for row in self._conn.execute(statement).mappings():
                yield measure_from_row(row)

    def set_releases(self, *, dataset: str, releases: Iterable[Release]) -> None:
        rows = [release_row(dataset, r) for r in releases]
        r = t.measure_releases.c
        with unavailable_on_error():
            for batch in batched([row["period"] for row in rows], INSERT_BATCH):
                self._conn.execute(
                    delete(t.measure_releases).where(r.dataset == dataset, r.period.in_(batch))
                )
            if rows:
                self._conn.execute(insert(t.measure_releases), rows)

    def releases(self) -> list[Release]:
        r = t.measure_releases.c
        with unavailable_on_error():
            rows = self._conn.execute(
                select(t.measure_releases).order_by(r.dataset, r.period)
            ).mappings()
            return [release_from_row(row) for row in rows]

    def measure_periods(self, *, dataset: str) -> dict[str, int]:
        m = t.measures.c
        statement = select(m.period, func.count()).where(m.dataset == dataset).group_by(m.period)
        with unavailable_on_error():
            return dict(sorted((p, int(n)) for p, n in self._conn.execute(statement)))

    def replace_inspections(self, *, dataset: str, records: Iterable[InspectionRecord]) -> int:
        rows = (inspection_row(dataset, r) for r in records)
        with unavailable_on_error():
            self._conn.execute(delete(t.inspections).where(t.inspections.c.dataset == dataset))
            return _insert_many(self._conn, t.inspections, rows)

    def set_scores(self, *, scores: dict[Urn, Score]) -> None:
        self._update_schools(
            (urn, {"svc_score": score.value, "score_suppressed_reason": score.reason})
            for urn, score in scores.items()
        )

    def set_historic_grades(self, *, grades: dict[Urn, HistoricGrade | None]) -> None:
        self._update_schools(
            (
                urn,
                {
                    "ofsted_grade": None if grade is None else grade.grade,
                    "ofsted_date": None if grade is None else grade.inspection_date,
                },
            )
            for urn, grade in grades.items()
        )

    def _update_schools(self, changes: Iterable[tuple[Urn, dict[str, object]]]) -> None:
        """Set columns of stored schools by URN, streamed in batches through one statement
        (every change names the same columns)."""
        changes = iter(changes)
        first = next(changes, None)
        if first is None:
            return
        statement = (
            update(t.schools)
            .where(t.schools.c.urn == bindparam("b_urn"))
            .values({name: bindparam(f"b_{name}") for name in first[1]})
        )
        rows = (
            {"b_urn": urn.value, **{f"b_{name}": value for name, value in values.items()}}
            for urn, values in itertools.chain([first], changes)
        )
        with unavailable_on_error():
            for batch in batched(rows, INSERT_BATCH):
                self._conn.execute(statement, batch)

    def inspections(self, *, datasets: Iterable[str] | None) -> Iterator[InspectionRecord]:
        i = t.inspections.c
        with unavailable_on_error():
            if datasets is None:
                statement = select(t.inspections).order_by(i.dataset, i.id)
                for row in self._conn.execute(statement).mappings().all():
                    yield inspection_from_row(row)
                return
            # Dataset by dataset, in the order asked, each as imported.
            for dataset in datasets:
                statement = select(t.inspections).where(i.dataset == dataset).order_by(i.id)
                for row in self._conn.execute(statement).mappings().all():
                    yield inspection_from_row(row)

    def record_dataset(self, *, record: DatasetRecord) -> None:
        with unavailable_on_error():
            self._conn.execute(delete(t.datasets).where(t.datasets.c.name == record.name))
            self._conn.execute(insert(t.datasets), dataset_row(record))

    def datasets(self) -> list[DatasetRecord]:
        with unavailable_on_error():
            rows = self._conn.execute(select(t.datasets)).mappings().all()
        return sorted((dataset_from_row(r) for r in rows), key=lambda r: r.name)

    def set_source(self, *, dataset: str, check: SourceCheck | None) -> None:
        sources = t.dataset_sources
        with unavailable_on_error():
            self._conn.execute(delete(sources).where(sources.c.dataset == dataset))
            if check is not None:
                self._conn.execute(insert(sources), source_row(check))

    def remove_dataset(self, *, name: str) -> None:
        with unavailable_on_error():
            self._conn.execute(delete(t.measures).where(t.measures.c.dataset == name))
            releases = t.measure_releases
            self._conn.execute(delete(releases).where(releases.c.dataset == name))
            self._conn.execute(delete(t.inspections).where(t.inspections.c.dataset == name))
            gone = self._conn.execute(
                delete(t.postcodes).where(t.postcodes.c.source == name),
                execution_options=ROWCOUNT,
            ).rowcount
            if gone:
                self._recompute_outward_codes()
            self._conn.execute(delete(t.datasets).where(t.datasets.c.name == name))
            sources = t.dataset_sources
            self._conn.execute(delete(sources).where(sources.c.dataset == name))

    def served_schools(self) -> Iterator[School]:
        statement = select(t.schools).order_by(t.schools.c.urn)
        with unavailable_on_error():
            # Fetched whole: the caller may write (set_scores) before it finishes iterating.
            rows = self._conn.execute(statement).mappings().all()
        return (school_from_row(row) for row in rows)

    def served_urns(self) -> set[Urn]:
        with unavailable_on_error():
            return {Urn(urn) for urn in self._conn.execute(select(t.schools.c.urn)).scalars()}

    def measures(self, *, codes: Iterable[str]) -> Iterator[MeasureRecord]:
        m = t.measures.c
        statement = (
            select(t.measures).where(m.code.in_(sorted(set(codes)))).order_by(m.dataset, m.id)
        )
        with unavailable_on_error():
            for row in self._conn.execute(statement).mappings():
                yield measure_from_row(row)

    def last_version(self) -> DataVersion | None:
        with unavailable_on_error():
            return versions.last_version(self._conn)

    def record_version(
        self,
        *,
        made_at: dt.datetime,
        datasets: Iterable[str],
        changes: Iterable[SchoolChange],
        retain_since: dt.datetime,
        restart: bool = False,
    ) -> DataVersion:
        with unavailable_on_error():
            made = versions.record_version(
                self._conn,
                made_at=made_at,
                datasets=datasets,
                changes=changes,
                retain_since=retain_since,
                restart=restart,
            )
        self.versioned = True
        return made


def _insert_many(conn: Connection, table: Table, rows: Iterable[dict[str, Any]]) -> int:
    """Insert mapped rows (all with the first row's keys) through `bulk_insert` (COPY or
    executemany of plain tuples), each value converted by its column type's own bind
    processor for this backend (dates become SQLite's date text, booleans its integers), as a
    Core insert would: the same stored values without SQLAlchemy's per-row parameter work,
    which cost a tenth of a national GIAS import."""
    iterator = iter(rows)
    first = next(iterator, None)
    if first is None:
        return 0
    names = tuple(first)
    dialect = conn.dialect
    converters = [
        table.c[name].type.dialect_impl(dialect).bind_processor(dialect) for name in names
    ]
    if all(convert is None for convert in converters):
        plain = (tuple(row[name] for name in names) for row in itertools.chain([first], iterator))
        return bulk_insert(conn, table.name, names, plain)
    pairs = tuple(zip(names, converters, strict=True))
    converted = (
        tuple(
            value if convert is None or value is None else convert(value)
            for name, convert in pairs
            for value in (row[name],)
        )
        for row in itertools.chain([first], iterator)
    )
    return bulk_insert(conn, table.name, names, converted)


def _insert_last_of_each_postcode(source: str) -> Any:
    load = t.postcode_load.c
    ranked = select(
        load.compact,
        load.outward,
        load.latitude,
        load.longitude,
        func.row_number()
        .over(partition_by=load.compact, order_by=load.seq.desc())
        .label("occurrence"),
    ).subquery()
    latest = select(
        ranked.c.compact, literal(source), ranked.c.outward, ranked.c.latitude, ranked.c.longitude
    ).where(ranked.c.occurrence == 1)
    return insert(t.postcodes).from_select(
        ["compact", "source", "outward", "latitude", "longitude"], latest
    )
