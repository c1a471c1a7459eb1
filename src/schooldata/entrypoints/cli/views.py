"""Which columns each list answer shows: a few in the table, the stated order in CSV.

The CSV column orders are part of the CLI's contract (docs/cli.md lists them): a column is
always present, empty where the value is null or does not apply (a distance without an
origin), so scripts can rely on the header.
"""

from __future__ import annotations

from schooldata.entrypoints.cli.output import Column, RowsView

SEARCH_CSV = (
    "urn",
    "name",
    "phase",
    "type",
    "localAuthority",
    "location.latitude",
    "location.longitude",
    "distanceMiles",
    "ofstedRating",
    "svcScore",
    "scoreSuppressed",
    "url",
)

SCHOOLS_CSV = (
    "urn",
    "name",
    "phase",
    "type",
    "local_authority",
    "local_authority_code",
    "town",
    "postcode",
    "location.latitude",
    "location.longitude",
    "distance_miles",
    "gender",
    "statutory_low_age",
    "statutory_high_age",
    "pupils",
    "ofsted_rating",
    "ofsted_historic_grade.grade",
    "ofsted_historic_grade.label",
    "ofsted_historic_grade.inspection_date",
    "ofsted_historic_grade.comparable",
    "svc_score",
    "score_suppressed",
    "score_suppressed_reason",
    "url",
)

AUTHORITIES_CSV = ("code", "name", "open_schools")

FRESHNESS_CSV = (
    "dataset",
    "title",
    "publisher",
    "period",
    "cadence",
    "coverage",
    "extract_date",
    "imported_at",
    "rows",
    "synthetic",
    "source_url",
    "checked_at",
    "changed_at",
)

RANKINGS_CSV = (
    "rank",
    "urn",
    "name",
    "phase",
    "type",
    "local_authority",
    "metric",
    "value",
    "period",
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
    return RowsView(table=columns, csv=SEARCH_CSV)


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
    return RowsView(table=columns, csv=SCHOOLS_CSV)


AUTHORITIES = RowsView(
    table=(Column("code", "Code"), Column("name", "Name"), Column("open_schools", "Open schools")),
    csv=AUTHORITIES_CSV,
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
    csv=FRESHNESS_CSV,
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
    csv=RANKINGS_CSV,
)

ORGS = RowsView(
    table=(Column("organisation", "Organisation"), Column("name", "Name"), Column("plan", "Plan")),
    csv=ORGS_CSV,
)

ANY = RowsView(table=(), csv=None)
"""Columns from the first row's keys, in the data's own order (answers without a fixed shape)."""
