"""SQL key store and durable quota counters, sharing the data store's engine.

Quota consumption is one atomic statement (an upsert that only increments below the limit
and returns the new count), so concurrent requests in any number of processes and machines
can never consume more than the quota, and the count survives restarts.

The two statements every keyed request runs - the key with its organisation, and the quota
upsert - are each a single statement with no cache in front: a revocation or plan change
applies to the very next request, and a consumed use is committed before the answer. On
SQLite they run on the pooled sqlite3 connection directly, each its own autocommit
transaction (a write waits for the lock like BEGIN IMMEDIATE); SQLAlchemy's per-statement
machinery would cost several times the statement itself.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Engine

from schooldata.adapters.sql.access_tables import (
    UTC_TIMESTAMP,
    api_keys,
    organisations,
    usage_quota,
)
from schooldata.adapters.sql.engine import WRITE_OPTION, sqlite_fetch, unavailable_on_error
from schooldata.domain.keys import ApiKeyRecord, KeyKind, Organisation
from schooldata.ports.keys import KeyLookup, WouldBlock

# Plain SQL in the named parameter style both sqlite3 and SQLAlchemy's text() accept, so the
# two backends run the very same statements.
_CONSUME_SQL = (
    "INSERT INTO usage_quota (organisation, period, used) VALUES (:organisation, :period, 1) "
    "ON CONFLICT (organisation, period) DO UPDATE SET used = usage_quota.used + 1 "
    "WHERE usage_quota.used < :limit "
    "RETURNING used"
)
_CONSUME = sa.text(_CONSUME_SQL)

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


class SqlKeyStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._writer = engine.execution_options(**{WRITE_OPTION: True})
        self._raw = engine.dialect.name == "sqlite"
        self._parse_time = _sqlite_time_parser(engine) if self._raw else None

    @property
    def is_local(self) -> bool:
        """SQLite: a local file, no network round trip (see Authenticate.answers_locally)."""
        return self._raw

    def find_key(self, *, key_hash: str) -> ApiKeyRecord | None:
        with unavailable_on_error(), self._engine.connect() as conn:
            row = conn.execute(sa.select(api_keys).where(api_keys.c.key_hash == key_hash)).first()
        return None if row is None else _key_from_row(row)

    def find_key_with_organisation(self, *, key_hash: str) -> KeyLookup | None:
        """One indexed statement, read fresh every call (no cache: see the module docstring)."""
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


class SqlQuotaCounter:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._writer = engine.execution_options(**{WRITE_OPTION: True})
        self._raw = engine.dialect.name == "sqlite"

    @property
    def is_local(self) -> bool:
        """SQLite: a local file, no network round trip (see Meter.can_admit_without_waiting)."""
        return self._raw

    def consume(self, *, organisation: str, period: str, limit: int) -> int | None:
        params = {"organisation": organisation, "period": period, "limit": limit}
        if self._raw:
            rows = sqlite_fetch(self._engine, _CONSUME_SQL, params, writes=True)  # committed
            return int(rows[0][0]) if rows else None
        with unavailable_on_error(), self._writer.begin() as conn:
            row = conn.execute(_CONSUME, params).first()
        return None if row is None else int(row[0])

    def consume_nowait(self, *, organisation: str, period: str, limit: int) -> int | None:
        """SQLite: the same statement, but WouldBlock instead of waiting for the write lock
        (held by another thread or process). Other backends always answer WouldBlock: their
        writes cross a network."""
        if not self._raw:
            raise WouldBlock()
        params = {"organisation": organisation, "period": period, "limit": limit}
        rows = sqlite_fetch(self._engine, _CONSUME_SQL, params, writes=True, wait=False)
        return int(rows[0][0]) if rows else None

    def used(self, *, organisation: str, period: str) -> int:
        params = {"organisation": organisation, "period": period}
        if self._raw:
            rows = sqlite_fetch(self._engine, _USED_SQL, params)
            return int(rows[0][0]) if rows else 0
        statement = sa.select(usage_quota.c.used).where(
            usage_quota.c.organisation == organisation, usage_quota.c.period == period
        )
        with unavailable_on_error(), self._engine.connect() as conn:
            value = conn.execute(statement).scalar()
        return int(value) if value is not None else 0
