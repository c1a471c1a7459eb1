"""Initial schema: schools and search tokens, postcodes, links, measures, inspections, datasets.

Revision ID: 0001
Revises:
Create Date: 2025-11-22

Written out in full rather than generated from tables.py, so that later edits to tables.py
never change what this revision did.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ORDERED_TEXT = sa.Text().with_variant(postgresql.TEXT(collation="C"), "postgresql")
ROW_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

_TEXT_FIELDS = (
    "la_code", "la_name", "establishment_number", "type_name", "type_group", "gias_phase",
)  # fmt: skip
_MORE_TEXT_FIELDS = (
    "gender", "religious_character", "admissions_policy", "boarders", "nursery_provision",
    "official_sixth_form",
)  # fmt: skip
_ADDRESS_FIELDS = (
    "trust_name", "street", "locality", "address3", "town", "county", "postcode", "website",
    "telephone", "region", "district", "ward", "parliamentary_constituency", "urban_rural",
    "ukprn", "uprn",
)  # fmt: skip


def _text(*names: str) -> list[sa.Column[str]]:
    return [sa.Column(name, sa.Text()) for name in names]


def upgrade() -> None:
    op.create_table(
        "schools",
        sa.Column("urn", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("name_sort", sa.Text(), nullable=False),
        sa.Column("la_name_key", sa.Text(), nullable=False),
        sa.Column("la_code_key", sa.Text(), nullable=False),
        sa.Column("phase", sa.Text()),
        sa.Column("status", sa.Text(), nullable=False),
        *_text(*_TEXT_FIELDS),
        sa.Column("statutory_low_age", sa.Integer()),
        sa.Column("statutory_high_age", sa.Integer()),
        *_text(*_MORE_TEXT_FIELDS),
        sa.Column("capacity", sa.Integer()),
        sa.Column("pupils", sa.Integer()),
        sa.Column("percentage_fsm", sa.Double()),
        *_text(*_ADDRESS_FIELDS),
        sa.Column("open_date", sa.Date()),
        sa.Column("latitude", sa.Double()),
        sa.Column("longitude", sa.Double()),
        sa.Column("ofsted_grade", sa.SmallInteger()),
        sa.Column("ofsted_date", sa.Date()),
        sa.Column("head_name", sa.Text()),
        sa.Column("inspectorate_name", sa.Text()),
        sa.Column("svc_score", sa.Double()),
        sa.Column("score_suppressed_reason", sa.Text()),
        sa.PrimaryKeyConstraint("urn", name="pk_schools"),
    )
    op.create_index("ix_schools_latitude_longitude", "schools", ["latitude", "longitude"])
    op.create_index("ix_schools_phase", "schools", ["phase"])
    op.create_index("ix_schools_la_name_key", "schools", ["la_name_key"])
    op.create_index("ix_schools_la_code_key", "schools", ["la_code_key"])

    op.create_table(
        "school_tokens",
        sa.Column("token", ORDERED_TEXT, nullable=False),
        sa.Column("urn", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("token", "urn", name="pk_school_tokens"),
        sqlite_with_rowid=False,
    )

    op.create_table(
        "postcodes",
        sa.Column("compact", ORDERED_TEXT, nullable=False),
        sa.Column("source", ORDERED_TEXT, nullable=False),
        sa.Column("outward", ORDERED_TEXT, nullable=False),
        sa.Column("latitude", sa.Double(), nullable=False),
        sa.Column("longitude", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("compact", "source", name="pk_postcodes"),
        sqlite_with_rowid=False,
    )

    op.create_table(
        "outward_codes",
        sa.Column("outward", sa.Text(), nullable=False),
        sa.Column("latitude", sa.Double(), nullable=False),
        sa.Column("longitude", sa.Double(), nullable=False),
        sa.Column("postcode_count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("outward", name="pk_outward_codes"),
    )

    op.create_table(
        "establishment_links",
        sa.Column("id", ROW_ID, autoincrement=True, nullable=False),
        sa.Column("urn", sa.Integer(), nullable=False),
        sa.Column("linked_urn", sa.Integer(), nullable=False),
        sa.Column("linked_name", sa.Text()),
        sa.Column("link_type", sa.Text(), nullable=False),
        sa.Column("established", sa.Date()),
        sa.PrimaryKeyConstraint("id", name="pk_establishment_links"),
    )
    op.create_index("ix_establishment_links_urn", "establishment_links", ["urn"])

    op.create_table(
        "measures",
        sa.Column("id", ROW_ID, autoincrement=True, nullable=False),
        sa.Column("urn", sa.Integer(), nullable=False),
        sa.Column("dataset", ORDERED_TEXT, nullable=False),
        sa.Column("record_dataset", sa.Text()),
        sa.Column("period", sa.Text(), nullable=False),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("value", sa.Double()),
        sa.Column("reason", sa.Text()),
        sa.Column("cohort", sa.Integer()),
        sa.PrimaryKeyConstraint("id", name="pk_measures"),
    )
    op.create_index("ix_measures_urn", "measures", ["urn"])
    op.create_index("ix_measures_code", "measures", ["code"])
    op.create_index("ix_measures_dataset", "measures", ["dataset"])

    op.create_table(
        "inspections",
        sa.Column("id", ROW_ID, autoincrement=True, nullable=False),
        sa.Column("urn", sa.Integer(), nullable=False),
        sa.Column("dataset", ORDERED_TEXT, nullable=False),
        sa.Column("inspection_number", sa.Text()),
        sa.Column("framework", sa.Text(), nullable=False),
        sa.Column("inspection_date", sa.Date(), nullable=False),
        sa.Column("publication_date", sa.Date()),
        sa.Column("inspection_type", sa.Text()),
        sa.Column("overall_effectiveness", sa.SmallInteger()),
        sa.Column("safeguarding", sa.Boolean()),
        sa.Column("judgements", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_inspections"),
    )
    op.create_index("ix_inspections_urn", "inspections", ["urn"])
    op.create_index("ix_inspections_dataset", "inspections", ["dataset"])

    op.create_table(
        "datasets",
        sa.Column("name", ORDERED_TEXT, nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("publisher", sa.Text(), nullable=False),
        sa.Column("licence", sa.Text(), nullable=False),
        sa.Column("attribution", sa.Text(), nullable=False),
        sa.Column("url", sa.Text()),
        sa.Column("extract_date", sa.Date()),
        sa.Column("imported_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("period", sa.Text()),
        sa.Column("cadence", sa.Text()),
        sa.Column("coverage", sa.Text()),
        sa.Column("row_count", sa.Integer(), nullable=False),
        sa.Column("synthetic", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_datasets"),
    )

    version = op.create_table(
        "data_version",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("counter", sa.BigInteger(), nullable=False),
        sa.Column("stamp", sa.Text(), nullable=False),
        sa.CheckConstraint("id = 1", name="ck_data_version_single_row"),
        sa.PrimaryKeyConstraint("id", name="pk_data_version"),
    )
    op.bulk_insert(version, [{"id": 1, "counter": 0, "stamp": "initial"}])


def downgrade() -> None:
    for table in (
        "data_version", "datasets", "inspections", "measures", "establishment_links", "outward_codes",
        "postcodes", "school_tokens", "schools",
    ):  # fmt: skip
        op.drop_table(table)
