"""Rows counted as they are read: the RejectLog's tally, and progress every so many rows."""

from __future__ import annotations

from schooldata.ports.imports import Progress, RejectLog


class RowCounter:
    """Counts rows read into the log and reports progress every `every` rows."""

    def __init__(self, log: RejectLog, progress: Progress | None, every: int = 10_000) -> None:
        self._log = log
        self._progress = progress
        self._every = every

    def row(self) -> None:
        self._log.rows_read += 1
        if self._progress is not None and self._log.rows_read % self._every == 0:
            self._progress(self._log.rows_read)

    def add(self, rows: int) -> None:
        """Count many rows at once (hot loops count locally and report in bulk)."""
        before = self._log.rows_read
        self._log.rows_read += rows
        if (
            self._progress is not None
            and before // self._every != self._log.rows_read // self._every
        ):
            self._progress(self._log.rows_read)

    def done(self) -> None:
        if self._progress is not None:
            self._progress(self._log.rows_read)
