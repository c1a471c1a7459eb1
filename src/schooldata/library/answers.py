"""What the library answers: a page of search results, any operation's answer, a whole
dataset. Each is also a table: `to_pandas()`, `to_polars()`, `to_arrow()` give it with the
columns its CSV has (the optional extras `schooldata[pandas]`, `[polars]`, `[parquet]`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from attrs import field, frozen

from schooldata.domain.changes import ListedChange
from schooldata.domain.school import School
from schooldata.domain.search import SearchHit
from schooldata.entrypoints import wire
from schooldata.entrypoints.exports import save
from schooldata.entrypoints.frames import Frame, answer_frame, frame_of_items
from schooldata.entrypoints.tables import SEARCH_COLUMNS
from schooldata.entrypoints.wire.public_shapes import SchoolSearchResult


class Tabular:
    """An answer that is a table: `frame()` and the DataFrames made from it."""

    def frame(self) -> Frame:
        raise NotImplementedError

    def to_pandas(self) -> Any:
        """A pandas DataFrame with the CSV's columns (needs `schooldata[pandas]`)."""
        return self.frame().to_pandas()

    def to_polars(self) -> Any:
        """A polars DataFrame with the CSV's columns (needs `schooldata[polars]`)."""
        return self.frame().to_polars()

    def to_arrow(self) -> Any:
        """A pyarrow Table with the CSV's columns (needs `schooldata[parquet]`)."""
        return self.frame().to_arrow()


@frozen(kw_only=True)
class SearchResults(Tabular):
    """One page of answers.

    - `total` counts every match, not just the page; `limit` is the page size used.
    - `hits` are in the search's order: nearest first when a postcode was given (each with
      `distance_miles`), else best name match first (ties by URN).
    - Iterating the results iterates the hits; `len()` is the number of hits.
    - `to_pandas()`, `to_polars()`, `to_arrow()`: the hits as `schooldata search --format
      csv` writes them (the public search's columns).
    """

    total: int
    limit: int
    hits: tuple[SearchHit, ...]
    base_url: str = field(default="", repr=False)
    with_distance: bool = field(default=False, repr=False)

    @property
    def schools(self) -> tuple[School, ...]:
        return tuple(hit.school for hit in self.hits)

    def __iter__(self) -> Iterator[SearchHit]:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    def frame(self) -> Frame:
        results = [
            wire.public_search_result(h, base_url=self.base_url, with_distance=self.with_distance)
            for h in self.hits
        ]
        return frame_of_items(results, SchoolSearchResult, SEARCH_COLUMNS)


@frozen(kw_only=True)
class Answer(Tabular):
    """The API's answer to one operation, as plain Python values.

    - `data`: the API's `data` (a list for a list answer).
    - `pagination`: where this page is in the list (`page`, `per_page`, `total`,
      `total_pages`), None for a single answer.
    - `meta`: the request id, when the data was generated (`data_updated_at`), every
      source with its publisher, licence and attribution (`sources`), the `data_version`
      read, and the operation's own members (`not_found`, `ranking`).
    - `to_pandas()`, `to_polars()`, `to_arrow()`: a list answer's items in the columns of its
      CSV (REST's `text/csv`, `schooldata call --format csv`); a single answer as one row.
    """

    operation: str
    data: Any
    pagination: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None

    def frame(self) -> Frame:
        return answer_frame(self.operation, self.data)


class Export(Tabular):
    """A whole dataset in long, tidy form (`client.export(...)`), read when it is used: each
    iteration, DataFrame or file reads the data again, streaming.

    - Iterating gives each row as a dict of the CSV's columns (JSON values: dates as ISO
      text, null as None); `columns` names them.
    - `meta`: the dataset and its filters, the data version, when it was read, and every
      source with its publisher, licence and attribution (they must travel with the data).
    - `to_pandas()`, `to_polars()`, `to_arrow()`: typed columns, nulls as nulls, dates as
      dates. `write_csv(path)` (with `path.meta.json` beside it) and `write_parquet(path)`
      (the meta in its metadata) write whole files, streamed, whole or not at all.
    """

    def __init__(self, frame: Frame) -> None:
        self._frame = frame

    def frame(self) -> Frame:
        return self._frame

    @property
    def columns(self) -> tuple[str, ...]:
        return self._frame.columns

    @property
    def meta(self) -> dict[str, Any]:
        return dict(self._frame.metadata or {})

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for row in self._frame.rows():
            yield {column: row.get(column) for column in self._frame.columns}

    def write_csv(self, path: str | os.PathLike[str]) -> int:
        """Write the CSV `schooldata export` writes, and its sidecar; returns the rows."""
        return save(self._frame, Path(path), "csv")

    def write_parquet(self, path: str | os.PathLike[str]) -> int:
        """Write Parquet (needs `schooldata[parquet]`); returns the rows."""
        return save(self._frame, Path(path), "parquet")


@frozen(kw_only=True)
class ChangeSet:
    """Every change after `since` up to `until` (the version to ask `since` next time), in
    version, then URN order. Each is a `domain.changes.ListedChange`: the version's id and
    time, and the change (`urn`, `kind`; `fields` of an update name `School` attributes,
    e.g. `la_name`, as the objects this library returns carry them)."""

    since: str
    until: str
    changes: tuple[ListedChange, ...]

    def __iter__(self) -> Iterator[ListedChange]:
        return iter(self.changes)

    def __len__(self) -> int:
        return len(self.changes)
