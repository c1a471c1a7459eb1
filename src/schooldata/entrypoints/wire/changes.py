"""The changes since a data version: one item per change, and the page's `meta` (which
versions the page lists changes between)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from msgspec import UNSET, Struct, UnsetType
from msgspec import Meta as Constraint

from schooldata.application.changes import ChangesPage
from schooldata.domain.changes import CHANGE_KINDS, ListedChange
from schooldata.entrypoints.wire.common import Instant, timestamp
from schooldata.entrypoints.wire.envelope import DataVersionId, Pagination, Source
from schooldata.entrypoints.wire.records import commercial_key

ChangeKindName = Annotated[str, Constraint(extra_json_schema={"enum": list(CHANGE_KINDS)})]


class Change(Struct, kw_only=True):
    """One change of one school in one data version. `fields` (updated: the profile's names
    of the fields that changed), `key_stage` and `year` (results_added), `inspection_date`
    (inspection_added), `linked_urn` and `link_type` (linked) are sent only with their kind."""

    version: DataVersionId
    version_time: Instant
    urn: int
    kind: ChangeKindName
    fields: list[str] | UnsetType = UNSET
    key_stage: str | UnsetType = UNSET
    year: str | UnsetType = UNSET
    inspection_date: dt.date | UnsetType = UNSET
    linked_urn: int | UnsetType = UNSET
    link_type: str | UnsetType = UNSET


class ChangesMeta(Struct, kw_only=True):
    """About one page of changes: the list's `meta`, and the versions it lists changes
    between: after `since`, up to `until` (the next sync's `since`)."""

    request_id: str
    data_updated_at: Instant | None
    pagination: Pagination
    sources: list[Source]
    since: DataVersionId
    until: DataVersionId
    data_version: DataVersionId | None


def change(item: ListedChange) -> Change:
    found = item.change
    return Change(
        version=item.version,
        version_time=timestamp(item.made_at),
        urn=found.urn.value,
        kind=found.kind.value,
        fields=[commercial_key(name) for name in found.fields] if found.fields else UNSET,
        key_stage=UNSET if found.key_stage is None else found.key_stage,
        year=UNSET if found.year is None else found.year,
        inspection_date=UNSET if found.inspection_date is None else found.inspection_date,
        linked_urn=UNSET if found.linked_urn is None else found.linked_urn.value,
        link_type=UNSET if found.link_type is None else found.link_type,
    )


def changes(page: ChangesPage) -> list[Change]:
    return [change(item) for item in page.items]
