"""`SqliteChanges`: the version read from the WAL-index header must move on every commit by
anyone else, and stay put otherwise; when the header cannot be trusted, SQLite is asked."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from schooldata.adapters.sql.engine import create_engine_for
from schooldata.adapters.sql.sqlite_changes import (
    WAL_INDEX_VERSION,
    SqliteChanges,
    wal_header_version,
)

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def path(tmp_path: Path) -> Path:
    path = tmp_path / "changes.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("CREATE TABLE t (x INTEGER)")
    return path


def other_connection(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None, check_same_thread=False)


def test_every_commit_by_another_connection_moves_the_version_and_nothing_else_does(
    path: Path,
) -> None:
    changes = SqliteChanges(create_engine_for(f"sqlite:///{path}"))
    first = changes.version()
    assert first is not None
    assert changes._shm is not None  # the header is in use, not the pragma
    writer = other_connection(path)
    seen = {first}
    for i in range(300):
        assert changes.version() == changes.version()  # nothing committed: the same
        writer.execute("INSERT INTO t VALUES (?)", (i,))
        now = changes.version()
        assert now is not None and now not in seen, f"commit {i} went unseen"
        seen.add(now)
        if i % 50 == 49:  # checkpoints and WAL restarts too
            writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            seen.add(changes.version())
    writer.close()


def test_reads_by_other_connections_do_not_move_the_version(path: Path) -> None:
    changes = SqliteChanges(create_engine_for(f"sqlite:///{path}"))
    before = changes.version()
    reader = other_connection(path)
    for _ in range(20):
        reader.execute("SELECT count(*) FROM t").fetchone()
    assert changes.version() == before
    reader.close()


_COMMIT = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1])
connection.execute("INSERT INTO t VALUES (1)")
connection.commit()
connection.close()
"""


def test_a_commit_by_another_process_moves_the_version(path: Path) -> None:
    changes = SqliteChanges(create_engine_for(f"sqlite:///{path}"))
    before = changes.version()
    subprocess.run(
        [sys.executable, "-c", _COMMIT, str(path)],
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert changes.version() != before


def test_a_database_that_is_not_a_wal_file_is_asked_through_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "rollback.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE t (x INTEGER)")
    engine = create_engine_for(f"sqlite:///{path}")

    def rollback_journal(engine_: object) -> sqlite3.Connection:
        connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        connection.execute("PRAGMA journal_mode=DELETE")
        return connection

    changes = SqliteChanges(engine, connect=rollback_journal)
    before = changes.version()
    assert isinstance(before, int) and changes._shm is None
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode=DELETE")
    writer.execute("INSERT INTO t VALUES (1)")
    writer.close()
    assert changes.version() != before


def header(*, version: int = WAL_INDEX_VERSION, change: int = 7, init: int = 1) -> bytes:
    copy = bytearray(48)
    copy[0:4] = version.to_bytes(4, sys.byteorder)
    copy[8:12] = change.to_bytes(4, sys.byteorder)
    copy[12] = init
    return bytes(copy)


def test_a_header_is_trusted_only_when_both_copies_agree_and_it_is_initialised() -> None:
    good = header()
    assert wal_header_version(good + good) == good
    assert wal_header_version(good + header(change=8)) is None  # a commit mid-write
    assert wal_header_version(header(init=0) * 2) is None
    assert wal_header_version(header(version=3007001) * 2) is None
    assert wal_header_version(good) is None  # too short
