"""Which columns each list answer shows: a few in the table, the stated order in CSV.

The CSV column orders are part of the CLI's contract (docs/cli.md lists them): a column is
always present, empty where the value is null or does not apply (a distance without an
origin), so scripts can rely on the header. The orders of the API's lists are
`entrypoints.tables`: the same columns REST writes for `Accept: text/csv`.
"""

from __future__ import annotations

from schooldata.entrypoints.cli.output import Column, RowsView
from schooldata.entrypoints.tables import (
    AUTHORITIES_COLUMNS,
    CHANGES_COLUMNS,
    FRESHNESS_COLUMNS,
    RANKINGS_COLUMNS,
    SCHOOLS_COLUMNS,
    SEARCH_COLUMNS,
)

ORGS_CSV = ("organisation", "name", "plan")

KEYS_CSV = ("display_prefix", "organisation", "name", "kind", "created_at", "revoked_at")


def search_view(*, with_distance: bool) -> RowsView:
    columns = [
        Column("urn", "URN"),
        Column("name", "Name"),
        Column("phase", "Phase"),
        Column("type", "Type"),
        Column("localAuthority", "Local authority"),
    ]
    if with_distance:
        columns.append(Column("distanceMiles", "Miles"))
    columns += [Column("ofstedRating", "Ofsted"), Column("svcScore", "Score")]
    return RowsView(table=columns, csv=SEARCH_COLUMNS)


def schools_view(*, with_distance: bool) -> RowsView:
    columns = [
        Column("urn", "URN"),
        Column("name", "Name"),
        Column("phase", "Phase"),
        Column("type", "Type"),
        Column("local_authority", "Local authority"),
        Column("postcode", "Postcode"),
    ]
    if with_distance:
        columns.append(Column("distance_miles", "Miles"))
    columns += [Column("ofsted_rating", "Ofsted"), Column("svc_score", "Score")]
    return RowsView(table=columns, csv=SCHOOLS_COLUMNS)


PROFILES = RowsView(
    table=(
        Column("urn", "URN"),
        Column("name", "Name"),
        Column("phase", "Phase"),
        Column("type", "Type"),
        Column("local_authority", "Local authority"),
        Column("postcode", "Postcode"),
        Column("ofsted_rating", "Ofsted"),
        Column("svc_score", "Score"),
    ),
    csv=None,  # every field of every profile (links are numbered: `links.0.urn`)
)

CHANGES = RowsView(
    table=(
        Column("version", "Version"),
        Column("urn", "URN"),
        Column("kind", "Kind"),
        Column("fields", "Fields"),
        Column("key_stage", "Key stage"),
        Column("year", "Year"),
        Column("inspection_date", "Inspected"),
        Column("linked_urn", "Linked URN"),
        Column("link_type", "Link"),
    ),
    csv=CHANGES_COLUMNS,
)

AUTHORITIES = RowsView(
    table=(Column("code", "Code"), Column("name", "Name"), Column("open_schools", "Open schools")),
    csv=AUTHORITIES_COLUMNS,
)

FRESHNESS = RowsView(
    table=(
        Column("dataset", "Dataset"),
        Column("period", "Period"),
        Column("cadence", "Cadence"),
        Column("extract_date", "Extract date"),
        Column("imported_at", "Imported at"),
        Column("rows", "Rows"),
        Column("synthetic", "Synthetic"),
        Column("checked_at", "Checked at"),
        Column("changed_at", "Changed at"),
    ),
    csv=FRESHNESS_COLUMNS,
)

KEYS = RowsView(
    table=(
        Column("display_prefix", "Prefix"),
        Column("organisation", "Organisation"),
        Column("name", "Name"),
        Column("kind", "Kind"),
        Column("created_at", "Created"),
        Column("revoked_at", "Revoked"),
    ),
    csv=KEYS_CSV,
)

RANKINGS = RowsView(
    table=(
        Column("rank", "Rank"),
        Column("urn", "URN"),
        Column("name", "Name"),
        Column("local_authority", "Local authority"),
        Column("value", "Value"),
        Column("period", "Period"),
    ),
    csv=RANKINGS_COLUMNS,
)

ORGS = RowsView(
    table=(Column("organisation", "Organisation"), Column("name", "Name"), Column("plan", "Plan")),
    csv=ORGS_CSV,
)

ANY = RowsView(table=(), csv=None)
"""Columns from every row's keys, in the order first seen (answers without a fixed shape)."""
