"""Driven port: the data versions and the changes each recorded, as the shared store holds
them (every instance over one database answers alike)."""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from schooldata.domain.changes import ChangeFilter, ListedChange
from schooldata.domain.versions import DataVersion


class ChangeLog(Protocol):
    def current_version(self) -> DataVersion | None:
        """The newest version (None: no import has made one)."""
        ...

    def held_version(self, *, sequence: int) -> DataVersion | None:
        """The version of that sequence number, if it is still held."""
        ...

    def oldest_version(self, *, made_since: dt.datetime) -> DataVersion | None:
        """The oldest version held that was made at or after `made_since`."""
        ...

    def changes(
        self, *, after: int, upto: int, wanted: ChangeFilter, offset: int, limit: int
    ) -> tuple[int, list[ListedChange]]:
        """How many changes of the versions after `after` up to `upto` (sequence numbers)
        match `wanted`, and `limit` of them from `offset`, in version, then URN order (a
        version's changes of one school in the order they were recorded)."""
        ...
