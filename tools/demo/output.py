"""Writing files as the publishers do, byte for byte the same on every run."""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path


def gzip_bytes(data: bytes) -> bytes:
    """gzip with no name and mtime 0 in the header, so equal input gives equal bytes."""
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        gz.write(data)
    return buf.getvalue()


@dataclass
class Output:
    """One written file and what the manifest says about it."""

    path: Path
    rows: int
    meta: dict[str, object]


def write_gz(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip_bytes(data))


def ees_csv(header: Sequence[str], rows: Iterable[Sequence[object]]) -> bytes:
    """Explore-education-statistics style: UTF-8, every field quoted, LF line endings."""
    buf = io.StringIO()
    writer = csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue().encode("utf-8")


def gias_date(day: dt.date | None) -> str:
    return day.strftime("%d-%m-%Y") if day else ""


def ofsted_date(day: dt.date) -> str:
    return day.strftime("%d/%m/%Y")


def fmt1(x: float) -> str:
    """One decimal place, without a trailing ".0" (DfE style: 46, 46.5)."""
    text = f"{x:.1f}"
    return text.removesuffix(".0")


def clip(x: float, lo: float, hi: float) -> float:
    return max(lo, min(hi, x))


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower().replace("’", "").replace("'", ""))


def percent(value: float) -> str:
    """A percentage as DfE prints it, with 'low' for a true value that rounds to zero."""
    value = clip(value, 0.0, 100.0)
    if 0.0 < value < 0.05:
        return "low"
    return fmt1(value)
