"""Data versions and their changes in SQL: written in the importing transaction, read by
every instance over the same database.

A version's sequence number is the `data_version` counter its transaction committed as (the
counter's row lock makes concurrent writers take turns on PostgreSQL, BEGIN IMMEDIATE on
SQLite), so sequence numbers are unique and grow with commits.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, Select, and_, delete, func, insert, or_, select, update

from schooldata.adapters.sql import tables as t
from schooldata.domain.changes import (
    ChangeFilter,
    ChangeKind,
    ListedChange,
    SchoolChange,
    Whereabouts,
)
from schooldata.domain.phase import Phase
from schooldata.domain.text import normalise
from schooldata.domain.urn import Urn
from schooldata.domain.versions import DataVersion

Row = Any


def bump_counter(conn: Connection) -> int:
    """Move the data version counter on (every committed write does); its new value."""
    v = t.data_version.c
    conn.execute(
        update(t.data_version)
        .where(v.id == 1)
        .values(counter=v.counter + 1, stamp=uuid.uuid4().hex[:12])
    )
    return int(conn.execute(select(v.counter)).scalar_one())


def version_from_row(row: Row) -> DataVersion:
    names = row["datasets"]
    return DataVersion(
        sequence=int(row["sequence"]),
        made_at=row["made_at"],
        datasets=tuple(names.split(",")) if names else (),
    )


def last_version(conn: Connection) -> DataVersion | None:
    v = t.data_versions.c
    row = conn.execute(select(t.data_versions).order_by(v.sequence.desc()).limit(1)).first()
    return None if row is None else version_from_row(row._mapping)


def version(conn: Connection, sequence: int) -> DataVersion | None:
    v = t.data_versions.c
    row = conn.execute(select(t.data_versions).where(v.sequence == sequence)).first()
    return None if row is None else version_from_row(row._mapping)


def oldest_version(conn: Connection, made_since: dt.datetime) -> DataVersion | None:
    v = t.data_versions.c
    statement = select(t.data_versions).where(v.made_at >= made_since).order_by(v.sequence).limit(1)
    row = conn.execute(statement).first()
    return None if row is None else version_from_row(row._mapping)


def record_version(
    conn: Connection,
    *,
    made_at: dt.datetime,
    datasets: Iterable[str],
    changes: Iterable[SchoolChange],
    retain_since: dt.datetime,
    restart: bool,
) -> DataVersion:
    sequence = bump_counter(conn)
    made = DataVersion(sequence=sequence, made_at=made_at, datasets=tuple(datasets))
    v, c = t.data_versions.c, t.data_changes.c
    gone = select(v.sequence) if restart else select(v.sequence).where(v.made_at < retain_since)
    conn.execute(delete(t.data_changes).where(c.sequence.in_(gone.scalar_subquery())))
    conn.execute(delete(t.data_versions).where(v.sequence.in_(gone.scalar_subquery())))
    conn.execute(
        insert(t.data_versions),
        {"sequence": sequence, "made_at": made_at, "datasets": ",".join(made.datasets)},
    )
    rows = [change_row(sequence, change) for change in changes]
    if rows:
        conn.execute(insert(t.data_changes), rows)
    return made


def change_row(sequence: int, change: SchoolChange) -> dict[str, Any]:
    where = change.where
    return {
        "sequence": sequence,
        "urn": change.urn.value,
        "kind": change.kind.value,
        "fields": ",".join(change.fields) if change.fields else None,
        "key_stage": change.key_stage,
        "year": change.year,
        "inspection_date": change.inspection_date,
        "linked_urn": None if change.linked_urn is None else change.linked_urn.value,
        "link_type": change.link_type,
        "la_code": where.la_code,
        "la_name": where.la_name,
        # The keys ChangeFilter compares, computed with the domain's own normalise().
        "la_code_key": (where.la_code or "").lower(),
        "la_name_key": normalise(where.la_name or ""),
        "phase": None if where.phase is None else where.phase.value,
    }


def listed_from_row(row: Row) -> ListedChange:
    fields, linked, phase = row["fields"], row["linked_urn"], row["phase"]
    made = DataVersion(sequence=int(row["sequence"]), made_at=row["made_at"])
    return ListedChange(
        version=made.id,
        made_at=made.made_at,
        change=SchoolChange(
            urn=Urn(row["urn"]),
            kind=ChangeKind(row["kind"]),
            fields=tuple(fields.split(",")) if fields else (),
            key_stage=row["key_stage"],
            year=row["year"],
            inspection_date=row["inspection_date"],
            linked_urn=None if linked is None else Urn(linked),
            link_type=row["link_type"],
            where=Whereabouts(
                la_code=row["la_code"],
                la_name=row["la_name"],
                phase=None if phase is None else Phase(phase),
            ),
        ),
    )


def changes(
    conn: Connection, *, after: int, upto: int, wanted: ChangeFilter, offset: int, limit: int
) -> tuple[int, list[ListedChange]]:
    c = t.data_changes.c
    conditions = [c.sequence > after, c.sequence <= upto]
    if wanted.kind is not None:
        conditions.append(c.kind == wanted.kind.value)
    if wanted.phase is not None:
        conditions.append(c.phase == wanted.phase.value)
    if wanted.local_authority is not None:
        key = wanted.local_authority
        conditions.append(or_(c.la_name_key == key, c.la_code_key == key))
    matching = and_(*conditions)
    counted = select(func.count()).select_from(t.data_changes).where(matching)
    total = int(conn.execute(counted).scalar_one())
    page: Select[Any] = (
        select(t.data_changes, t.data_versions.c.made_at)
        .join(t.data_versions, t.data_versions.c.sequence == c.sequence)
        .where(matching)
        .order_by(c.sequence, c.urn, c.id)
        .offset(offset)
        .limit(limit)
    )
    return total, [listed_from_row(row) for row in conn.execute(page).mappings()]
