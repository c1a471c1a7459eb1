"""Answers as DataFrames: pandas, polars or Arrow, with the CSV's columns.

A `Frame` is the table the CSV writer (`entrypoints.tables`) would write: the same dotted
column names in the same order, one row per item. Unlike CSV, each column keeps its type,
taken from the answer's declared shape (so an all-null column is still typed): integers and
numbers stay numbers with nulls as nulls (never 0, never NaN standing for a number), dates
are dates, instants are UTC instants, booleans are booleans; text, and what CSV writes as
text (a list of values joined with "; "), is text.

pandas, polars and pyarrow are optional (`schooldata[pandas]`, `[polars]`, `[parquet]`): each
is imported only when its conversion is asked for, and a missing one is one clear error.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import islice
from typing import IO, Any, Literal

import msgspec
from attrs import frozen
from msgspec import inspect as types

from schooldata.entrypoints.tables import csv_cell, flatten

Kind = Literal["int", "float", "bool", "str", "date", "datetime"]
Rows = Callable[[], Iterable[Mapping[str, Any]]]
BATCH_ROWS = 2_000  # rows per Parquet row group: memory stays flat however long the table


class MissingFrameLibrary(ImportError):
    """A conversion needs an optional library that is not installed."""

    def __init__(self, library: str, extra: str) -> None:
        super().__init__(f"{library} is not installed: pip install 'schooldata[{extra}]' to use it")
        self.extra = extra


@frozen
class Frame:
    """A table: `columns` and their `kinds`, and `rows()` (flattened, as the JSON answer
    holds them; each call reads them again, so a streamed table is never held whole except
    by the DataFrame built from it)."""

    columns: tuple[str, ...]
    kinds: tuple[Kind, ...]
    rows: Rows
    metadata: Mapping[str, Any] | None = None  # sources, licences, data version (Parquet)

    def column_values(self, rows: Iterable[Mapping[str, Any]] | None = None) -> list[list[Any]]:
        """The table column by column (typed values)."""
        converters = [_CONVERT[kind] for kind in self.kinds]
        values: list[list[Any]] = [[] for _ in self.columns]
        for row in self.rows() if rows is None else rows:
            for column, convert, held in zip(self.columns, converters, values, strict=True):
                value = row.get(column)
                held.append(None if value is None else convert(value))
        return values

    def to_pandas(self) -> Any:
        """A pandas DataFrame: nullable integer, number and boolean columns (`Int64`,
        `Float64`, `boolean`), `string` text, `datetime64` dates and UTC instants."""
        pd = _require("pandas", "pandas")
        data = {
            column: _pandas_column(pd, kind, values)
            for column, kind, values in zip(
                self.columns, self.kinds, self.column_values(), strict=True
            )
        }
        return pd.DataFrame(data, columns=list(self.columns))

    def to_polars(self) -> Any:
        """A polars DataFrame (`Int64`, `Float64`, `Boolean`, `String`, `Date`,
        `Datetime(UTC)`)."""
        pl = _require("polars", "polars")
        kinds = {
            "int": pl.Int64,
            "float": pl.Float64,
            "bool": pl.Boolean,
            "str": pl.String,
            "date": pl.Date,
            "datetime": pl.Datetime("us", "UTC"),
        }
        series = [
            pl.Series(column, values, dtype=kinds[kind])
            for column, kind, values in zip(
                self.columns, self.kinds, self.column_values(), strict=True
            )
        ]
        return pl.DataFrame(series)

    def to_arrow(self) -> Any:
        """A pyarrow Table, its schema's metadata holding the table's `metadata`."""
        pa = _require("pyarrow", "parquet")
        schema = self.arrow_schema()
        arrays = [
            pa.array(values, type=field.type)
            for values, field in zip(self.column_values(), schema, strict=True)
        ]
        return pa.Table.from_arrays(arrays, schema=schema)

    def arrow_schema(self) -> Any:
        pa = _require("pyarrow", "parquet")
        kinds = {
            "int": pa.int64(),
            "float": pa.float64(),
            "bool": pa.bool_(),
            "str": pa.string(),
            "date": pa.date32(),
            "datetime": pa.timestamp("us", tz="UTC"),
        }
        fields = [pa.field(c, kinds[k]) for c, k in zip(self.columns, self.kinds, strict=True)]
        metadata = None if self.metadata is None else {"schooldata": json.dumps(self.metadata)}
        return pa.schema(fields, metadata=metadata)

    def write_parquet(
        self, sink: str | IO[bytes], *, progress: Callable[[int], None] | None = None
    ) -> int:
        """Write the table as Parquet, BATCH_ROWS rows at a time (memory stays flat);
        returns how many rows. `progress` is told the rows written so far."""
        pa = _require("pyarrow", "parquet")
        parquet = _require("pyarrow.parquet", "parquet")
        schema = self.arrow_schema()
        written = 0
        with parquet.ParquetWriter(sink, schema) as writer:
            rows = iter(self.rows())
            while batch := list(islice(rows, BATCH_ROWS)):
                arrays = [
                    pa.array(values, type=field.type)
                    for values, field in zip(self.column_values(batch), schema, strict=True)
                ]
                writer.write_table(pa.Table.from_arrays(arrays, schema=schema))
                written += len(batch)
                if progress is not None:
                    progress(written)
        return written


def _pandas_column(pd: Any, kind: Kind, values: list[Any]) -> Any:
    if kind == "date":
        return pd.to_datetime(pd.Series(values, dtype=object)).astype("datetime64[ns]")
    if kind == "datetime":
        return pd.to_datetime(pd.Series(values, dtype=object), utc=True).astype(
            "datetime64[ns, UTC]"
        )
    dtype = {"int": "Int64", "float": "Float64", "bool": "boolean", "str": "string"}[kind]
    return pd.array(values, dtype=dtype)


def _require(module: str, extra: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingFrameLibrary(module.split(".")[0], extra) from None


def _instant(value: Any) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value
    return dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))


def _date(value: Any) -> dt.date:
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else csv_cell(value)


_CONVERT: dict[Kind, Callable[[Any], Any]] = {
    "int": int,
    "float": float,
    "bool": bool,
    "str": _text,
    "date": _date,
    "datetime": _instant,
}


# ----------------------------------------------------------------------- kinds from shapes


def kinds_of(shape: Any, columns: Sequence[str]) -> tuple[Kind, ...]:
    """The kind of each dotted column of rows of `shape` (a Struct or any msgspec type):
    `location.latitude` is a float, `links.0.established` a date. A column the shape does not
    declare (an open object's extra member) is text, as CSV writes it."""
    info = shape if isinstance(shape, types.Type) else types.type_info(shape)
    return tuple(_kind_at(info, column.split(".")) for column in columns)


def list_item(shape: Any) -> tuple[Any, str | None]:
    """The element type of a list answer `shape` (`list[Item]`), or of its one list member
    (the public search's `results`), with that member's name (None: the shape is the list)."""
    info = _unwrap(shape if isinstance(shape, types.Type) else types.type_info(shape))
    if isinstance(info, types.ListType):
        return info.item_type, None
    if isinstance(info, types.StructType):
        lists = [f for f in info.fields if isinstance(_unwrap(f.type), types.ListType)]
        if len(lists) == 1:
            return _unwrap(lists[0].type).item_type, lists[0].encode_name
    raise TypeError(f"{shape!r} is not a list answer")


def _kind_at(info: Any, parts: list[str]) -> Kind:
    info = _unwrap(info, structured=bool(parts))
    if not parts:
        return _leaf(info)
    head, rest = parts[0], parts[1:]
    if isinstance(info, types.StructType):
        for field in info.fields:
            if field.encode_name == head:
                return _kind_at(field.type, rest)
        return "str"
    if isinstance(info, types.ListType) and head.isdigit():
        return _kind_at(info.item_type, rest)
    if isinstance(info, types.DictType):
        return _kind_at(info.value_type, rest)
    return "str"


def _unwrap(info: Any, *, structured: bool = False) -> Any:
    """The type a value of `info` has when it is not null: an optional's member (msgspec
    leaves an unset member out of the union), a constrained type's own."""
    while isinstance(info, types.Metadata):
        info = info.type
    if not isinstance(info, types.UnionType):
        return info
    members = [_unwrap(m) for m in info.types if not isinstance(m, types.NoneType)]
    nested = [
        m for m in members if isinstance(m, types.StructType | types.ListType | types.DictType)
    ]
    if structured and nested:
        return nested[0]
    if len(members) == 1:
        return members[0]
    if members and all(isinstance(m, types.IntType | types.FloatType) for m in members):
        return types.FloatType()
    return types.StrType()


_LEAVES: tuple[tuple[type, Kind], ...] = (
    (types.BoolType, "bool"),
    (types.IntType, "int"),
    (types.FloatType, "float"),
    (types.DateType, "date"),
    (types.DateTimeType, "datetime"),
)


def _leaf(info: Any) -> Kind:
    for kind_of, kind in _LEAVES:
        if isinstance(info, kind_of):
            return kind
    return "str"


# ----------------------------------------------------------------------- frames of answers


def frame_of_items(items: Iterable[Any] | Rows, shape: Any, columns: Sequence[str] | None) -> Frame:
    """A frame of a list answer's items (JSON values or Structs) of type `shape`, in the
    CSV's columns (`columns` None: every flattened key of every item, in order first seen)."""
    if callable(items):
        read: Rows = lambda: (flatten(_builtins(i)) for i in items())  # noqa: E731
    else:
        held = [flatten(_builtins(i)) for i in items]
        read = lambda: held  # noqa: E731
    if columns is None:
        columns = list(dict.fromkeys(key for row in read() for key in row))
    return Frame(tuple(columns), kinds_of(shape, columns), read)


def _builtins(item: Any) -> Mapping[str, Any]:
    built: Mapping[str, Any] = item if isinstance(item, Mapping) else msgspec.to_builtins(item)
    return built


def answer_frame(operation: str, data: Any) -> Frame:
    """A frame of an operation's answer (`data` as the API's JSON): a list answer's items in
    the columns REST writes for `text/csv` (the CLI's CSV); the public search's results; any
    other answer as one row of its flattened fields, as CSV writes a record."""
    from schooldata.entrypoints.answers import OUTPUTS

    output = OUTPUTS[operation]
    shape = output.body if output.meta is None else _member(output.body, "data")
    columns = None if output.table is None else output.table.columns
    if isinstance(data, list):
        item, _ = list_item(shape)
        return frame_of_items(data, item, columns)
    if output.table is not None:
        item, member = list_item(shape)
        if member is not None and isinstance(data, Mapping):
            return frame_of_items(data[member], item, columns)
    return frame_of_items([data], shape, None)


def _member(struct: Any, name: str) -> Any:
    info = types.type_info(struct)
    if not isinstance(info, types.StructType):  # pragma: no cover - an envelope is a Struct
        raise TypeError(f"{struct!r} is not an envelope")
    return next(f.type for f in info.fields if f.encode_name == name)
