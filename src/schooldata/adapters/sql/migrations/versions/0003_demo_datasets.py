"""Datasets say whether the bundled demo loaded them (real and demo data are never mixed).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The title the demo loader gave its real-but-demo-shaped Code-Point subset.
DEMO_POSTCODES_TITLE = "OS Code-Point Open (subset:%"


def upgrade() -> None:
    with op.batch_alter_table("datasets") as batch:
        batch.add_column(sa.Column("demo", sa.Boolean(), nullable=False, server_default=sa.false()))
    # A database built by an earlier demo: everything it loaded is the demo's.
    datasets = sa.table(
        "datasets",
        sa.column("demo", sa.Boolean()),
        sa.column("synthetic", sa.Boolean()),
        sa.column("title", sa.Text()),
    )
    op.execute(
        datasets.update()
        .where(sa.or_(datasets.c.synthetic, datasets.c.title.like(DEMO_POSTCODES_TITLE)))
        .values(demo=True)
    )


def downgrade() -> None:
    with op.batch_alter_table("datasets") as batch:
        batch.drop_column("demo")
