"""What changed since a data version: the sync of a client that keeps a copy.

Rules (shared by REST, the CLI and the library):
- `since` is a data version (`meta.data_version` of an earlier answer, or `meta.until` of the
  last page of an earlier sync): a malformed one, or one this database never made, is an
  invalid parameter (400); one older than the versions still kept (the retention) is
  `since_expired` (410) naming the oldest version changes can be listed from. `since` = the
  current version: an empty page.
- The changes are every change of the versions after `since`, up to `until` (default: the
  current version), in version order, then URN order; paging is by `page` and `per_page`
  as every list. `until` is what page 1 was answered up to (the page links carry it), so
  later pages list the same changes while new versions arrive.
- Filters: `kind`, `local_authority` (name or DfE code, exact, any case), `phase`, matched
  against the school as the register last listed it (a closed school's where it was).
"""

from __future__ import annotations

from attrs import frozen

from schooldata.domain.changes import ChangeFilter, ListedChange
from schooldata.domain.errors import InvalidParameter
from schooldata.domain.versions import (
    DataVersion,
    VersionRef,
    check_since,
    retained_since,
)
from schooldata.ports.changes import ChangeLog
from schooldata.ports.clock import Clock


@frozen(kw_only=True)
class ChangesRequest:
    """A changes question whose every parameter is well formed; nothing looked up yet."""

    since: VersionRef
    until: VersionRef | None
    wanted: ChangeFilter
    page: int
    per_page: int


@frozen(kw_only=True)
class ChangesPage:
    """One page of the changes after `since` up to `until` (true totals)."""

    since: DataVersion
    until: DataVersion
    page: int
    per_page: int
    total: int
    items: tuple[ListedChange, ...]


class ListChanges:
    def __init__(self, *, log: ChangeLog, clock: Clock, retention_days: int) -> None:
        self._log = log
        self._clock = clock
        self._retention_days = retention_days

    def execute(self, request: ChangesRequest) -> ChangesPage:
        log = self._log
        current = log.current_version()
        if current is None:
            raise InvalidParameter("since", "No data version has been made yet: import data first.")
        window = retained_since(self._clock.now(), self._retention_days)
        oldest = log.oldest_version(made_since=window) or current
        held = log.held_version(sequence=request.since.sequence)
        since = check_since(request.since, held=held, oldest=oldest)
        until = current if request.until is None else self._until(request.until)
        total, items = log.changes(
            after=since.sequence,
            upto=until.sequence,
            wanted=request.wanted,
            offset=(request.page - 1) * request.per_page,
            limit=request.per_page,
        )
        return ChangesPage(
            since=since,
            until=until,
            page=request.page,
            per_page=request.per_page,
            total=total,
            items=tuple(items),
        )

    def _until(self, until: VersionRef) -> DataVersion:
        held = self._log.held_version(sequence=until.sequence)
        if held is None or held.id != until.id:
            raise InvalidParameter(
                "until", f"until names no data version of this service: {until.id}."
            )
        return held
