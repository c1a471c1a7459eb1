"""Answers as tables of cells: the one CSV writer of the CLI (`--format csv`) and of REST
(`Accept: text/csv`), so a column and a cell are the same whichever face wrote them.

- A header row, then one row per item. Null is an empty cell; booleans are `true`/`false`;
  numbers are written whole (a float as Python writes it: the shortest text that reads back
  exact).
- Nested objects are flattened with dots (`location.latitude`); a list of objects is
  numbered (`links.0.urn`); a list of plain values is joined with "; ". What has no cell of
  its own (an empty list or object, a list of lists) is written as its JSON (`[]`, `{}`),
  never confused with null.
- A list answer has a stated column order (below): every column is always present, empty
  where a value is null or does not apply. Without one, the columns are every key of every
  row, in the order first seen (the rows are then held to find them).
- Safe to open in a spreadsheet: a text cell that begins with `=`, `+`, `-`, `@`, a tab or a
  carriage return is written with a leading apostrophe (OWASP's rule against CSV formula
  injection: publishers' files are untrusted input, and a school named `=HYPERLINK(...)`
  must reach the analyst as text). Numbers stay numbers: a number, and a text cell that is
  a plain decimal number (`-0.52`), which a spreadsheet reads as a number and never as a
  formula, are written as they are.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

SEARCH_COLUMNS = (
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

SCHOOLS_COLUMNS = (
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

AUTHORITIES_COLUMNS = ("code", "name", "open_schools")

CHANGES_COLUMNS = (
    "version",
    "version_time",
    "urn",
    "kind",
    "fields",
    "key_stage",
    "year",
    "inspection_date",
    "linked_urn",
    "link_type",
)

FRESHNESS_COLUMNS = (
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

RANKINGS_COLUMNS = (
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


class Lines(Protocol):
    def write(self, text: str, /) -> Any: ...


def flatten(value: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in value.items():
        name = f"{prefix}{key}"
        if isinstance(item, Mapping) and item:
            out.update(flatten(item, f"{name}."))
        elif isinstance(item, list) and any(isinstance(x, Mapping) for x in item):
            for index, element in enumerate(item):
                if isinstance(element, Mapping):
                    out.update(flatten(element, f"{name}.{index}."))
                else:
                    out[f"{name}.{index}"] = element
        else:
            out[name] = item
    return out


# The first characters a spreadsheet may read as the start of a formula (OWASP, "CSV
# Injection"): = + - @, and a tab or carriage return, which some applications skip first.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# A text cell that is only a decimal number: a spreadsheet reads it as that number.
_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def cell_text(value: Any) -> str:
    """A value as the text of one cell (a table on a terminal, and CSV before it is made
    safe for spreadsheets: `csv_cell`)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | Mapping) and (
        not value or isinstance(value, Mapping) or any(isinstance(v, list | Mapping) for v in value)
    ):
        return json.dumps(value, ensure_ascii=False)  # [] is not null; nesting has no cell
    if isinstance(value, list):
        return "; ".join(cell_text(v) for v in value)
    return str(value)  # a float as Python writes it: the shortest text that reads back exact


def csv_cell(value: Any) -> str:
    """A value as one CSV cell, safe to open in a spreadsheet: text that a spreadsheet would
    read as a formula gets a leading apostrophe (`neutralised`); numbers are written as
    they are (a negative number is a number, not text)."""
    text = cell_text(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return text
    return neutralised(text)


def neutralised(text: str) -> str:
    """`text` with a leading apostrophe when a spreadsheet would take it for a formula: it
    begins with one of `FORMULA_STARTS` and is not a plain decimal number."""
    if not text.startswith(FORMULA_STARTS) or _PLAIN_NUMBER.fullmatch(text) is not None:
        return text
    return "'" + text


def union_of_keys(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every key of every row, in the order first seen: no row's fields are left out."""
    return list(dict.fromkeys(key for row in rows for key in row))


def write_csv(
    stream: Lines,
    items: Iterable[Mapping[str, Any]],
    columns: Sequence[str] | None,
    *,
    line_end: str = "\n",
) -> int:
    """Write the header and one row per item (flattened) as produced; returns how many rows.
    `columns` None: every flattened key of every item (the items are held to find them). No
    columns at all (no items, none stated) writes nothing: an empty table, not an empty row."""
    writer = _writer(stream, line_end)
    flat_rows: Iterable[dict[str, Any]] = (flatten(item) for item in items)
    if columns is None:
        flat_rows = list(flat_rows)
        columns = union_of_keys(flat_rows)
    if not columns:
        return 0
    writer.writerow([neutralised(column) for column in columns])
    count = 0
    for flat in flat_rows:
        writer.writerow([csv_cell(flat.get(c)) for c in columns])
        count += 1
    return count


def write_record(stream: Lines, record: Mapping[str, Any], *, line_end: str = "\n") -> None:
    """One record as one row: every flattened field, in the record's order."""
    flat = flatten(record)
    writer = _writer(stream, line_end)
    writer.writerow([neutralised(name) for name in flat])
    writer.writerow([csv_cell(v) for v in flat.values()])


class _RowEnds:
    """Rows written with CRLF, sent on with `line_end`: the csv module quotes a cell holding a
    line break only when the break is in its own terminator, so it always writes CRLF."""

    def __init__(self, stream: Lines, line_end: str) -> None:
        self._stream = stream
        self._line_end = line_end

    def write(self, row: str) -> object:
        return self._stream.write(row[:-2] + self._line_end)


def _writer(stream: Lines, line_end: str) -> Any:
    if line_end == "\r\n":
        return csv.writer(stream, lineterminator=line_end)
    return csv.writer(_RowEnds(stream, line_end), lineterminator="\r\n")
