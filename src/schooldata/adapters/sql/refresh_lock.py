"""One refresh at a time per database (the RefreshLock port), on either backend.

- SQLite: an exclusive file lock on `<database file>.refresh-lock` beside the database
  (adapters/locks.py): every process on the machine that opens the file sees it, and a killed
  refresh releases it with its process. An in-memory database is one process's: a thread lock.
- PostgreSQL: a session advisory lock (`pg_try_advisory_lock`), taken without waiting on a
  connection of its own held for the whole refresh, so every instance sharing the database
  sees it; the key is derived from the schema, so databases that share a server (or tests
  that share one in private schemas) never block each other. It goes with the session,
  however the session ends.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, text

from schooldata.adapters.locks import FileLock, ThreadLock
from schooldata.adapters.sql.engine import unavailable_on_error
from schooldata.adapters.sql.store import SqlStore
from schooldata.ports.locks import RefreshLock

LOCK_SUFFIX = ".refresh-lock"


class AdvisoryLock:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine.execution_options(isolation_level="AUTOCOMMIT")

    @contextmanager
    def hold(self) -> Iterator[bool]:
        with unavailable_on_error(), self._engine.connect() as conn:
            schema = conn.execute(text("SELECT current_schema()")).scalar_one()
            key = advisory_key(str(schema))
            taken = conn.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": key})
            if not taken.scalar_one():
                yield False
                return
            try:
                yield True
            finally:
                try:
                    conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
                except Exception:
                    conn.invalidate()  # the session (and so the lock) must not be pooled
                    raise


def advisory_key(schema: str) -> int:
    """A signed 64-bit key for this schema's refresh lock."""
    digest = hashlib.sha256(f"schooldata refresh {schema}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


_MEMORY_LOCKS: dict[str, ThreadLock] = {}


def refresh_lock(store: SqlStore) -> RefreshLock:
    url = store.engine.url
    if url.get_backend_name() == "postgresql":
        return AdvisoryLock(store.engine)
    database = url.database
    if database and database != ":memory:" and not database.startswith("file:"):
        return FileLock(Path(database + LOCK_SUFFIX))
    return _MEMORY_LOCKS.setdefault(str(url), ThreadLock())
