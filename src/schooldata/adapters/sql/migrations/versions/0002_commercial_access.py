"""Commercial tier: organisations, API key hashes, durable monthly quota counters.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UTC_TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "organisations",
        sa.Column("slug", sa.Text(), primary_key=True),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("plan", sa.Text(), nullable=False),
    )
    op.create_table(
        "api_keys",
        sa.Column("key_hash", sa.Text(), primary_key=True),
        sa.Column("display_prefix", sa.Text(), nullable=False),
        sa.Column("organisation", sa.Text(), sa.ForeignKey("organisations.slug"), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("created_at", UTC_TIMESTAMP, nullable=False),
        sa.Column("revoked_at", UTC_TIMESTAMP, nullable=True),
    )
    op.create_index("ix_api_keys_display_prefix", "api_keys", ["display_prefix"])
    op.create_index("ix_api_keys_organisation", "api_keys", ["organisation"])
    op.create_table(
        "usage_quota",
        sa.Column("organisation", sa.Text(), primary_key=True),
        sa.Column("period", sa.Text(), primary_key=True),
        sa.Column("used", sa.BigInteger(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("usage_quota")
    op.drop_index("ix_api_keys_organisation", table_name="api_keys")
    op.drop_index("ix_api_keys_display_prefix", table_name="api_keys")
    op.drop_table("api_keys")
    op.drop_table("organisations")
