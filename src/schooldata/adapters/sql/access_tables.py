"""Tables of the commercial tier: organisations, API keys (hashes only), quota counters."""

from __future__ import annotations

import sqlalchemy as sa

from schooldata.adapters.sql.tables import metadata

UTC_TIMESTAMP = sa.DateTime(timezone=True)

organisations = sa.Table(
    "organisations",
    metadata,
    sa.Column("slug", sa.Text(), primary_key=True),
    sa.Column("name", sa.Text(), nullable=False),
    sa.Column("plan", sa.Text(), nullable=False),
)

api_keys = sa.Table(
    "api_keys",
    metadata,
    # The HMAC of the key: the key itself is never stored.
    sa.Column("key_hash", sa.Text(), primary_key=True),
    sa.Column("display_prefix", sa.Text(), nullable=False, index=True),
    sa.Column(
        "organisation", sa.Text(), sa.ForeignKey("organisations.slug"), nullable=False, index=True
    ),
    sa.Column("name", sa.Text(), nullable=False),
    sa.Column("kind", sa.Text(), nullable=False),
    sa.Column("created_at", UTC_TIMESTAMP, nullable=False),
    sa.Column("revoked_at", UTC_TIMESTAMP, nullable=True),
)

usage_quota = sa.Table(
    "usage_quota",
    metadata,
    sa.Column("organisation", sa.Text(), primary_key=True),
    sa.Column("period", sa.Text(), primary_key=True),
    sa.Column("used", sa.BigInteger(), nullable=False),
)
