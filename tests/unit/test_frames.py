"""A table's columns keep their declared types in every DataFrame: nulls as nulls, numbers as
numbers, dates as dates, text as CSV writes it."""

from __future__ import annotations

import datetime as dt

import msgspec
import pytest

from schooldata.entrypoints.frames import Frame, frame_of_items, kinds_of

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")


class Place(msgspec.Struct):
    latitude: float
    longitude: float


class Item(msgspec.Struct, kw_only=True):
    urn: int
    name: str
    place: Place | None
    opened: dt.date | None
    seen_at: dt.datetime | None
    pupils: int | None
    score: float | None
    open: bool
    tags: list[str]
    grades: dict[str, int | None]
    links: list[Place]


ITEMS = [
    Item(
        urn=100001,
        name="A",
        place=Place(51.5, -0.1),
        opened=dt.date(2001, 9, 1),
        seen_at=dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC),
        pupils=300,
        score=71.5,
        open=True,
        tags=["x", "y"],
        grades={"quality": 2},
        links=[Place(1.0, 2.0)],
    ),
    Item(
        urn=100002,
        name="B",
        place=None,
        opened=None,
        seen_at=None,
        pupils=None,
        score=None,
        open=False,
        tags=[],
        grades={"quality": None},
        links=[],
    ),
]


def test_kinds_follow_the_declared_shape_through_nesting_lists_and_dicts() -> None:
    columns = [
        "urn", "place.latitude", "opened", "seen_at", "pupils", "score", "open", "tags",
        "grades.quality", "links.0.longitude", "undeclared",
    ]  # fmt: skip
    assert kinds_of(Item, columns) == (
        "int", "float", "date", "datetime", "int", "float", "bool", "str", "int", "float", "str",
    )  # fmt: skip


def frame() -> Frame:
    return frame_of_items(ITEMS, Item, None)


def test_columns_are_the_csvs_every_flattened_key_in_the_order_first_seen() -> None:
    # (a null object and an empty list have a column of their own, as the CSV writer gives)
    assert frame().columns == (
        "urn", "name", "place.latitude", "place.longitude", "opened", "seen_at", "pupils",
        "score", "open", "tags", "grades.quality", "links.0.latitude", "links.0.longitude",
        "place", "links",
    )  # fmt: skip


def test_pandas_keeps_nulls_as_nulls_and_dates_as_dates() -> None:
    df = frame().to_pandas()
    assert str(df["pupils"].dtype) == "Int64" and df["pupils"].isna().tolist() == [False, True]
    assert str(df["score"].dtype) == "Float64" and pd.isna(df["score"].iloc[1])
    assert str(df["opened"].dtype).startswith("datetime64")
    assert df["opened"].iloc[0] == pd.Timestamp("2001-09-01") and pd.isna(df["opened"].iloc[1])
    assert str(df["seen_at"].dtype).endswith("UTC]")
    assert str(df["open"].dtype) == "boolean" and df["open"].tolist() == [True, False]
    assert df["tags"].tolist() == ["x; y", "[]"]  # as CSV writes them: [] is not null
    assert pd.isna(df["place.latitude"].iloc[1]) and pd.isna(df["links.0.latitude"].iloc[1])


def test_polars_and_arrow_keep_the_same_types() -> None:
    df = frame().to_polars()
    assert df.schema["opened"] == pl.Date and df["opened"].to_list() == [dt.date(2001, 9, 1), None]
    assert df.schema["pupils"] == pl.Int64 and df["pupils"].null_count() == 1
    assert df.schema["seen_at"] == pl.Datetime("us", "UTC")
    table = frame().to_arrow()
    assert table.schema.field("opened").type == pa.date32()
    assert table.column("score").to_pylist() == [71.5, None]


def test_an_empty_table_still_has_typed_columns() -> None:
    empty = Frame(("urn", "opened"), ("int", "date"), lambda: [])
    assert [str(t) for t in empty.to_pandas().dtypes] == ["Int64", "datetime64[ns]"]
    assert empty.to_polars().schema == pl.Schema({"urn": pl.Int64, "opened": pl.Date})
