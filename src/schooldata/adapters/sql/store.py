"""The SQL store: every driven data port over SQLAlchemy Core, on SQLite or PostgreSQL.

Satisfies SchoolReader, PostcodeDirectory, DatasetRegistry, LinkReader, MeasureReader,
InspectionReader and DataStore structurally (no inheritance). Search prefilters candidates with
indexes (`search_prefilter`) and hands them to `domain.search.evaluate`, which decides
everything, so answers equal the in-memory store's by construction. An import's writes are
`transaction.SqlTransaction`'s.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import attrs
from sqlalchemy import (
    Connection,
    Engine,
    Select,
    func,
    inspect,
    select,
    update,
)

from schooldata.adapters.extras import MissingExtra
from schooldata.adapters.sql import tables as t
from schooldata.adapters.sql import versions
from schooldata.adapters.sql.engine import (
    WRITE_OPTION,
    batched,
    begin_write,
    create_engine_for,
    describe,
    driver_errors,
    unavailable_on_error,
)
from schooldata.adapters.sql.mapping import (
    dataset_from_row,
    inspection_from_row,
    link_from_row,
    measure_from_row,
    release_from_row,
    school_from_row,
    source_from_row,
)
from schooldata.adapters.sql.migrations import upgrade_engine
from schooldata.adapters.sql.search_prefilter import candidate_urns
from schooldata.adapters.sql.transaction import INSERT_BATCH, ROWCOUNT, SqlTransaction
from schooldata.domain.changes import ChangeFilter, ListedChange
from schooldata.domain.dataset import DatasetRecord, SourceCheck
from schooldata.domain.errors import DataUnavailable
from schooldata.domain.geo import Location
from schooldata.domain.links import EstablishmentLink
from schooldata.domain.ofsted import InspectionRecord
from schooldata.domain.postcode import PostcodeQuery
from schooldata.domain.releases import Release
from schooldata.domain.results import MeasureRecord
from schooldata.domain.school import School
from schooldata.domain.search import SchoolQuery, SearchPage, evaluate
from schooldata.domain.text import normalise
from schooldata.domain.urn import Urn
from schooldata.domain.versions import DataVersion

STREAM_BATCH = 1_000
# An unknown backend or driver, or a malformed URL, fails in create_engine.
_SETUP_ERRORS: tuple[type[Exception], ...] = (ValueError, ImportError)

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
        except (*_SETUP_ERRORS, *driver_errors()) as exc:
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
        except driver_errors() as exc:
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
            shared: dict[str, str] = {}
            for row in result.execute(statement).mappings():
                yield school_from_row(row, shared)

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

    def iter_links(self) -> Iterator[EstablishmentLink]:
        k = t.establishment_links.c
        statement = _links_with_facts().order_by(k.urn, k.id)
        with self._reading() as conn:
            rows = conn.execute(statement).mappings().all()
        return iter([link_from_row(r) for r in rows])

    # -- DatasetRegistry
    def current(self) -> list[DatasetRecord]:
        with self._reading() as conn:
            records = [dataset_from_row(r) for r in conn.execute(select(t.datasets)).mappings()]
        return sorted(records, key=lambda r: r.name)

    def sources(self) -> list[SourceCheck]:
        statement = select(t.dataset_sources).order_by(t.dataset_sources.c.dataset)
        with self._reading() as conn:
            return [source_from_row(r) for r in conn.execute(statement).mappings()]

    def data_version(self) -> DataVersion | None:
        with self._reading() as conn:
            return versions.last_version(conn)

    # -- ChangeLog (read from the database, so every instance over it answers alike)
    def current_version(self) -> DataVersion | None:
        return self.data_version()

    def held_version(self, *, sequence: int) -> DataVersion | None:
        with self._reading() as conn:
            return versions.version(conn, sequence)

    def oldest_version(self, *, made_since: dt.datetime) -> DataVersion | None:
        with self._reading() as conn:
            return versions.oldest_version(conn, made_since)

    def changes(
        self, *, after: int, upto: int, wanted: ChangeFilter, offset: int, limit: int
    ) -> tuple[int, list[ListedChange]]:
        with self._reading() as conn:
            return versions.changes(
                conn, after=after, upto=upto, wanted=wanted, offset=offset, limit=limit
            )

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
            return bool(conn.execute(statement, execution_options=ROWCOUNT).rowcount)

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

    def iter_measures(self) -> Iterator[MeasureRecord]:
        m = t.measures.c
        statement = select(t.measures).order_by(m.urn, m.dataset, m.id)
        with self._reading() as conn:
            result = conn.execution_options(stream_results=True, yield_per=STREAM_BATCH)
            for row in result.execute(statement).mappings():
                yield measure_from_row(row)

    def iter_inspections(self) -> Iterator[InspectionRecord]:
        i = t.inspections.c
        statement = select(t.inspections).order_by(i.urn, i.dataset, i.id)
        with self._reading() as conn:
            result = conn.execution_options(stream_results=True, yield_per=STREAM_BATCH)
            for row in result.execute(statement).mappings():
                yield inspection_from_row(row)

    def inspections_for(self, *, urn: Urn) -> list[InspectionRecord]:
        i = t.inspections.c
        statement = select(t.inspections).where(i.urn == urn.value).order_by(i.dataset, i.id)
        with self._reading() as conn:
            return [inspection_from_row(r) for r in conn.execute(statement).mappings()]

    def links_for(self, *, urn: Urn) -> list[EstablishmentLink]:
        k = t.establishment_links.c
        statement = _links_with_facts().where(k.urn == urn.value).order_by(k.id)
        with self._reading() as conn:
            return [link_from_row(r) for r in conn.execute(statement).mappings()]

    def releases(self) -> list[Release]:
        r = t.measure_releases.c
        statement = select(t.measure_releases).order_by(r.dataset, r.period)
        with self._reading() as conn:
            return [release_from_row(row) for row in conn.execute(statement).mappings()]

    # -- DataStore
    @contextmanager
    def transaction(self) -> Iterator[SqlTransaction]:
        """One database transaction; an exception inside rolls back everything and propagates
        (driver errors as DataUnavailable). Commit bumps the data version."""
        with unavailable_on_error(), self._writer.begin() as conn:
            begin_write(conn)
            tx = SqlTransaction(conn)
            yield tx
            if not tx.versioned:
                versions.bump_counter(conn)

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


def _links_with_facts() -> Select[tuple[object, ...]]:
    """Links, each with what the register lists of the establishment it leads to."""
    k, e = t.establishment_links.c, t.establishments.c
    return select(
        t.establishment_links,
        e.name.label("est_name"),
        e.status.label("est_status"),
        e.open_date.label("est_open_date"),
        e.close_date.label("est_close_date"),
    ).outerjoin(t.establishments, e.urn == k.linked_urn)


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
