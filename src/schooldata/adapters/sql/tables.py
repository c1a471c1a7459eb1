"""The schema as SQLAlchemy Core tables (the migrations create it; this module describes it).

Later migrations add organisations, api_keys and usage counters; nothing here assumes they
do not exist.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Date,
    DateTime,
    Dialect,
    Double,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    SmallInteger,
    Table,
    Text,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.types import TypeDecorator

# Constraint names are stable across backends, so later migrations (SQLite batch mode
# included) can drop or alter constraints by name.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING_CONVENTION)

# Code-point order, as Python compares strings: token prefix ranges (`>= 'st' AND < 'st\uffff'`)
# and "the last source wins" must not depend on the server's locale. SQLite's default BINARY
# collation already is code-point order. (On PostgreSQL it is also the fastest to sort and
# index, which matters for 1.75M postcodes.)
OrderedText = Text().with_variant(postgresql.TEXT(collation="C"), "postgresql")

# SQLite has no 64-bit autoincrement but INTEGER PRIMARY KEY (the rowid).
RowId = BigInteger().with_variant(Integer(), "sqlite")

PREFIX_END = "\uffff"
"""Appended to a token prefix, the exclusive upper bound of its range scan (tokens are ASCII)."""


class UtcDateTime(TypeDecorator[dt.datetime]):
    """An aware UTC datetime on every backend (SQLite would otherwise return it naive)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        # The clock port gives aware UTC; a naive value is taken to be UTC, not local time.
        value = value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        assert isinstance(value, dt.datetime)
        if value.tzinfo is None:
            return value.replace(tzinfo=dt.UTC)
        return value.astimezone(dt.UTC)


schools = Table(
    "schools",
    metadata,
    Column("urn", Integer, primary_key=True, autoincrement=False),
    Column("name", Text, nullable=False),
    # Derived keys, computed in Python with the domain's own normalise(), so SQL prefilters
    # select exactly what domain.search would.
    Column("name_sort", Text, nullable=False),
    Column("la_name_key", Text, nullable=False),
    Column("la_code_key", Text, nullable=False),
    Column("phase", Text),
    Column("status", Text, nullable=False),
    Column("la_code", Text),
    Column("la_name", Text),
    Column("establishment_number", Text),
    Column("type_name", Text),
    Column("type_group", Text),
    Column("gias_phase", Text),
    Column("statutory_low_age", Integer),
    Column("statutory_high_age", Integer),
    Column("gender", Text),
    Column("religious_character", Text),
    Column("admissions_policy", Text),
    Column("boarders", Text),
    Column("nursery_provision", Text),
    Column("official_sixth_form", Text),
    Column("capacity", Integer),
    Column("pupils", Integer),
    Column("percentage_fsm", Double),
    Column("trust_name", Text),
    Column("street", Text),
    Column("locality", Text),
    Column("address3", Text),
    Column("town", Text),
    Column("county", Text),
    Column("postcode", Text),
    Column("website", Text),
    Column("telephone", Text),
    Column("region", Text),
    Column("district", Text),
    Column("ward", Text),
    Column("parliamentary_constituency", Text),
    Column("urban_rural", Text),
    Column("ukprn", Text),
    Column("uprn", Text),
    Column("open_date", Date),
    Column("latitude", Double),
    Column("longitude", Double),
    Column("ofsted_grade", SmallInteger),
    Column("ofsted_date", Date),
    # Never served; stored so the record round-trips exactly as imported (see licensing).
    Column("head_name", Text),
    Column("inspectorate_name", Text),
    Column("svc_score", Double),
    Column("score_suppressed_reason", Text),
    Index(None, "latitude", "longitude"),
    Index(None, "phase"),
    Index(None, "la_name_key"),
    Index(None, "la_code_key"),
)

# One row per distinct token of a school's name, authority and type. The primary key leads
# with the token, so it is the index for prefix range scans, and it covers the urn.
# No foreign key to schools: the rows are derived from schools by the same statement batch
# that writes them, and its per-row checks made re-imports on PostgreSQL take minutes.
school_tokens = Table(
    "school_tokens",
    metadata,
    Column("token", OrderedText, nullable=False),
    Column("urn", Integer, nullable=False),
    PrimaryKeyConstraint("token", "urn"),
    sqlite_with_rowid=False,
)

# Keyed by (compact, source) so that several sources can hold the same postcode, as in the
# in-memory store: the source that sorts last wins. `outward` is computed in Python with the
# domain's outward_of(), so SQL groups exactly as the domain splits.
postcodes = Table(
    "postcodes",
    metadata,
    Column("compact", OrderedText, nullable=False),
    Column("source", OrderedText, nullable=False),
    Column("outward", OrderedText, nullable=False),
    Column("latitude", Double, nullable=False),
    Column("longitude", Double, nullable=False),
    PrimaryKeyConstraint("compact", "source"),
    sqlite_with_rowid=False,
)

outward_codes = Table(
    "outward_codes",
    metadata,
    Column("outward", Text, primary_key=True),
    Column("latitude", Double, nullable=False),
    Column("longitude", Double, nullable=False),
    Column("postcode_count", Integer, nullable=False),
)

establishment_links = Table(
    "establishment_links",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=True),
    Column("urn", Integer, nullable=False),
    Column("linked_urn", Integer, nullable=False),
    Column("linked_name", Text),
    Column("link_type", Text, nullable=False),
    Column("established", Date),
    Index(None, "urn"),
)

measures = Table(
    "measures",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=True),
    Column("urn", Integer, nullable=False),
    # The import the record belongs to (replace_measures replaces by it).
    Column("dataset", OrderedText, nullable=False),
    # The record's own `dataset` when a parser set it differently; NULL means the same.
    Column("record_dataset", Text),
    Column("period", Text, nullable=False),
    Column("code", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("value", Double),
    Column("reason", Text),
    Column("cohort", Integer),
    Index(None, "urn"),
    Index(None, "code"),
    Index(None, "dataset"),
)

# Ofsted inspections under either framework. The framework-specific judgements (report-card
# areas or graded sub-judgements) are one JSON object: they are read whole, never queried.
inspections = Table(
    "inspections",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=True),
    Column("urn", Integer, nullable=False),
    Column("dataset", OrderedText, nullable=False),
    Column("inspection_number", Text),
    Column("framework", Text, nullable=False),
    Column("inspection_date", Date, nullable=False),
    Column("publication_date", Date),
    Column("inspection_type", Text),
    Column("overall_effectiveness", SmallInteger),
    Column("safeguarding", Boolean),
    Column("judgements", Text, nullable=False),
    Index(None, "urn"),
    Index(None, "dataset"),
)

datasets = Table(
    "datasets",
    metadata,
    Column("name", OrderedText, primary_key=True),
    Column("title", Text, nullable=False),
    Column("publisher", Text, nullable=False),
    Column("licence", Text, nullable=False),
    Column("attribution", Text, nullable=False),
    Column("url", Text),
    Column("extract_date", Date),
    Column("imported_at", UtcDateTime, nullable=False),
    Column("period", Text),
    Column("cadence", Text),
    Column("coverage", Text),
    Column("row_count", Integer, nullable=False),
    Column("synthetic", Boolean, nullable=False),
    Column("demo", Boolean, nullable=False),
)

# What `refresh` last fetched for a dataset (domain.dataset.SourceCheck). A check that finds
# the file unchanged updates its row outside any data transaction: no data version bump.
dataset_sources = Table(
    "dataset_sources",
    metadata,
    Column("dataset", OrderedText, primary_key=True),
    Column("source_url", Text, nullable=False),
    Column("publisher_date", Date),
    Column("sha256", Text, nullable=False),
    Column("etag", Text),
    Column("last_modified", Text),
    Column("checked_at", UtcDateTime, nullable=False),
    Column("changed_at", UtcDateTime, nullable=False),
)

# What the register lists of every establishment, served or not (a GIAS file lists closed
# ones too): the facts a link shows of the school it leads to. Replaced by each register import.
establishments = Table(
    "establishments",
    metadata,
    Column("urn", Integer, primary_key=True, autoincrement=False),
    Column("name", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("open_date", Date),
    Column("close_date", Date),
)

# The release of each year a measures dataset holds: provisional, revised or final (NULL: the
# file did not say) and the publisher's release date. Replaced with the year's figures.
measure_releases = Table(
    "measure_releases",
    metadata,
    Column("dataset", OrderedText, nullable=False),
    Column("period", OrderedText, nullable=False),
    Column("status", Text),
    Column("released", Date),
    PrimaryKeyConstraint("dataset", "period"),
)

# Each data version: its sequence number (the `data_version` counter it committed as), when
# it was made and the datasets whose import made it (names joined by commas).
data_versions = Table(
    "data_versions",
    metadata,
    Column("sequence", BigInteger, primary_key=True, autoincrement=False),
    Column("made_at", UtcDateTime, nullable=False),
    Column("datasets", Text, nullable=False),
)

# What each version changed, school by school (domain.changes), in the order recorded (`id`),
# with where the school is (its authority, as listed and as the filters compare it, and its
# API phase) so changes can be filtered after a school has gone.
data_changes = Table(
    "data_changes",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=True),
    Column("sequence", BigInteger, nullable=False),
    Column("urn", Integer, nullable=False),
    Column("kind", Text, nullable=False),
    Column("fields", Text),  # updated: the field names, joined by commas
    Column("key_stage", Text),
    Column("year", Text),
    Column("inspection_date", Date),
    Column("linked_urn", Integer),
    Column("link_type", Text),
    Column("la_code", Text),
    Column("la_name", Text),
    Column("la_code_key", Text),
    Column("la_name_key", Text),
    Column("phase", Text),
    Index(None, "sequence", "urn", "id"),
)

# A single row, bumped by every committed write transaction: `version()` for caches and ETags.
# The random stamp keeps versions distinct across databases rebuilt from scratch.
data_version = Table(
    "data_version",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("counter", BigInteger, nullable=False),
    Column("stamp", Text, nullable=False),
    CheckConstraint("id = 1", name="single_row"),
)

# Not part of the schema: scratch space for one postcode load, created and dropped inside the
# importing transaction. Loading here first lets the database sort and de-duplicate the rows
# (the last occurrence wins, as with a dict) before one ordered insert into `postcodes`.
scratch = MetaData()
postcode_load = Table(
    "postcode_load",
    scratch,
    Column("seq", BigInteger, nullable=False),
    Column("compact", OrderedText, nullable=False),
    Column("outward", OrderedText, nullable=False),
    Column("latitude", Double, nullable=False),
    Column("longitude", Double, nullable=False),
    prefixes=["TEMPORARY"],
)
