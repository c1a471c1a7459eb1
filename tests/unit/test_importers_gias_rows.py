"""GIAS rows to School fields, pinned as a property over any layout the header can describe.

Columns are located once per file (not by name per cell), so what is pinned here is that any
order, any subset of the optional columns and any unread extra column give each field its own
cell: text trimmed (blank -> None), numbers parsed (anything else -> None), and a column the
file lacks read as None.
"""

from __future__ import annotations

import csv
import math
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.adapters.importers.gias import (
    CATEGORY_ATTRS,
    FLOAT_COLUMNS,
    HEAD_NAME,
    INT_COLUMNS,
    NAME,
    PLACEHOLDERS,
    STATUS,
    TEXT_COLUMNS,
    URN,
    parse_gias,
)
from schooldata.domain.school import is_servable_status
from schooldata.ports.imports import RejectLog

OPTIONAL = (*TEXT_COLUMNS.values(), *INT_COLUMNS.values(), *FLOAT_COLUMNS.values(), *HEAD_NAME)
UNREAD = ("TypeOfEstablishment (code)", "CloseDate", "Easting ")  # near-misses are not read

_CELL_CHARS = st.characters(
    blacklist_categories=("Cs", "Cc"), blacklist_characters="\x00"
) | st.sampled_from(" \t,.-")
NUMBERS = st.one_of(
    st.integers(min_value=-(10**20), max_value=10**20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["", " ", " 12 ", "1,234", "12.0", "12.5", "1e3", "n/a", "007", "١٢"]),
    st.from_regex(r"[0-9]{14,18}", fullmatch=True),  # both sides of the exact-int limit
)
CELLS = st.one_of(
    st.text(_CELL_CHARS, max_size=12),
    NUMBERS,
    st.sampled_from(["Not applicable", "Does not apply", " Not Applicable ", "None"]),
)


def expected_number(cell: str) -> float | None:
    try:
        number = float(cell.strip().replace(",", ""))
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def expected_int(cell: str) -> int | None:
    number = expected_number(cell)
    return None if number is None or not number.is_integer() else int(number)


def expected_text(attr: str, raw: str, cell: Callable[[str], str]) -> str | None:
    """The cell, trimmed; null where blank, or where a categorical column holds a GIAS
    placeholder (and the LA code beside a placeholder LA name)."""
    text = raw.strip() or None
    if attr in CATEGORY_ATTRS and text is not None and text.lower() in PLACEHOLDERS:
        return None
    if attr == "la_code" and cell(TEXT_COLUMNS["la_name"]).strip().lower() in PLACEHOLDERS:
        return None
    return text


def expected_head(cells: list[str]) -> str | None:
    kept = [c.strip() for c in cells if c.strip()]
    kept = [c for c in kept if c.lower() not in {"not applicable", "not recorded", "none"}]
    return " ".join(kept) or None


@st.composite
def files(draw: st.DrawFn) -> tuple[list[str], list[dict[str, str]]]:
    """A header (required columns, some optional and unread ones, any order) and rows."""
    chosen = draw(st.lists(st.sampled_from(OPTIONAL + UNREAD), unique=True))
    header = draw(st.permutations([URN, NAME, STATUS, *chosen]))
    statuses = st.sampled_from(["Open", " Closed ", "Open, but proposed to close", ""])
    rows = draw(
        st.lists(
            st.fixed_dictionaries(
                {URN: st.just(""), NAME: st.just("A school"), STATUS: statuses},
                optional=dict.fromkeys(chosen, CELLS),
            ),
            min_size=1,
            max_size=5,
        )
    )
    for number, row in enumerate(rows):
        row[URN] = f"{100000 + number}"
    return header, rows


def write(path: Path, header: list[str], rows: list[dict[str, str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows([row.get(column, "") for column in header] for row in rows)


@settings(max_examples=150, deadline=None)
@given(data=files())
def test_every_field_comes_from_its_own_cell_in_any_layout(
    data: tuple[list[str], list[dict[str, str]]],
) -> None:
    header, rows = data
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "edubasealldata20261101.csv"
        write(path, header, rows)
        log = RejectLog()
        schools = list(parse_gias(path, log))
    assert log.rejects == []
    assert log.skipped == sum(not is_servable_status(row[STATUS]) for row in rows)
    assert [s.urn.value for s in schools] == [int(row[URN]) for row in rows]
    for school, row in zip(schools, rows, strict=True):

        def cell(column: str, row: dict[str, str] = row) -> str:
            return row.get(column, "") if column in header else ""

        assert school.status == row[STATUS].strip()
        for attr, column in TEXT_COLUMNS.items():
            assert getattr(school, attr) == expected_text(attr, cell(column), cell), attr
        for attr, column in INT_COLUMNS.items():
            assert getattr(school, attr) == expected_int(cell(column)), attr
        for attr, column in FLOAT_COLUMNS.items():
            assert getattr(school, attr) == expected_number(cell(column)), attr
        assert school.head_name == expected_head([cell(column) for column in HEAD_NAME])
        assert school.location is None  # no Easting/Northing column (only a near-miss)


@pytest.mark.parametrize(
    "cell",
    ["420", " 420 ", "0420", "1,200", "420.0", "420.5", "4e2", "n/a", "", "nan", "١٢",
     "999999999999999", "9999999999999999", "12345678901234567", "123456789012345678901"],
)  # fmt: skip
def test_a_whole_number_cell_parses_as_it_always_did(tmp_path: Path, cell: str) -> None:
    # Short digit runs take a fast path (int() directly); beyond 15 digits the float parse
    # decides, as it always has, so the fast path can never change a value.
    path = tmp_path / "edubasealldata20261101.csv"
    write(path, [URN, NAME, STATUS, "SchoolCapacity"], [
        {URN: "100001", NAME: "A", STATUS: "Open", "SchoolCapacity": cell}
    ])  # fmt: skip
    (school,) = parse_gias(path, RejectLog())
    assert school.capacity == expected_int(cell)
