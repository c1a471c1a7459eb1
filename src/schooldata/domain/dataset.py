"""Provenance: every imported dataset is recorded with its publisher, licence and dates."""

from __future__ import annotations

import datetime as dt

from attrs import Factory, field, frozen


@frozen(kw_only=True)
class DatasetRecord:
    """What the API reports in `meta.sources` and `meta.data_updated_at`.

    `name` is the dataset kind (`gias_establishments`, `codepoint_open`, ...); one record per
    kind is current, replaced by each successful import of that kind. `synthetic` marks invented
    data; `demo` marks everything the bundled demo loaded (its synthetic schools and results, and
    the real but demo-shaped postcode subset beside them): the demo is never served together
    with real school data.
    """

    name: str
    title: str
    publisher: str
    licence: str
    attribution: str
    url: str | None
    extract_date: dt.date | None
    imported_at: dt.datetime
    period: str | None = None
    cadence: str | None = None
    coverage: str | None = None
    row_count: int = 0
    synthetic: bool = False
    demo: bool = False


@frozen
class ImportReport:
    """The outcome of one import: counts, and each rejected row with its reason.

    Every row read is imported, skipped or rejected. A row may give several records (a
    results row holds several measures; an Ofsted row up to three inspections), so the
    records stored are counted apart from the rows."""

    dataset: str
    rows_read: int
    rows_imported: int
    rejects: tuple[tuple[int, str], ...] = ()
    skipped: int = 0
    removed_demo: tuple[str, ...] = ()  # the demo datasets this (real) import removed
    records_stored: int = field(default=Factory(lambda self: self.rows_imported, takes_self=True))

    @property
    def rows_rejected(self) -> int:
        return len(self.rejects)


@frozen(kw_only=True)
class SourceCheck:
    """What `schooldata refresh` last fetched for a dataset, and when it last looked.

    Kept beside the dataset record, not in it: a check that finds the publisher's file
    unchanged moves `checked_at` (and the HTTP validators) without changing the served data
    or its version. `changed_at` is when a new file was last imported from `source_url`. Any
    other import of the dataset (by hand) forgets it: the data served no longer came from
    there."""

    dataset: str
    source_url: str  # as asked for: a dated GIAS file, or the Code-Point address before redirects
    publisher_date: dt.date | None
    sha256: str
    checked_at: dt.datetime
    changed_at: dt.datetime
    etag: str | None = None
    last_modified: str | None = None
