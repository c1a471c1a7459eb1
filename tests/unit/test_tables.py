"""The one CSV writer of the CLI and REST (`entrypoints/tables.py`): flattening to dotted
columns, one cell per value, and rows that a CSV parser reads back to the same cells."""

from __future__ import annotations

import csv
import io
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from schooldata.entrypoints.tables import (
    FORMULA_STARTS,
    cell_text,
    csv_cell,
    flatten,
    union_of_keys,
    write_csv,
    write_record,
)

keys = st.text(st.characters(codec="utf-8", exclude_characters="."), min_size=1, max_size=6)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20)
)
records = st.recursive(
    st.dictionaries(keys, scalars, min_size=1, max_size=4),
    lambda inner: st.dictionaries(keys, st.one_of(scalars, inner), min_size=1, max_size=4),
    max_leaves=12,
)


def unflatten(flat: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for dotted, value in flat.items():
        *parents, last = dotted.split(".")
        node = out
        for name in parents:
            node = node.setdefault(name, {})
        node[last] = value
    return out


@given(records)
def test_nested_objects_flatten_to_dotted_columns_that_rebuild_the_record(
    record: dict[str, Any],
) -> None:
    flat = flatten(record)
    assert all(not isinstance(v, dict) for v in flat.values())
    assert unflatten(flat) == record


def test_lists_of_objects_are_numbered_and_lists_of_values_joined() -> None:
    record = {
        "links": [{"urn": 1, "name": "A"}, {"urn": 2, "name": None}],
        "tags": ["a", "b", 3],
        "empty": [],
        "nothing": {},
        "grid": [[1, 2]],
    }
    flat = flatten(record)
    assert flat["links.0.urn"] == 1 and flat["links.1.name"] is None
    assert csv_cell(flat["tags"]) == "a; b; 3"
    assert csv_cell(flat["empty"]) == "[]" and csv_cell(flat["nothing"]) == "{}"
    assert csv_cell(flat["grid"]) == "[[1, 2]]"


def test_null_is_an_empty_cell_and_booleans_are_words() -> None:
    assert [csv_cell(v) for v in (None, True, False, 0, 1.5, "x")] == [
        "",
        "true",
        "false",
        "0",
        "1.5",
        "x",
    ]


cells = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=30))
rows = st.lists(st.dictionaries(st.sampled_from(["a", "b", "c.d"]), cells), max_size=6)


@given(rows, st.sampled_from(["\n", "\r\n"]))
def test_a_csv_parser_reads_back_every_cell_as_written(
    items: list[dict[str, Any]], line_end: str
) -> None:
    stream = io.StringIO()
    count = write_csv(stream, items, None, line_end=line_end)
    columns = union_of_keys(items)
    if not columns:
        assert stream.getvalue() == "" and count == 0
        return
    read = list(csv.reader(io.StringIO(stream.getvalue(), newline="")))
    assert read[0] == columns
    assert read[1:] == [[csv_cell(item.get(c)) for c in columns] for item in items]
    assert count == len(items)


def test_stated_columns_are_always_present_in_their_order() -> None:
    stream = io.StringIO()
    write_csv(stream, [{"b": 1, "x": 9}], ("a", "b"))
    assert stream.getvalue() == "a,b\n,1\n"


# ---------------------------------------------------------------- safe to open in a spreadsheet


def _read_back(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def test_text_a_spreadsheet_would_run_as_a_formula_gets_a_leading_apostrophe() -> None:
    hostile = [
        '=HYPERLINK("http://evil.example","click")',
        "+1+cmd|' /C calc'!A0",
        "-2+3",
        "@SUM(A1:A9)",
        "\t=1+1",
        "\r=1+1",
        "-",
        "=",
    ]
    for text in hostile:
        assert csv_cell(text) == "'" + text, text
    stream = io.StringIO()
    write_csv(stream, [{"name": text} for text in hostile], ("name",))
    assert [row[0] for row in _read_back(stream.getvalue())[1:]] == ["'" + t for t in hostile]


def test_numbers_stay_numbers_negative_ones_included() -> None:
    assert [csv_cell(v) for v in (-3, -0.52, -1e-07, 0, 12)] == ["-3", "-0.52", "-1e-07", "0", "12"]
    # Text that is only a decimal number is read as that number, never as a formula.
    assert [csv_cell(v) for v in ("-0.52", "+4", "-.5", "-1E+3")] == ["-0.52", "+4", "-.5", "-1E+3"]


def test_text_that_only_contains_a_formula_character_later_is_unchanged() -> None:
    for text in ("St Mary's C of E", "A=B", "x-y", "a@b.example", "  =1", "'quoted"):
        assert csv_cell(text) == text


def test_a_joined_list_and_a_header_are_neutralised_too() -> None:
    assert csv_cell(["=1+1", "x"]) == "'=1+1; x"
    assert csv_cell([-1, 2]) == "'-1; 2"  # one cell of text, not a number
    stream = io.StringIO()
    write_record(stream, {"=a": "=b", "n": -1})
    assert _read_back(stream.getvalue()) == [["'=a", "n"], ["'=b", "-1"]]


def test_a_terminal_table_shows_the_text_as_it_is() -> None:
    assert cell_text("=1+1") == "=1+1" and cell_text(-2) == "-2"


@given(st.text(max_size=30))
def test_no_cell_written_from_text_can_start_a_formula(text: str) -> None:
    cell = csv_cell(text)
    assert cell in (text, "'" + text)
    if cell.startswith(FORMULA_STARTS):
        float(cell)  # only a plain number may start so, and it reads back as one
