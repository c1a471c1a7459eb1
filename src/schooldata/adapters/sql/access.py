"""SQL key store and durable quota counters, sharing the data store's engine.

Quota consumption is one atomic statement (an upsert that only increments while the result
stays within the limit and returns the new count), so concurrent requests in any number of
processes and machines can never consume more than the quota, and the count survives
restarts.

Every keyed request reads its key with its organisation and consumes one use. On PostgreSQL
each is one statement, every time: a revocation or plan change applies to the very next
request, and a consumed use is committed before the answer. On SQLite (one machine) both
keep those guarantees without a statement on most requests:

- Key lookups are remembered until anything commits to the database file: `SqliteChanges`
  reads SQLite's data version (microseconds, no lock) before each remembered answer is
  used, and any commit by any other connection - a revocation by the CLI in another
  process, a plan change, a new key - forgets them all. A revocation still applies to the
  very next request.
- Quota uses are reserved in blocks (`QuotaLeases`): one committed statement reserves the
  next n counts of the organisation's month for this process, which then hands them out one
  per request in memory. The stored count is never behind the uses answered, the limit is
  never exceeded, and no count is given twice, across any number of processes; the stored
  count runs ahead of the answered uses by the unreserved rest of each process's current
  block (a block covers ~0.1 s of that organisation's requests, at most MAX_BLOCK uses,
  one use at low rates and near the limit), returned when the process shuts down cleanly.

On SQLite the statements run on the thread's own sqlite3 connection directly, each its own
autocommit transaction (a write waits for the lock like BEGIN IMMEDIATE); SQLAlchemy's
per-statement machinery would cost several times the statement itself.
"""

from __future__ import annotations

import atexit
import datetime as dt
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy import Engine

from schooldata.adapters.sql.access_tables import (
    UTC_TIMESTAMP,
    api_keys,
    organisations,
    usage_quota,
)
from schooldata.adapters.sql.engine import WRITE_OPTION, sqlite_fetch, unavailable_on_error
from schooldata.adapters.sql.sqlite_changes import SqliteChanges, fork_generation
from schooldata.domain.keys import ApiKeyRecord, KeyKind, Organisation
from schooldata.ports.keys import KeyLookup, WouldBlock

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

# The primary key finds the key; the organisation's primary key finds its organisation. A
# left join: a key whose organisation is gone is still found (and refused by the caller).
_LOOKUP_SQL = (
    "SELECT k.key_hash, k.display_prefix, k.organisation, k.name, k.kind, k.created_at, "
    "k.revoked_at, o.name AS organisation_name, o.plan AS organisation_plan "
    "FROM api_keys AS k LEFT OUTER JOIN organisations AS o ON o.slug = k.organisation "
    "WHERE k.key_hash = :key_hash"
)
_LOOKUP = sa.text(_LOOKUP_SQL).columns(created_at=UTC_TIMESTAMP, revoked_at=UTC_TIMESTAMP)

_USED_SQL = "SELECT used FROM usage_quota WHERE organisation = :organisation AND period = :period"


def _utc(value: dt.datetime | None) -> dt.datetime | None:
    # SQLite returns naive datetimes; every stored time is UTC.
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=dt.UTC)


def _key_from_row(row: Any) -> ApiKeyRecord:
    created = _utc(row.created_at)
    assert created is not None
    return ApiKeyRecord(
        key_hash=row.key_hash,
        display_prefix=row.display_prefix,
        organisation=row.organisation,
        name=row.name,
        kind=KeyKind(row.kind),
        created_at=created,
        revoked_at=_utc(row.revoked_at),
    )


def _lookup_from_values(values: Sequence[Any]) -> KeyLookup:
    """A `_LOOKUP_SQL` row, its times already datetimes."""
    key_hash, prefix, slug, name, kind, created_at, revoked_at, org_name, org_plan = values
    created = _utc(created_at)
    assert created is not None
    record = ApiKeyRecord(
        key_hash=key_hash,
        display_prefix=prefix,
        organisation=slug,
        name=name,
        kind=KeyKind(kind),
        created_at=created,
        revoked_at=_utc(revoked_at),
    )
    # organisations.name is NOT NULL: a null name means the join found no organisation.
    organisation = (
        None if org_name is None else Organisation(slug=slug, name=org_name, plan=org_plan)
    )
    return KeyLookup(record, organisation)


def _sqlite_time_parser(engine: Engine) -> Callable[[Any], Any]:
    """How SQLAlchemy reads a stored time on this engine (the raw path must agree with it)."""
    dialect = engine.dialect
    parse = UTC_TIMESTAMP.dialect_impl(dialect).result_processor(dialect, None)
    assert parse is not None
    return parse


MAX_REMEMBERED_KEYS: Final = 4096
_UNKNOWN: Final = object()


class RememberedKeys:
    """Key lookups (unknown keys included) as of one data version of an SQLite file: valid
    while `SqliteChanges` reports that version, all forgotten when it moves. Bounded: full,
    it starts again (a flood of made-up keys costs lookups, never memory)."""

    def __init__(self, changes: SqliteChanges) -> None:
        self._changes = changes
        self._state: tuple[object, dict[str, KeyLookup | None]] = (None, {})

    def get(self, key_hash: str, read: Callable[[str], KeyLookup | None]) -> KeyLookup | None:
        version = self._changes.version()
        if version is None:
            return read(key_hash)  # cannot tell at once whether anything changed: read fresh
        remembered_at, entries = self._state
        if remembered_at != version:
            entries = {}
            self._state = (version, entries)
        found = entries.get(key_hash, _UNKNOWN)
        if found is not _UNKNOWN:
            return found  # type: ignore[return-value]
        found = read(key_hash)
        # Read after the version was: anything committed since makes the version move, and
        # the next request forgets this answer.
        if len(entries) >= MAX_REMEMBERED_KEYS:
            entries.clear()
        entries[key_hash] = found
        return found


class SqlKeyStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._writer = engine.execution_options(**{WRITE_OPTION: True})
        self._raw = engine.dialect.name == "sqlite"
        self._parse_time = _sqlite_time_parser(engine) if self._raw else None
        self._remembered = RememberedKeys(SqliteChanges(engine)) if self._raw else None

    @property
    def is_local(self) -> bool:
        """SQLite: a local file, no network round trip (see Authenticate.answers_locally)."""
        return self._raw

    def find_key(self, *, key_hash: str) -> ApiKeyRecord | None:
        with unavailable_on_error(), self._engine.connect() as conn:
            row = conn.execute(sa.select(api_keys).where(api_keys.c.key_hash == key_hash)).first()
        return None if row is None else _key_from_row(row)

    def find_key_with_organisation(self, *, key_hash: str) -> KeyLookup | None:
        """One indexed statement; on SQLite remembered until anything commits (see the
        module docstring), so a revocation or plan change applies to the very next request."""
        if self._remembered is not None:
            return self._remembered.get(key_hash, self._read_key)
        return self._read_key(key_hash)

    def _read_key(self, key_hash: str) -> KeyLookup | None:
        params = {"key_hash": key_hash}
        if self._parse_time is not None:
            rows = sqlite_fetch(self._engine, _LOOKUP_SQL, params)
            if not rows:
                return None
            values = list(rows[0])
            values[5] = self._parse_time(values[5])
            values[6] = self._parse_time(values[6])
            return _lookup_from_values(values)
        with unavailable_on_error(), self._engine.connect() as conn:
            row = conn.execute(_LOOKUP, params).first()
        return None if row is None else _lookup_from_values(row)

    def add_key(self, *, record: ApiKeyRecord) -> None:
        with unavailable_on_error(), self._writer.begin() as conn:
            conn.execute(
                api_keys.insert().values(
                    key_hash=record.key_hash,
                    display_prefix=record.display_prefix,
                    organisation=record.organisation,
                    name=record.name,
                    kind=record.kind.value,
                    created_at=record.created_at,
                    revoked_at=record.revoked_at,
                )
            )

    def list_keys(self, *, organisation: str | None = None) -> list[ApiKeyRecord]:
        statement = sa.select(api_keys).order_by(
            api_keys.c.organisation, api_keys.c.created_at, api_keys.c.display_prefix
        )
        if organisation is not None:
            statement = statement.where(api_keys.c.organisation == organisation)
        with unavailable_on_error(), self._engine.connect() as conn:
            return [_key_from_row(row) for row in conn.execute(statement)]

    def revoke_key(self, *, display_prefix: str, at: dt.datetime) -> int:
        statement = (
            api_keys.update()
            .where(api_keys.c.display_prefix == display_prefix, api_keys.c.revoked_at.is_(None))
            .values(revoked_at=at)
        )
        with unavailable_on_error(), self._writer.begin() as conn:
            return conn.execute(statement).rowcount

    def get_organisation(self, *, slug: str) -> Organisation | None:
        with unavailable_on_error(), self._engine.connect() as conn:
            row = conn.execute(sa.select(organisations).where(organisations.c.slug == slug)).first()
        return None if row is None else Organisation(slug=row.slug, name=row.name, plan=row.plan)

    def list_organisations(self) -> list[Organisation]:
        statement = sa.select(organisations).order_by(organisations.c.slug)
        with unavailable_on_error(), self._engine.connect() as conn:
            return [
                Organisation(slug=r.slug, name=r.name, plan=r.plan) for r in conn.execute(statement)
            ]

    def save_organisation(self, *, organisation: Organisation) -> None:
        with unavailable_on_error(), self._writer.begin() as conn:
            updated = conn.execute(
                organisations.update()
                .where(organisations.c.slug == organisation.slug)
                .values(name=organisation.name, plan=organisation.plan)
            ).rowcount
            if not updated:
                conn.execute(
                    organisations.insert().values(
                        slug=organisation.slug, name=organisation.name, plan=organisation.plan
                    )
                )


MAX_BLOCK: Final = 128
BLOCK_SECONDS: Final = 0.1  # a block lasting less than this doubles the next; over 10x, halves
NEAR_LIMIT: Final = 128  # within this many uses of the limit, one use per statement


class _Lease:
    """Counts `next`..`end` of one organisation's month, reserved in the store for this
    process and handed out in order."""

    __slots__ = ("end", "next", "size", "stored", "taken_at")

    def __init__(self) -> None:
        self.next, self.end, self.size, self.stored, self.taken_at = 1, 0, 1, 0, 0.0


class QuotaLeases:
    """One process's reserved quota counts on SQLite (see the module docstring).

    A use is handed out from the current block under a lock held for a few operations; an
    exhausted block reserves the next with one statement (`reserve(size, ceiling)` -> the
    stored count after it, or None when that many do not fit under the ceiling), one
    reservation at a time. A fork
    starts with no blocks: a child must never hand out its parent's counts."""

    def __init__(
        self,
        reserve: Callable[[str, str, int, int, bool], int | None],
        give_back: Callable[[str, str, int, int], None],
    ) -> None:
        self._reserve = reserve
        self._give_back = give_back
        self._leases: dict[tuple[str, str], _Lease] = {}
        self._lock = threading.Lock()  # the blocks, for a few operations at a time
        self._reserving = threading.Lock()  # one reservation (a database write) at a time
        self._forks = fork_generation()

    def consume(self, organisation: str, period: str, limit: int, *, wait: bool) -> int | None:
        if self._forks != fork_generation():
            self._forget_inherited()
        key = (organisation, period)
        with self._lock:
            lease = self._leases.get(key)
            if lease is not None and lease.next <= lease.end and lease.next <= limit:
                count = lease.next
                lease.next += 1
                return count
        if not self._reserving.acquire(blocking=wait):
            raise WouldBlock()
        try:
            with self._lock:  # another thread may have reserved while this one waited
                lease = self._leases.setdefault(key, _Lease())
                if lease.next <= lease.end and lease.next <= limit:
                    count = lease.next
                    lease.next += 1
                    return count
            return self._take_block(key, lease, limit, wait=wait)
        finally:
            self._reserving.release()

    def _take_block(
        self, key: tuple[str, str], lease: _Lease, limit: int, *, wait: bool
    ) -> int | None:
        now = time.monotonic()
        if lease.end:  # an earlier block: size the next by how long that one lasted
            lasted = now - lease.taken_at
            if lasted < BLOCK_SECONDS:
                lease.size = min(MAX_BLOCK, lease.size * 2)
            elif lasted > 10 * BLOCK_SECONDS:
                lease.size = max(1, lease.size // 2)
        # A block of more than one use never reaches into the last NEAR_LIMIT of the quota
        # (the statement checks it against the stored count, however stale this process's
        # view): there every use is its own statement, exact across processes.
        size = min(lease.size, limit - NEAR_LIMIT - lease.stored)
        stored = self._reserve(*key, size, limit - NEAR_LIMIT, wait) if size > 1 else None
        if stored is None:
            size = 1
            stored = self._reserve(*key, size, limit, wait)
        if stored is None:
            return None
        with self._lock:
            lease.next, lease.end, lease.stored, lease.taken_at = (
                stored - size + 2,
                stored,
                stored,
                now,
            )
            return stored - size + 1

    def unused(self, organisation: str, period: str) -> int:
        """Counts reserved by this process and not yet handed out."""
        with self._lock:
            lease = self._leases.get((organisation, period))
            if lease is None or self._forks != fork_generation():
                return 0
            return max(0, lease.end - lease.next + 1)

    def give_back(self) -> None:
        """Return every block's unused counts (each only if no block was reserved after it)."""
        if self._forks != fork_generation():
            return
        with self._lock:
            leases, self._leases = self._leases, {}
        for (organisation, period), lease in leases.items():
            if lease.next <= lease.end:
                self._give_back(organisation, period, lease.end - lease.next + 1, lease.end)

    def _forget_inherited(self) -> None:
        with self._lock:
            self._leases = {}
            self._forks = fork_generation()
        self._reserving = threading.Lock()  # a lock held at the fork stays held in the child


def _give_back_at_exit(reference: weakref.ref[QuotaLeases]) -> None:
    leases = reference()
    if leases is not None:
        try:
            leases.give_back()
        except Exception:  # the database may be gone at exit: the counts stay reserved
            return


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
