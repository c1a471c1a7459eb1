"""SQL durable quota counters, sharing the data store's engine.

Quota consumption is one atomic statement (an upsert that only increments while the result
stays within the limit and returns the new count), so concurrent requests in any number of
processes and machines can never consume more than the quota, and the count survives
restarts.

On PostgreSQL every keyed request's use is that one statement, committed before the answer.
On SQLite (one machine) uses are reserved in blocks (`QuotaLeases`, `quota_leases.py`) with
the same guarantees and no statement on most requests. There the statements run on the
thread's own sqlite3 connection directly, each its own autocommit transaction (a write waits
for the lock like BEGIN IMMEDIATE); SQLAlchemy's per-statement machinery would cost several
times the statement itself.
"""

from __future__ import annotations

import atexit
import weakref

import sqlalchemy as sa
from mypy_extensions import mypyc_attr
from sqlalchemy import Engine

from schooldata.adapters.sql.access_tables import usage_quota
from schooldata.adapters.sql.engine import WRITE_OPTION, sqlite_fetch, unavailable_on_error
from schooldata.adapters.sql.quota_leases import QuotaLeases
from schooldata.ports.keys import WouldBlock

# Plain SQL in the named parameter style both sqlite3 and SQLAlchemy's text() accept, so the
# two backends run the very same statements.
# :size uses at once (1 on PostgreSQL; a block on SQLite), only if all of them fit.
_CONSUME_SQL = (
    "INSERT INTO usage_quota (organisation, period, used) VALUES (:organisation, :period, :size) "
    "ON CONFLICT (organisation, period) DO UPDATE SET used = usage_quota.used + :size "
    "WHERE usage_quota.used + :size <= :limit "
    "RETURNING used"
)
_CONSUME = sa.text(_CONSUME_SQL)
# Gives back the unused end of a block, only if no block was reserved after it (so no count
# can ever be handed out twice).
_RETURN_SQL = (
    "UPDATE usage_quota SET used = used - :unused "
    "WHERE organisation = :organisation AND period = :period AND used = :end"
)

_USED_SQL = "SELECT used FROM usage_quota WHERE organisation = :organisation AND period = :period"


def _give_back_at_exit(reference: weakref.ref[QuotaLeases]) -> None:
    leases = reference()
    if leases is not None:
        try:
            leases.give_back()
        except Exception:  # the database may be gone at exit: the counts stay reserved
            return


@mypyc_attr(native_class=False)
class SqlQuotaCounter:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._writer = engine.execution_options(**{WRITE_OPTION: True})
        self._raw = engine.dialect.name == "sqlite"
        self._leases = QuotaLeases(self._reserve, self._return) if self._raw else None
        if self._leases is not None:
            atexit.register(_give_back_at_exit, weakref.ref(self._leases))

    @property
    def is_local(self) -> bool:
        """SQLite: a local file, no network round trip (see Meter.can_admit_without_waiting)."""
        return self._raw

    def consume(self, *, organisation: str, period: str, limit: int) -> int | None:
        if self._leases is not None:
            return self._leases.consume(organisation, period, limit, wait=True)
        params = {"organisation": organisation, "period": period, "limit": limit, "size": 1}
        with unavailable_on_error(), self._writer.begin() as conn:
            row = conn.execute(_CONSUME, params).first()
        return None if row is None else int(row[0])

    def consume_nowait(self, *, organisation: str, period: str, limit: int) -> int | None:
        """SQLite: a count from this process's block, or, when a block must be reserved, the
        same statement without waiting: WouldBlock (nothing consumed) if the write lock is
        held by another thread or process. Other backends always answer WouldBlock: their
        writes cross a network."""
        if self._leases is None:
            raise WouldBlock()
        return self._leases.consume(organisation, period, limit, wait=False)

    def give_back(self) -> None:
        """Return the unused counts of this process's blocks (SQLite; also done at exit)."""
        if self._leases is not None:
            self._leases.give_back()

    def _reserve(
        self, organisation: str, period: str, size: int, ceiling: int, wait: bool
    ) -> int | None:
        """`size` more uses if the stored count stays within `ceiling` -> the count after."""
        params = {"organisation": organisation, "period": period, "limit": ceiling, "size": size}
        rows = sqlite_fetch(self._engine, _CONSUME_SQL, params, writes=True, wait=wait)
        return int(rows[0][0]) if rows else None  # committed before it returns

    def _return(self, organisation: str, period: str, unused: int, end: int) -> None:
        params = {"organisation": organisation, "period": period, "unused": unused, "end": end}
        sqlite_fetch(self._engine, _RETURN_SQL, params, writes=True)

    def used(self, *, organisation: str, period: str) -> int:
        """The uses answered as this process sees them: the stored count less this process's
        unreserved block (other processes' blocks count as used until they return them)."""
        params = {"organisation": organisation, "period": period}
        if self._leases is not None:
            rows = sqlite_fetch(self._engine, _USED_SQL, params)
            stored = int(rows[0][0]) if rows else 0
            return max(0, stored - self._leases.unused(organisation, period))
        statement = sa.select(usage_quota.c.used).where(
            usage_quota.c.organisation == organisation, usage_quota.c.period == period
        )
        with unavailable_on_error(), self._engine.connect() as conn:
            value = conn.execute(statement).scalar()
        return int(value) if value is not None else 0
