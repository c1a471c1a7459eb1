"""SQL key store and durable quota counters, sharing the data store's engine.

Quota consumption is one atomic statement (an upsert that only increments below the limit
and returns the new count), so concurrent requests in any number of processes and machines
can never consume more than the quota, and the count survives restarts.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Engine

from schooldata.adapters.sql.access_tables import api_keys, organisations, usage_quota
from schooldata.adapters.sql.engine import WRITE_OPTION, unavailable_on_error
from schooldata.domain.keys import ApiKeyRecord, KeyKind, Organisation

_CONSUME = sa.text(
    "INSERT INTO usage_quota (organisation, period, used) VALUES (:organisation, :period, 1) "
    "ON CONFLICT (organisation, period) DO UPDATE SET used = usage_quota.used + 1 "
    "WHERE usage_quota.used < :limit "
    "RETURNING used"
)


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


class SqlKeyStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._writer = engine.execution_options(**{WRITE_OPTION: True})

    def find_key(self, *, key_hash: str) -> ApiKeyRecord | None:
        with unavailable_on_error(), self._engine.connect() as conn:
            row = conn.execute(sa.select(api_keys).where(api_keys.c.key_hash == key_hash)).first()
        return None if row is None else _key_from_row(row)

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

    def consume(self, *, organisation: str, period: str, limit: int) -> int | None:
        with unavailable_on_error(), self._writer.begin() as conn:
            row = conn.execute(
                _CONSUME, {"organisation": organisation, "period": period, "limit": limit}
            ).first()
        return None if row is None else int(row[0])

    def used(self, *, organisation: str, period: str) -> int:
        statement = sa.select(usage_quota.c.used).where(
            usage_quota.c.organisation == organisation, usage_quota.c.period == period
        )
        with unavailable_on_error(), self._engine.connect() as conn:
            value = conn.execute(statement).scalar()
        return int(value) if value is not None else 0
