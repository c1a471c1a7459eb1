"""The one CSV writer of the CLI and REST (`entrypoints/tables.py`): flattening to dotted
columns, one cell per value, and rows that a CSV parser reads back to the same cells."""

from __future__ import annotations

import csv
import io
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from schooldata.entrypoints.tables import csv_cell, flatten, union_of_keys, write_csv

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
