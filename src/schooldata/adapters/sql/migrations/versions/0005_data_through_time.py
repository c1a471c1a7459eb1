"""Data through time: data versions and the changes each made, what the register lists of
every establishment (closed ones included), and the release of each results year.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-07

A database that already holds data gets its first version here: the data as it stands, made
when its newest dataset was imported, as the sequence number its `data_version` counter has
reached. It records no changes (nothing came before it); the next import records its own.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ORDERED_TEXT = sa.Text().with_variant(postgresql.TEXT(collation="C"), "postgresql")
UTC_TIMESTAMP = sa.DateTime(timezone=True)
ROW_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "establishments",
        sa.Column("urn", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("open_date", sa.Date()),
        sa.Column("close_date", sa.Date()),
        sa.PrimaryKeyConstraint("urn", name="pk_establishments"),
    )
    op.create_table(
        "measure_releases",
        sa.Column("dataset", ORDERED_TEXT, nullable=False),
        sa.Column("period", ORDERED_TEXT, nullable=False),
        sa.Column("status", sa.Text()),
        sa.Column("released", sa.Date()),
        sa.PrimaryKeyConstraint("dataset", "period", name="pk_measure_releases"),
    )
    op.create_table(
        "data_versions",
        sa.Column("sequence", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("made_at", UTC_TIMESTAMP, nullable=False),
        sa.Column("datasets", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("sequence", name="pk_data_versions"),
    )
    op.create_table(
        "data_changes",
        sa.Column("id", ROW_ID, autoincrement=True, nullable=False),
        sa.Column("sequence", sa.BigInteger(), nullable=False),
        sa.Column("urn", sa.Integer(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("fields", sa.Text()),
        sa.Column("key_stage", sa.Text()),
        sa.Column("year", sa.Text()),
        sa.Column("inspection_date", sa.Date()),
        sa.Column("linked_urn", sa.Integer()),
        sa.Column("link_type", sa.Text()),
        sa.Column("la_code", sa.Text()),
        sa.Column("la_name", sa.Text()),
        sa.Column("la_code_key", sa.Text()),
        sa.Column("la_name_key", sa.Text()),
        sa.Column("phase", sa.Text()),
        sa.PrimaryKeyConstraint("id", name="pk_data_changes"),
    )
    op.create_index("ix_data_changes_sequence_urn_id", "data_changes", ["sequence", "urn", "id"])
    _first_version()


def _first_version() -> None:
    """The data already held, as one version (none when the database holds nothing)."""
    conn = op.get_bind()
    datasets = sa.table(
        "datasets", sa.column("name", sa.Text()), sa.column("imported_at", UTC_TIMESTAMP)
    )
    counter = sa.table("data_version", sa.column("counter", sa.BigInteger()))
    names = sorted(conn.execute(sa.select(datasets.c.name)).scalars())
    if not names:
        return
    made_at = conn.execute(
        sa.select(sa.func.max(datasets.c.imported_at)).select_from(datasets)
    ).scalar()
    sequence = conn.execute(sa.select(counter.c.counter)).scalar() or 0
    versions = sa.table(
        "data_versions",
        sa.column("sequence", sa.BigInteger()),
        sa.column("made_at", UTC_TIMESTAMP),
        sa.column("datasets", sa.Text()),
    )
    conn.execute(
        versions.insert().values(sequence=sequence, made_at=made_at, datasets=",".join(names))
    )


def downgrade() -> None:
    op.drop_index("ix_data_changes_sequence_urn_id", table_name="data_changes")
    op.drop_table("data_changes")
    op.drop_table("data_versions")
    op.drop_table("measure_releases")
    op.drop_table("establishments")
