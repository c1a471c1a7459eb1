"""Engines tuned per backend, the one translation of driver errors, and fast bulk loading.

SQLite serves one machine (many reader processes, one importer); PostgreSQL serves many.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sqlite3
import sys
import threading
import urllib.parse
import weakref
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import ConnectionPoolEntry

from schooldata.adapters.extras import MissingExtra
from schooldata.adapters.sql.connect_breaker import ConnectBreaker
from schooldata.domain.errors import DataUnavailable
from schooldata.ports.keys import WouldBlock

if TYPE_CHECKING:
    import psycopg

SQLITE_BUSY_TIMEOUT_MS = 5_000
POSTGRES_CONNECT_TIMEOUT_S = 5
# Reads answer web requests: a query that runs longer than this is a bug or an overload, and
# failing it (503) beats holding a worker. Imports lift the limit for their own transaction.
POSTGRES_STATEMENT_TIMEOUT_MS = 15_000
IMPORT_STATEMENT_TIMEOUT = "10min"
IMPORT_WORK_MEM = "256MB"
# A server that goes silent mid-query (a partition, not a refused or reset connection) is
# bounded by neither timeout above: the client waits for TCP to give up, two hours by
# default. TCP keepalives probe an idle connection (a query waiting for its answer is idle
# to TCP): a dead server is noticed within ~25 s (10 s idle, then 3 probes 5 s apart); a
# live one's kernel answers the probes however long its query runs. tcp_user_timeout drops a
# connection whose sent data stays unacknowledged (or that a server keeps refusing with a
# zero window) for 60 s: long enough for a busy server's stall during an import. Any of
# these in the database URL wins.
POSTGRES_TCP_DEFAULTS: dict[str, int] = {
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
    "tcp_user_timeout": 60_000,
}

WRITE_OPTION = "schooldata_write"
"""Execution option marking an engine whose transactions write (SQLite: BEGIN IMMEDIATE)."""

BATCH_ROWS = 50_000


def driver_errors() -> tuple[type[Exception], ...]:
    """Raw DBAPI cursors (bulk loads) raise driver errors that SQLAlchemy never sees. psycopg
    (the `postgres` extra) is asked for only once it is loaded, which a PostgreSQL engine
    does: a process serving SQLite never pays its import (~9 MB a worker)."""
    loaded = sys.modules.get("psycopg")
    if loaded is None:
        return _ALWAYS_DRIVER_ERRORS
    return (*_ALWAYS_DRIVER_ERRORS, loaded.Error)


_ALWAYS_DRIVER_ERRORS: tuple[type[Exception], ...] = (SQLAlchemyError, sqlite3.Error)


@contextmanager
def unavailable_on_error() -> Iterator[None]:
    """Any database failure becomes DataUnavailable: callers never see a driver exception."""
    try:
        yield
    except driver_errors() as exc:
        raise DataUnavailable() from exc


_WRITE_LOCKS: dict[int, threading.Lock] = {}
_WRITE_LOCKS_GUARD = threading.Lock()


def _write_lock(engine: Engine) -> threading.Lock:
    with _WRITE_LOCKS_GUARD:
        return _WRITE_LOCKS.setdefault(id(engine), threading.Lock())


def sqlite_fetch(
    engine: Engine,
    sql: str,
    params: Mapping[str, Any],
    *,
    writes: bool = False,
    wait: bool = True,
) -> list[Any]:
    """Run one statement on this thread's own sqlite3 connection to `engine`'s database and
    return all its rows, without SQLAlchemy's per-statement machinery or a pool checkout
    (for the hot paths of keyed requests).

    The connection is configured as the engine's (the same `connect` hook) and in autocommit
    mode, so the statement is its own transaction: a writing statement takes the write lock
    before it reads anything, waiting up to busy_timeout exactly as BEGIN IMMEDIATE does,
    and it has committed once its last row is fetched, before this returns. Driver errors
    become DataUnavailable, and a connection that raised one is closed, not reused.

    `writes`: threads of this process take turns on a Python lock before the statement. SQLite
    lets one writer in at a time and makes the others sleep in its busy handler (1, 2, 5, 10 ms
    ... steps); queued on a lock they start the moment the previous write commits instead.
    Other processes still meet at SQLite's own lock.

    `wait=False` (a write from the event loop): WouldBlock, with nothing written, instead of
    waiting for either lock; the statement runs on a connection with no busy timeout."""
    try:
        connection = _thread_connection(engine, wait=wait)
        try:
            if not writes:
                return connection.execute(sql, params).fetchall()
            lock = _write_lock(engine)
            # Never longer in the queue than SQLite itself would wait: a writer stuck behind
            # an import fails (503) after busy_timeout, as it would without the lock.
            acquired = (
                lock.acquire(timeout=SQLITE_BUSY_TIMEOUT_MS / 1000)
                if wait
                else lock.acquire(blocking=False)
            )
            if not acquired and not wait:
                raise WouldBlock()
            if not acquired:
                raise sqlite3.OperationalError("database is locked")
            try:
                return connection.execute(sql, params).fetchall()
            finally:
                lock.release()
        except sqlite3.OperationalError as error:
            if not wait and _is_busy(error):
                raise WouldBlock() from error  # the statement did nothing; the connection is fine
            _drop_thread_connection(engine, wait=wait)
            raise
        except sqlite3.Error:
            _drop_thread_connection(engine, wait=wait)
            raise
    except driver_errors() as exc:
        raise DataUnavailable() from exc


def _is_busy(error: sqlite3.OperationalError) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    text = str(error).lower()
    return "locked" in text or "busy" in text


_THREAD = threading.local()


def _thread_connections() -> dict[tuple[int, bool], tuple[weakref.ref[Engine], sqlite3.Connection]]:
    connections = getattr(_THREAD, "connections", None)
    if connections is None or _THREAD.pid != os.getpid():
        # New, or inherited through a fork (the forking thread's locals survive it): a
        # connection must not cross a fork, so the child opens its own (leaving the inherited
        # ones alone: closing them could release the parent's file locks).
        connections = _THREAD.connections = {}
        _THREAD.pid = os.getpid()
    return connections


def _thread_connection(engine: Engine, *, wait: bool = True) -> sqlite3.Connection:
    """This thread's connection to `engine`'s database, detached from the pool (a pooled one
    held per thread would exhaust the pool: worker threads outnumber its slots). Checked
    against the engine itself, not only its id: ids are reused once an engine is gone."""
    connections = _thread_connections()
    key = (id(engine), wait)
    held = connections.get(key)
    if held is not None and held[0]() is engine:
        return held[1]
    if held is not None:
        held[1].close()
    connection = detached_connection(engine)
    if not wait:
        connection.execute("PRAGMA busy_timeout=0")
    connections[key] = (weakref.ref(engine), connection)
    return connection


def _drop_thread_connection(engine: Engine, *, wait: bool = True) -> None:
    held = _thread_connections().pop((id(engine), wait), None)
    if held is not None:
        with contextlib.suppress(sqlite3.Error):
            held[1].close()


def detached_connection(engine: Engine) -> sqlite3.Connection:
    """A new sqlite3 connection configured as the engine's, which the pool then forgets."""
    pooled = engine.raw_connection()
    connection: sqlite3.Connection = pooled.driver_connection  # type: ignore[assignment]
    pooled.detach()  # the pool forgets it (and its slot); it stays open, ours to close
    return connection


def create_engine_for(url: str, *, create: bool = True) -> Engine:
    """An engine for `sqlite:///...` or `postgresql+psycopg://...`. Without `create`, an
    SQLite file that does not exist is an error on connecting, never a new empty database
    (a serving process must not create one where the real file will be put back)."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return _sqlite_engine(parsed if create else existing_file_only(parsed))
    if backend == "postgresql":
        if "+" not in parsed.drivername:
            # psycopg 3 is the one PostgreSQL driver here: a plain `postgresql://` means it.
            parsed = parsed.set(drivername="postgresql+psycopg")
        return _postgres_engine(parsed)
    raise ValueError(f"unsupported database backend {backend!r} (use sqlite or postgresql)")


def describe(url: str) -> str:
    """The URL with any password masked, for messages and logs."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "<unparseable database URL>"


def existing_file_only(url: URL) -> URL:
    """The same SQLite database as a URI filename opened `mode=rw`: never created. (Left as
    it is: an in-memory database, or a URL that is a URI filename already.)"""
    database = url.database
    if not database or database == ":memory:" or url.query.get("uri") == "true":
        return url
    return url.set(database="file:" + urllib.parse.quote(database)).update_query_dict(
        {"mode": "rw", "uri": "true"}
    )


def _sqlite_engine(url: URL) -> Engine:
    # No pool_pre_ping: a local file cannot drop a connection, and the ping would cost a
    # statement on every checkout (every keyed request checks out at least once).
    engine = create_engine(url)

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
        # sqlite3's legacy transaction control skips BEGIN before SELECT and DDL, which breaks
        # snapshot reads and transactional migrations; SQLAlchemy emits BEGIN itself instead.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        # WAL: readers never block the importer and always see the last committed state.
        cursor.execute("PRAGMA journal_mode=WAL")
        # NORMAL is durable against corruption in WAL mode and makes large commits cheap.
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        # Off by default in SQLite; the tables of later migrations (keys) rely on it.
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        # A writer takes the write lock up front: upgrading a read lock later can fail with
        # SQLITE_BUSY at once, without waiting for busy_timeout.
        write = conn.get_execution_options().get(WRITE_OPTION, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


def postgres_connect_args(url: URL) -> dict[str, Any]:
    """libpq parameters the service adds to a PostgreSQL URL: the read statement timeout
    (appended to any `options` the URL sets), and the connect timeout and TCP settings
    above wherever the URL does not set its own."""
    # libpq takes one `options` string: keep any the URL sets (tests set search_path there).
    given = url.query.get("options", ())
    options = [given] if isinstance(given, str) else list(given)
    options.append(f"-c statement_timeout={POSTGRES_STATEMENT_TIMEOUT_MS}")
    connect_args: dict[str, Any] = {"options": " ".join(options)}
    defaults = {"connect_timeout": POSTGRES_CONNECT_TIMEOUT_S, **POSTGRES_TCP_DEFAULTS}
    connect_args.update({name: value for name, value in defaults.items() if name not in url.query})
    return connect_args


def _postgres_engine(url: URL) -> Engine:
    try:
        import psycopg
    except ModuleNotFoundError:
        raise MissingExtra("PostgreSQL", "postgres") from None
    connect_args = postgres_connect_args(url)
    engine = create_engine(
        url.difference_update_query(["options"]),
        pool_pre_ping=True,
        connect_args=connect_args,
    )
    breaker = ConnectBreaker()

    @event.listens_for(engine, "do_connect")
    def _connect_through_breaker(
        dialect: Any, _record: ConnectionPoolEntry, cargs: Any, cparams: Any
    ) -> Any:
        # Every new connection (pool growth, pre-ping reconnects) passes the breaker.
        if not breaker.admit():
            raise psycopg.OperationalError(
                "PostgreSQL could not be reached moments ago; the next attempt is due shortly"
            )
        try:
            connection = dialect.connect(*cargs, **cparams)
        except Exception:
            breaker.failed()
            raise
        breaker.succeeded()
        return connection

    return engine


def begin_write(conn: Connection) -> None:
    """Per-transaction settings for imports and migrations (call right after BEGIN)."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(f"SET LOCAL statement_timeout = '{IMPORT_STATEMENT_TIMEOUT}'")
        # Imports sort and de-duplicate millions of rows: in memory, not in temp files.
        conn.exec_driver_sql(f"SET LOCAL work_mem = '{IMPORT_WORK_MEM}'")


def bulk_insert(
    conn: Connection, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]
) -> int:
    """Insert many plain rows (str, int, float, None) fast; returns how many.

    PostgreSQL: COPY. SQLite: executemany in large batches, bypassing per-row SQL compilation.
    """
    quote = conn.dialect.identifier_preparer.quote
    target = f"{quote(table)} ({', '.join(quote(c) for c in columns)})"
    if conn.dialect.name == "postgresql":
        return _copy_rows(conn, target, rows)
    sql = f"INSERT INTO {target} VALUES ({', '.join('?' for _ in columns)})"
    count = 0
    for batch in batched(rows, BATCH_ROWS):
        conn.exec_driver_sql(sql, batch)
        count += len(batch)
    return count


T = TypeVar("T")


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Consecutive lists of at most `size` items (itertools.batched arrives in Python 3.12)."""
    iterator = iter(items)
    while batch := list(itertools.islice(iterator, size)):
        yield batch


def _copy_rows(conn: Connection, target: str, rows: Iterable[Sequence[Any]]) -> int:
    dbapi_connection: psycopg.Connection[Any] = conn.connection.dbapi_connection  # type: ignore[assignment]
    count = 0
    with dbapi_connection.cursor() as cursor, cursor.copy(f"COPY {target} FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
            count += 1
    return count
