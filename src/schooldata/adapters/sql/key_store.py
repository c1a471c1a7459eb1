"""SQL key store: API keys and their organisations, sharing the data store's engine.

Every keyed request reads its key with its organisation. On PostgreSQL that is one statement,
every time: a revocation or plan change applies to the very next request. On SQLite (one
machine) it keeps that guarantee without a statement on most requests: key lookups are
remembered until anything commits to the database file. `SqliteChanges` reads SQLite's data
version (microseconds, no lock) before each remembered answer is used, and any commit by any
other connection - a revocation by the CLI in another process, a plan change, a new key -
forgets them all. A revocation still applies to the very next request.

On SQLite the lookup runs on the thread's own sqlite3 connection directly; SQLAlchemy's
per-statement machinery would cost several times the statement itself. Quota counters live
beside it in `quota_counter.py`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Any, Final

import sqlalchemy as sa
from mypy_extensions import mypyc_attr
from sqlalchemy import Engine

from schooldata.adapters.sql.access_tables import UTC_TIMESTAMP, api_keys, organisations
from schooldata.adapters.sql.engine import WRITE_OPTION, sqlite_fetch, unavailable_on_error
from schooldata.adapters.sql.sqlite_changes import SqliteChanges
from schooldata.domain.keys import ApiKeyRecord, KeyKind, Organisation
from schooldata.ports.keys import KeyLookup

# The primary key finds the key; the organisation's primary key finds its organisation. A
# left join: a key whose organisation is gone is still found (and refused by the caller).
_LOOKUP_SQL = (
    "SELECT k.key_hash, k.display_prefix, k.organisation, k.name, k.kind, k.created_at, "
    "k.revoked_at, o.name AS organisation_name, o.plan AS organisation_plan "
    "FROM api_keys AS k LEFT OUTER JOIN organisations AS o ON o.slug = k.organisation "
    "WHERE k.key_hash = :key_hash"
)
_LOOKUP = sa.text(_LOOKUP_SQL).columns(created_at=UTC_TIMESTAMP, revoked_at=UTC_TIMESTAMP)


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


@mypyc_attr(native_class=False)
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


@mypyc_attr(native_class=False)
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
