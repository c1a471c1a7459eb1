"""What `schooldata refresh` last fetched for each dataset it keeps current.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-28

A table of its own beside `datasets`: a check that finds the publisher's file unchanged writes
`checked_at` here without touching the served data (or bumping the data version).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ORDERED_TEXT = sa.Text().with_variant(postgresql.TEXT(collation="C"), "postgresql")
UTC_TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "dataset_sources",
        sa.Column("dataset", ORDERED_TEXT, primary_key=True),
        sa.Column("source_url", sa.Text(), nullable=False),
        sa.Column("publisher_date", sa.Date()),
        sa.Column("sha256", sa.Text(), nullable=False),
        sa.Column("etag", sa.Text()),
        sa.Column("last_modified", sa.Text()),
        sa.Column("checked_at", UTC_TIMESTAMP, nullable=False),
        sa.Column("changed_at", UTC_TIMESTAMP, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("dataset_sources")
