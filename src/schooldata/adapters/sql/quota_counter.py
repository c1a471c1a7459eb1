"""SQL durable quota counters, sharing the data store's engine.

Quota consumption is one atomic statement (an upsert that only increments while the result
stays within the limit and returns the new count), so concurrent requests in any number of
processes and machines can never consume more than the quota, and the count survives
restarts.

On PostgreSQL every keyed request's use is that one statement, committed before the answer.
A use is charged once, or not at all, even when the connection is cut as it commits: the
statement returns its transaction's id, and a commit whose outcome was lost (the database
may have committed it while the request is answered 503, uncharged) is settled later by the
database's own record of that transaction (`txid_status`): committed, it is given back, once
(`Settlements`). On SQLite (one machine) uses are reserved in blocks (`QuotaLeases`,
`quota_leases.py`) with the same guarantees and no statement on most requests. There the statements run on the
thread's own sqlite3 connection directly, each its own autocommit transaction (a write waits
for the lock like BEGIN IMMEDIATE); SQLAlchemy's per-statement machinery would cost several
times the statement itself.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from typing import Final

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
# PostgreSQL: the same, with the id of the transaction that will commit it.
_CONSUME_XID = sa.text(_CONSUME_SQL + ", txid_current()")
# A use given back (its charge committed for a request answered 503), with its transaction.
_GIVE_BACK_ONE = sa.text(
    "UPDATE usage_quota SET used = used - 1 "
    "WHERE organisation = :organisation AND period = :period AND used > 0 "
    "RETURNING txid_current()"
)
_STATUS = sa.text("SELECT txid_status(:xid)")
SETTLE_EVERY_SECONDS: Final = 0.5  # at most this often while settlements are waiting
MAX_UNSETTLED: Final = 10_000
log = logging.getLogger("schooldata.quota")
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
        # PostgreSQL: (organisation, period, transaction id, "charge" | "give back") whose
        # commit went unanswered, waiting to be settled.
        self._unsettled: list[tuple[str, str, int, str]] = []
        self._settling = threading.Lock()
        self._next_settlement = 0.0
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
        if self._unsettled:
            self.settle()
        params = {"organisation": organisation, "period": period, "limit": limit, "size": 1}
        with unavailable_on_error(), self._writer.connect() as conn:
            transaction = conn.begin()
            row = conn.execute(_CONSUME_XID, params).first()
            if row is None:  # the limit is reached: nothing was written
                transaction.rollback()
                return None
            try:
                transaction.commit()
            except Exception:
                # The commit went out and its answer did not come back: the use may be
                # stored, for a request that will be answered 503. Settled later.
                self._wait_for_settlement(organisation, period, int(row[1]), "charge")
                raise
        return int(row[0])

    def consume_nowait(self, *, organisation: str, period: str, limit: int) -> int | None:
        """SQLite: a count from this process's block, or, when a block must be reserved, the
        same statement without waiting: WouldBlock (nothing consumed) if the write lock is
        held by another thread or process. Other backends always answer WouldBlock: their
        writes cross a network."""
        if self._leases is None:
            raise WouldBlock()
        return self._leases.consume(organisation, period, limit, wait=False)

    # ------------------------------------------------------------------ settlements

    def _wait_for_settlement(self, organisation: str, period: str, xid: int, what: str) -> None:
        if len(self._unsettled) >= MAX_UNSETTLED:
            log.warning("quota settlements: %d waiting, the oldest dropped", MAX_UNSETTLED)
            del self._unsettled[0]
        self._unsettled.append((organisation, period, xid, what))

    @property
    def unsettled(self) -> int:
        """Charges (or give-backs) whose outcome this process still has to settle."""
        return len(self._unsettled)

    def settle(self, *, force: bool = False) -> None:
        """Settle what waits, as far as the database answers now (never raises):
        - a charge whose commit went unanswered: committed -> its use is given back;
          aborted -> nothing was charged; in progress -> asked again later;
        - a give-back whose commit went unanswered: committed -> done; aborted -> made again.
        Each is resolved by its own transaction's fate, so a use is given back exactly once;
        an item the database cannot settle now waits as it was."""
        now = time.monotonic()
        if not self._unsettled or (not force and now < self._next_settlement):
            return
        if not self._settling.acquire(blocking=False):
            return  # another thread is settling
        try:
            self._next_settlement = now + SETTLE_EVERY_SECONDS
            waiting, self._unsettled = self._unsettled, []
            for index, item in enumerate(waiting):
                try:
                    self._settle_one(*item)
                except Exception:  # the database is away again: this and the rest wait
                    self._unsettled[:0] = waiting[index:]
                    return
        finally:
            self._settling.release()

    def _settle_one(self, organisation: str, period: str, xid: int, what: str) -> None:
        """Resolve one item (perhaps leaving a give-back to settle in its place), or raise
        having changed nothing."""
        status = self._status(xid)
        if status == "in progress":
            self._wait_for_settlement(organisation, period, xid, what)
        elif status is None:
            log.warning("quota %s: transaction %d is unknown to the database", what, xid)
        elif (what == "charge") == (status == "committed"):
            self._give_back_one(organisation, period)  # a charge stored, or a give-back lost

    def _status(self, xid: int) -> str | None:
        with unavailable_on_error(), self._engine.connect() as conn:
            value = conn.execute(_STATUS, {"xid": xid}).scalar()
        return None if value is None else str(value)

    def _give_back_one(self, organisation: str, period: str) -> None:
        """One use given back; raises, having given nothing back, when the database fails
        before the commit; a commit left unanswered waits to be settled."""
        params = {"organisation": organisation, "period": period}
        with unavailable_on_error(), self._writer.connect() as conn:
            transaction = conn.begin()
            row = conn.execute(_GIVE_BACK_ONE, params).first()
            if row is None:
                transaction.rollback()
                return
            try:
                transaction.commit()
            except Exception:
                self._wait_for_settlement(organisation, period, int(row[0]), "give back")

    def give_back(self) -> None:
        """Return the unused counts of this process's blocks (SQLite; also done at exit), and
        settle what waits (PostgreSQL)."""
        if self._leases is not None:
            self._leases.give_back()
        self.settle(force=True)

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
        if self._unsettled:
            self.settle()
        statement = sa.select(usage_quota.c.used).where(
            usage_quota.c.organisation == organisation, usage_quota.c.period == period
        )
        with unavailable_on_error(), self._engine.connect() as conn:
            value = conn.execute(statement).scalar()
        return int(value) if value is not None else 0
