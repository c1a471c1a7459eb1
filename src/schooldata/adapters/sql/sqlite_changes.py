"""Has anything been committed to an SQLite database since the last look? Asked on every keyed
request, so it must answer in well under a microsecond, without a system call and without
releasing the GIL (on a loaded server each release hands the interpreter to another thread
and costs tens of microseconds to get back).

In WAL mode every commit, by any connection of any process, rewrites the WAL-index header at
the start of the database's `-shm` file (https://www.sqlite.org/walformat.html, "The
WAL-Index Header"): two copies of a 48-byte `WalIndexHdr` whose `iChange` counts
transactions, beside the frame count, salts and checksums. The writer fills the second copy,
then the first; a reader that finds both copies equal has a consistent header. This module
maps the file read-only and uses the header as the version: equal headers, nothing
committed in between.

Whenever the header cannot be trusted (not WAL, no `-shm` file, an unknown header version,
the copies differing mid-write, anything failing) the answer comes from SQLite itself,
`PRAGMA data_version` on a connection of its own (a few microseconds, one lock round trip),
or is None (unknown: callers read fresh). A connection of ours stays open on the database
throughout, so the `-shm` file that is mapped is the one every process uses (SQLite removes
it only when the last connection anywhere closes).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import sqlite3
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Final

from mypy_extensions import mypyc_attr
from sqlalchemy import Engine

from schooldata.adapters.sql.engine import detached_connection

WAL_INDEX_VERSION: Final = 3007000  # WalIndexHdr.iVersion
_HEADER: Final = 48  # one copy of WalIndexHdr
_IS_INIT: Final = 12  # offset of WalIndexHdr.isInit

_forks = 0


def _after_fork_in_child() -> None:
    global _forks
    _forks += 1


os.register_at_fork(after_in_child=_after_fork_in_child)


def fork_generation() -> int:
    """How many forks led to this process: state tied to a process (connections, reserved
    counts) compares it instead of asking the kernel for the pid on every call."""
    return _forks


def wal_header_version(header: bytes) -> bytes | None:
    """The header (both copies, 96 bytes) as a version, or None when it cannot be trusted."""
    if len(header) < 2 * _HEADER:
        return None
    first, second = header[:_HEADER], header[_HEADER : 2 * _HEADER]
    if first != second:  # a commit is writing it this very moment
        return None
    if int.from_bytes(first[:4], sys.byteorder) != WAL_INDEX_VERSION or first[_IS_INIT] != 1:
        return None
    return first


@mypyc_attr(native_class=False)
class SqliteChanges:
    """`version()`: a value that changes whenever anything is committed to the database (by
    any connection other than this object's own, which only reads), or None when that cannot
    be told at once (another thread is asking this very moment, or the database failed):
    callers then read fresh. Versions are only compared for equality."""

    def __init__(
        self,
        engine: Engine,
        connect: Callable[[Engine], sqlite3.Connection] = detached_connection,
    ) -> None:
        self._engine = engine
        self._connect = connect
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._shm: mmap.mmap | None = None
        self._forks = fork_generation()
        self._last: tuple[bytes, object] = (b"-", None)  # (header bytes, their version)

    def version(self) -> object | None:
        shm = self._shm
        if shm is not None and self._forks == _forks:
            try:
                header = shm[: 2 * _HEADER]
            except (ValueError, OSError):
                header = b""
            # A version is a function of the header's bytes alone, so the very bytes read
            # last time are that version again (one 96-byte compare: nothing committed since,
            # the common case). One tuple, so no thread sees one half of another's update.
            last_header, last_version = self._last
            if header == last_header:
                return last_version
            found = wal_header_version(header)
            if found is not None:
                self._last = (header, found)
                return found
        return self._ask_sqlite()

    def _ask_sqlite(self) -> object | None:
        if not self._lock.acquire(blocking=False):
            return None
        try:
            connection = self._connection
            if connection is None or self._forks != _forks:
                # A connection must not cross a fork: a child opens its own (and leaves the
                # inherited one alone; closing it could release the parent's file locks).
                connection = self._connection = self._connect(self._engine)
                connection.execute("PRAGMA busy_timeout=0")
                self._forks = _forks
                self._shm = None
            row = connection.execute("PRAGMA data_version").fetchone()
            if self._shm is None:
                self._shm = _map_shm(connection)
                if self._shm is not None:  # from now on the header is the version
                    return wal_header_version(self._shm[: 2 * _HEADER])
            return int(row[0])
        except sqlite3.Error:
            self._close()
            return None
        finally:
            self._lock.release()

    def _close(self) -> None:
        connection, self._connection, self._shm = self._connection, None, None
        if connection is not None:
            with contextlib.suppress(sqlite3.Error):
                connection.close()


def _map_shm(connection: sqlite3.Connection) -> mmap.mmap | None:
    """The database's `-shm` file mapped read-only, when the database is a WAL file (after a
    statement on `connection`, which keeps the file in use)."""
    mode = connection.execute("PRAGMA journal_mode").fetchone()
    if mode is None or str(mode[0]).lower() != "wal":
        return None
    rows = connection.execute("PRAGMA database_list").fetchall()
    path = next((str(row[2]) for row in rows if row[1] == "main"), "")
    if not path:
        return None  # in memory: no file
    try:
        with Path(path + "-shm").open("rb") as file:
            shm = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    if wal_header_version(shm[: 2 * _HEADER]) is None:
        shm.close()
        return None
    return shm
