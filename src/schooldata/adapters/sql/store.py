"""The SQL store: every driven data port over SQLAlchemy Core, on SQLite or PostgreSQL.

Satisfies SchoolReader, PostcodeDirectory, DatasetRegistry, LinkReader, MeasureReader,
InspectionReader and DataStore structurally (no inheritance). Search prefilters candidates with
indexes and hands them to `domain.search.evaluate`, which decides everything, so answers equal
the in-memory store's by construction.
"""

from __future__ import annotations

import itertools
import sqlite3
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs
from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    Select,
    Table,
    bindparam,
    delete,
    exists,
    func,
    insert,
    inspect,
    literal,
    or_,
    select,
    update,
)

from schooldata.adapters.extras import MissingExtra
from schooldata.adapters.sql import tables as t
from schooldata.adapters.sql.engine import (
    DRIVER_ERRORS,
    WRITE_OPTION,
    batched,
    begin_write,
    bulk_insert,
    create_engine_for,
    describe,
    unavailable_on_error,
)
from schooldata.adapters.sql.mapping import (
    MEASURE_COLUMNS,
    dataset_from_row,
    dataset_row,
    inspection_from_row,
    inspection_row,
    link_from_row,
    link_row,
    measure_from_row,
    measure_values,
    school_from_row,
    school_row,
    school_tokens,
    source_from_row,
    source_row,
)
from schooldata.adapters.sql.migrations import upgrade_engine
from schooldata.domain.dataset import DatasetRecord, SourceCheck
from schooldata.domain.errors import DataUnavailable
from schooldata.domain.geo import BoundingBox, Location, bounding_box
from schooldata.domain.links import EstablishmentLink
from schooldata.domain.ofsted import HistoricGrade, InspectionRecord
from schooldata.domain.postcode import PostcodeQuery, outward_of
from schooldata.domain.results import MeasureRecord
from schooldata.domain.school import School, is_servable_status
from schooldata.domain.scoring import Score
from schooldata.domain.search import SchoolQuery, SearchPage, evaluate
from schooldata.domain.text import normalise
from schooldata.domain.urn import Urn

STREAM_BATCH = 1_000
INSERT_BATCH = 5_000
# psycopg reports the rowcount of INSERT ... SELECT only if SQLAlchemy is asked to keep it.
_ROWCOUNT = {"preserve_rowcount": True}
# An unknown backend or driver, or a malformed URL, fails in create_engine.
_SETUP_ERRORS: tuple[type[Exception], ...] = (ValueError, ImportError, *DRIVER_ERRORS)

Version = tuple[int, str]


@attrs.define
class _Loaded:
    """Schools as loaded at one data version, reused by searches until the version moves.

    A search near a postcode without a radius has every located school as a candidate;
    building ~25,000 School objects per request would cost far more than evaluating them.
    """

    version: Version
    schools: dict[int, School] = attrs.field(factory=dict)


class SqlStore:
    """Reads see the last committed state; `transaction()` writes all-or-nothing."""

    def __init__(self, url: str, *, create: bool = True) -> None:
        """Opens nothing: the engine connects on first use. Without `create`, a missing
        SQLite file stays missing (every use fails with DataUnavailable until it is back)."""
        try:
            self._engine: Engine = create_engine_for(url, create=create)
        except MissingExtra as exc:
            raise DataUnavailable(f"Cannot use the database at {describe(url)}: {exc}") from exc
        except _SETUP_ERRORS as exc:
            raise DataUnavailable(f"Cannot use the database at {describe(url)}.") from exc
        self._writer = self._engine.execution_options(**{WRITE_OPTION: True})
        # Every read is one snapshot: READ COMMITTED would let a search see the version of
        # one commit and the rows of the next. (SQLite's BEGIN already gives a snapshot.)
        self._reader = (
            self._engine.execution_options(isolation_level="REPEATABLE READ")
            if self._engine.dialect.name == "postgresql"
            else self._engine
        )
        self._loaded = _Loaded(version=(-1, ""))

    def require_schema(self) -> None:
        """Raise DataUnavailable, naming the database, unless it can be reached and already
        holds the schooldata schema (at any version: `upgrade` brings it forward). For the
        commands that only read, which must never create a database where none was."""
        url = self._engine.url
        where = url.render_as_string(hide_password=True)
        path = url.database if url.get_backend_name() == "sqlite" else None
        try:
            if path and path != ":memory:":
                found = _sqlite_file_has_table(path, where, t.data_version.name)
            else:
                with self._engine.connect() as conn:
                    found = inspect(conn).has_table(t.data_version.name)
        except DRIVER_ERRORS as exc:
            reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
            raise DataUnavailable(f"Cannot open the database {where}: {reason}") from exc
        if not found:
            raise DataUnavailable(
                f"The database {where} holds no schooldata data: create it with "
                "'schooldata db upgrade' or an import, or check --db."
            )

    def upgrade(self) -> None:
        """Bring the schema to the newest migration."""
        with unavailable_on_error():
            upgrade_engine(self._engine)

    def ping(self) -> None:
        """Raise DataUnavailable unless the database answers and has been migrated."""
        with self._reading() as conn:
            conn.execute(select(t.data_version.c.counter)).one()

    def close(self) -> None:
        self._engine.dispose()

    @property
    def engine(self) -> Engine:
        """For sibling SQL adapters (keys, usage) that share this database and its pool."""
        return self._engine

    # -- SchoolReader
    def get(self, *, urn: Urn) -> School | None:
        with self._reading() as conn:
            row = conn.execute(select(t.schools).where(t.schools.c.urn == urn.value)).first()
        return None if row is None else school_from_row(row._mapping)

    def search(self, *, query: SchoolQuery) -> SearchPage:
        statement = candidate_urns(query)
        if statement is None:
            return evaluate(query, ())
        with self._reading() as conn:
            loaded = self._loaded_at(_read_version(conn))
            urns = conn.execute(statement).scalars().all()
            _load_missing(conn, loaded, urns)
        return evaluate(query, [loaded.schools[urn] for urn in urns])

    def _loaded_at(self, version: Version) -> _Loaded:
        # Replaced, never cleared in place: a search running on the old snapshot keeps the
        # object it holds, so no request ever mixes two versions.
        if self._loaded.version != version:
            self._loaded = _Loaded(version=version)
        return self._loaded

    def iter_all(self) -> Iterator[School]:
        statement = select(t.schools).order_by(t.schools.c.urn)
        with self._reading() as conn:
            # A server-side cursor on PostgreSQL; SQLite steps its cursor lazily anyway.
            result = conn.execution_options(stream_results=True, yield_per=STREAM_BATCH)
            for row in result.execute(statement).mappings():
                yield school_from_row(row)

    def local_authorities(self) -> list[tuple[str | None, str, int]]:
        s = t.schools.c
        statement = (
            select(s.la_code, s.la_name, func.count())
            .where(s.la_name.is_not(None), s.la_name != "")
            .group_by(s.la_code, s.la_name)
        )
        with self._reading() as conn:
            rows = [(code, name, count) for code, name, count in conn.execute(statement)]
        # Sorted in Python: the server's collation must not decide the order.
        return sorted(rows, key=lambda r: (normalise(r[1]), r[0] or ""))

    def version(self) -> str:
        with self._reading() as conn:
            counter, stamp = _read_version(conn)
        return f"sql-{counter}-{stamp}"

    # -- PostcodeDirectory
    def locate(self, *, postcode: PostcodeQuery) -> Location | None:
        if postcode.is_outward_only:
            o = t.outward_codes.c
            statement = select(o.latitude, o.longitude).where(o.outward == postcode.compact)
        else:
            p = t.postcodes.c
            statement = (
                select(p.latitude, p.longitude)
                .where(p.compact == postcode.compact)
                .order_by(p.source.desc())  # the last source wins, as in every store
                .limit(1)
            )
        with self._reading() as conn:
            row = conn.execute(statement).first()
        return None if row is None else Location(row.latitude, row.longitude)

    def iter_postcodes(self) -> Iterator[tuple[str, float, float]]:
        p = t.postcodes.c
        statement = select(p.compact, p.latitude, p.longitude).order_by(p.compact, p.source)
        with self._reading() as conn:
            result = conn.execution_options(stream_results=True, yield_per=STREAM_BATCH)
            for row in result.execute(statement):
                yield row[0], row[1], row[2]

    def iter_outward_codes(self) -> Iterator[tuple[str, float, float]]:
        o = t.outward_codes.c
        with self._reading() as conn:
            rows = conn.execute(select(o.outward, o.latitude, o.longitude)).all()
        return iter([(code, lat, lon) for code, lat, lon in rows])

    # -- DatasetRegistry
    def current(self) -> list[DatasetRecord]:
        with self._reading() as conn:
            records = [dataset_from_row(r) for r in conn.execute(select(t.datasets)).mappings()]
        return sorted(records, key=lambda r: r.name)

    def sources(self) -> list[SourceCheck]:
        statement = select(t.dataset_sources).order_by(t.dataset_sources.c.dataset)
        with self._reading() as conn:
            return [source_from_row(r) for r in conn.execute(statement).mappings()]

    # -- SourceLog
    def record_check(self, *, check: SourceCheck) -> bool:
        """One small write of its own, outside `transaction()`: the data version stays."""
        c = t.dataset_sources.c
        statement = (
            update(t.dataset_sources)
            .where(c.dataset == check.dataset, c.sha256 == check.sha256)
            .values(
                source_url=check.source_url,
                checked_at=check.checked_at,
                etag=check.etag,
                last_modified=check.last_modified,
            )
        )
        with unavailable_on_error(), self._writer.begin() as conn:
            return bool(conn.execute(statement, execution_options=_ROWCOUNT).rowcount)

    # -- reads for the results use cases
    def measures_for(self, *, urn: Urn) -> list[MeasureRecord]:
        m = t.measures.c
        statement = select(t.measures).where(m.urn == urn.value).order_by(m.dataset, m.id)
        with self._reading() as conn:
            return [measure_from_row(r) for r in conn.execute(statement).mappings()]

    def measures_with_code(self, *, code: str) -> list[MeasureRecord]:
        m = t.measures.c
        statement = select(t.measures).where(m.code == code).order_by(m.dataset, m.id)
        with self._reading() as conn:
            return [measure_from_row(r) for r in conn.execute(statement).mappings()]

    def inspections_for(self, *, urn: Urn) -> list[InspectionRecord]:
        i = t.inspections.c
        statement = select(t.inspections).where(i.urn == urn.value).order_by(i.dataset, i.id)
        with self._reading() as conn:
            return [inspection_from_row(r) for r in conn.execute(statement).mappings()]

    def links_for(self, *, urn: Urn) -> list[EstablishmentLink]:
        k = t.establishment_links.c
        statement = select(t.establishment_links).where(k.urn == urn.value).order_by(k.id)
        with self._reading() as conn:
            return [link_from_row(r) for r in conn.execute(statement).mappings()]

    # -- DataStore
    @contextmanager
    def transaction(self) -> Iterator[SqlTransaction]:
        """One database transaction; an exception inside rolls back everything and propagates
        (driver errors as DataUnavailable). Commit bumps the data version."""
        with unavailable_on_error(), self._writer.begin() as conn:
            begin_write(conn)
            yield SqlTransaction(conn)
            _bump_version(conn)

    @contextmanager
    def _reading(self) -> Iterator[Connection]:
        with unavailable_on_error(), self._reader.connect() as conn:
            yield conn


def _read_version(conn: Connection) -> Version:
    v = t.data_version.c
    counter, stamp = conn.execute(select(v.counter, v.stamp)).one()
    return int(counter), str(stamp)


def _load_missing(conn: Connection, loaded: _Loaded, urns: Iterable[int]) -> None:
    missing = [urn for urn in urns if urn not in loaded.schools]
    for batch in batched(missing, INSERT_BATCH):
        rows = conn.execute(select(t.schools).where(t.schools.c.urn.in_(batch))).mappings()
        loaded.schools.update((row["urn"], school_from_row(row)) for row in rows)


def _bump_version(conn: Connection) -> None:
    v = t.data_version.c
    conn.execute(
        update(t.data_version)
        .where(v.id == 1)
        .values(counter=v.counter + 1, stamp=uuid.uuid4().hex[:12])
    )


class SqlTransaction:
    """Writes on one connection inside one database transaction; readers see none of it
    until the store commits."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

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
            stored = self._conn.execute(insert_latest, execution_options=_ROWCOUNT).rowcount
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
        s = t.schools.c
        statement = (
            update(t.schools)
            .where(s.urn == bindparam("b_urn"))
            .values(svc_score=bindparam("b_score"), score_suppressed_reason=bindparam("b_reason"))
        )
        rows = (
            {"b_urn": urn.value, "b_score": score.value, "b_reason": score.reason}
            for urn, score in scores.items()
        )
        with unavailable_on_error():
            for batch in batched(rows, INSERT_BATCH):
                self._conn.execute(statement, batch)

    def set_historic_grades(self, *, grades: dict[Urn, HistoricGrade | None]) -> None:
        s = t.schools.c
        statement = (
            update(t.schools)
            .where(s.urn == bindparam("b_urn"))
            .values(ofsted_grade=bindparam("b_grade"), ofsted_date=bindparam("b_date"))
        )
        rows = (
            {
                "b_urn": urn.value,
                "b_grade": None if grade is None else grade.grade,
                "b_date": None if grade is None else grade.inspection_date,
            }
            for urn, grade in grades.items()
        )
        with unavailable_on_error():
            for batch in batched(rows, INSERT_BATCH):
                self._conn.execute(statement, batch)

    def inspections(self, *, datasets: Iterable[str]) -> Iterator[InspectionRecord]:
        i = t.inspections.c
        with unavailable_on_error():
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
            self._conn.execute(delete(t.inspections).where(t.inspections.c.dataset == name))
            gone = self._conn.execute(
                delete(t.postcodes).where(t.postcodes.c.source == name),
                execution_options=_ROWCOUNT,
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


# ---------------------------------------------------------------------------- search prefilter


def candidate_urns(query: SchoolQuery) -> Select[int] | None:
    """A SELECT of the URNs of a superset of the schools that can match `query`; None when
    none can.

    Only conditions that are exact restatements of domain.search rules go here, on keys the
    mapping computed with the domain's own functions; evaluate() still applies every rule.
    """
    s = t.schools.c
    conditions: list[ColumnElement[bool]] = []
    if query.text is not None:
        if not query.text.tokens:
            return None
        conditions.append(s.urn.in_(_urns_matching_every(query.text.tokens)))
    if query.near is not None:
        # Without a radius every located school is a candidate: `total` counts all matches.
        conditions += [s.latitude.is_not(None), s.longitude.is_not(None)]
        if query.near.radius_miles is not None:
            conditions += _within(bounding_box(query.near.origin, query.near.radius_miles))
    if query.phases:
        conditions.append(s.phase.in_(sorted(p.value for p in query.phases)))
    if query.local_authority is not None:
        wanted = query.local_authority
        conditions.append(or_(s.la_name_key == wanted, s.la_code_key == wanted))
    if query.ofsted_rating is not None:
        conditions.append(s.ofsted_grade == query.ofsted_rating)
    if query.min_score is not None:
        conditions.append(s.svc_score >= query.min_score)
    return select(s.urn).where(*conditions)


def _urns_matching_every(tokens: Iterable[str]) -> Any:
    """URNs with, for each query token, some school token it prefixes (an index range scan)."""
    k = t.school_tokens.c
    per_token = [
        select(k.urn).where(k.token >= token, k.token < token + t.PREFIX_END)
        for token in dict.fromkeys(tokens)
    ]
    return per_token[0] if len(per_token) == 1 else per_token[0].intersect(*per_token[1:])


def _within(box: BoundingBox) -> list[ColumnElement[bool]]:
    s = t.schools.c
    conditions: list[ColumnElement[bool]] = [s.latitude.between(box.min_latitude, box.max_latitude)]
    # A box reaching past the antimeridian would wrap; then only latitude is bounded.
    if box.min_longitude >= -180.0 and box.max_longitude <= 180.0:
        conditions.append(s.longitude.between(box.min_longitude, box.max_longitude))
    return conditions


def _sqlite_file_has_table(path: str, where: str, table: str) -> bool:
    """Looked at read-only: an engine would create a missing file, and its first connection
    turns any file it opens into a WAL database."""
    if not Path(path).is_file():
        raise DataUnavailable(
            f"There is no database at {path} ({where}): create it with "
            "'schooldata db upgrade' or an import, or check --db."
        )
    conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    try:
        query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
        return conn.execute(query, (table,)).fetchone() is not None
    finally:
        conn.close()
