"""A hypothesis harness for the importers' row parsing: GIAS establishments and links,
Code-Point Open, ONSPD, the DfE school-level tables (performance, admissions, finance, KS4
information) and Ofsted management information.

Whatever the bytes (random bytes, a real header over random rows, rows of the wrong width,
any encoding, gzip or not), a parser either refuses the whole file with `ImportRejected`, or
yields well-typed items and logs every refused row with its line and a reason. Nothing else
ever escapes: no IndexError, ValueError, UnicodeError, csv.Error, OverflowError...
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from schooldata.adapters.importers import gias, ks4_info, links, ofsted, onspd
from schooldata.adapters.importers.codepoint import parse_codepoint
from schooldata.adapters.importers.performance.datasets import TABLES
from schooldata.adapters.importers.performance.reader import parse_table
from schooldata.adapters.importers.performance.spec import TableSpec
from schooldata.domain.errors import ImportRejected
from schooldata.domain.geo import Location
from schooldata.domain.links import EstablishmentLink
from schooldata.domain.ofsted import InspectionRecord
from schooldata.domain.results import MeasureRecord
from schooldata.domain.school import School
from schooldata.ports.imports import RejectLog
from tests.support import ofsted_mi

FUZZ = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Cells a publisher's file (or a broken re-save of one) might hold.
CELL = st.one_of(
    st.just(""),
    st.text(max_size=20),
    st.from_regex(r"[0-9]{1,8}", fullmatch=True),
    st.from_regex(r"-?[0-9]{1,6}(\.[0-9]{1,4})?", fullmatch=True),
    st.sampled_from(
        [
            "100001",
            "999999",
            "000000",
            "1e309",
            "-1e309",
            "nan",
            "inf",
            "-0",
            "1_000",
            "1,234.5",
            "9" * 40,
            "c",
            "z",
            "x",
            ":",
            "low",
            "u",
            "SUPP",
            "NE",
            "NA",
            "Open",
            "Closed",
            "Open, but proposed to close",
            "Primary",
            "Secondary",
            "Not applicable",
            "01/09/2025",
            "31/02/2024",
            "2025-11-20",
            "00-00-0000",
            "1",
            "4",
            "9",
            "Met",
            "Not met",
            "Yes",
            "No",
            "Exceptional",
            "Urgent improvement",
            "SW1A 1AA",
            "SW1A1AA",
            "B1",
            "529090",
            "179645",
            "0",
            "99.999999",
            "51.5",
            "-0.14",
            "90",
            "10",
            "202324",
            "2024/25",
            "St Mary’s",
            "\u00e9cole",
            "\ufffd",
            '"quoted"',
            "a,b",
            "line\nbreak",
            "\r",
            "\x00",
        ]
    ),
)


def rows_for(width: int, template: list[str] | None) -> st.SearchStrategy[list[list[str]]]:
    """Rows of random cells (mostly as wide as the header, some a cell short or long) and,
    when a valid `template` row is known, copies of it with some cells replaced."""
    random_row = st.integers(min_value=max(0, width - 1), max_value=width + 1).flatmap(
        lambda n: st.lists(CELL, min_size=n, max_size=n)
    )
    kinds = [random_row, st.lists(CELL, min_size=width, max_size=width)]
    if template is not None:
        kinds.append(mutated(template))
        kinds.append(mutated(template))
        kinds.append(st.just(list(template)))
    return st.lists(st.one_of(*kinds), max_size=12)


def mutated(template: list[str]) -> st.SearchStrategy[list[str]]:
    return st.lists(
        st.one_of(st.none(), st.none(), st.none(), CELL),
        min_size=len(template),
        max_size=len(template),
    ).map(lambda cells: [t if c is None else c for t, c in zip(template, cells, strict=True)])


def encoded(text: str, how: str) -> bytes:
    if how == "cp1252":
        return text.encode("cp1252", errors="replace")
    if how == "bom":
        return b"\xef\xbb\xbf" + text.encode("utf-8")
    return text.encode("utf-8")


def csv_text(header: list[str] | None, rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    if header is not None:
        writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


@st.composite
def files(draw: st.DrawFn, header: list[str] | None, template: list[str] | None = None) -> bytes:
    """Random bytes, or a CSV (with `header`, if any) of random and mutated valid rows, in
    some encoding."""
    kind = draw(st.sampled_from(["rows", "rows", "rows", "bytes", "header-only", "truncated"]))
    if kind == "bytes":
        data = draw(st.binary(max_size=400))
    else:
        width = len(header) if header is not None else 10
        rows = [] if kind == "header-only" else draw(rows_for(width, template))
        if header is None and template is not None and draw(st.booleans()):
            rows.insert(0, list(template))  # headerless files are recognised by a first row
        how = draw(st.sampled_from(["utf-8", "cp1252", "bom"]))
        data = encoded(csv_text(header, rows), how)
        if kind == "truncated":
            data = data[: draw(st.integers(min_value=0, max_value=len(data)))]
        if draw(st.integers(min_value=0, max_value=9)) == 0:
            data += draw(st.binary(min_size=1, max_size=8))  # a stray tail of any bytes
    if draw(st.integers(min_value=0, max_value=5)) == 0:
        data = gzip.compress(data, mtime=0)
        if draw(st.booleans()):
            data = data[: len(data) // 2]  # a truncated archive
    return data


def run(
    parse: Callable[[Path, RejectLog], Iterator[Any]], name: str, data: bytes
) -> tuple[list[Any], RejectLog] | None:
    """Parse `data` saved as `name`: the items and the log, or None when refused whole."""
    with tempfile.TemporaryDirectory(prefix="schooldata-fuzz-") as directory:
        path = Path(directory) / name
        path.write_bytes(data)
        log = RejectLog()
        refusal: ImportRejected | None = None
        try:
            items = list(parse(path, log))
        except ImportRejected as refused:
            refusal = refused
    if refusal is not None:
        assert refusal.message, "a refusal says why"
        event("refused whole")
        return None
    event("items yielded" if items else "no items")
    event("rows rejected" if log.rejects else "no rejects")
    for line, reason in log.rejects:
        assert isinstance(line, int) and line >= 0
        assert isinstance(reason, str) and reason.strip()
    assert log.rows_read >= len(log.rejects) and log.skipped >= 0
    return items, log


def template_of(header: list[str], values: dict[str, str], default: str = "") -> list[str]:
    return [values.get(name, default) for name in header]


# ---- GIAS ----------------------------------------------------------------------------------

GIAS_HEADER = list(dict.fromkeys(gias.COLUMNS_READ))
GIAS_FIXTURE = (
    Path(__file__).resolve().parents[1] / "fixtures" / "importers" / "edubasealldata20250401.csv"
)


def _gias_template() -> list[str]:
    with GIAS_FIXTURE.open(encoding="cp1252", newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        first = next(reader)
    return template_of(GIAS_HEADER, dict(zip(header, first, strict=True)))


GIAS_TEMPLATE = _gias_template()
LINKS_HEADER = list(links.COLUMNS_READ)
LINKS_TEMPLATE = ["100030", "100025", "Islington Green School", "Predecessor", "01-09-2010"]
CODEPOINT_TEMPLATE = ["SW1A1AA", "10", "529090", "179645", "E92000001", "E19000003",
                      "E18000007", "", "E09000033", "E05000644"]  # fmt: skip
ONSPD_HEADER = ["pcd", "pcds", "doterm", "lat", "long", "oseast1m"]
ONSPD_TEMPLATE = ["SW1A1AA", "SW1A 1AA", "", "51.501009", "-0.141588", "529090"]


@FUZZ
@given(data=files(GIAS_HEADER, GIAS_TEMPLATE))
def test_gias_never_raises_anything_but_import_rejected(data: bytes) -> None:
    result = run(gias.parse_gias, "edubasealldata20261101.csv", data)
    if result is None:
        return
    items, log = result
    assert all(isinstance(s, School) for s in items)
    # Every row read is a school or a reject, never lost silently.
    assert len(items) + len(log.rejects) == log.rows_read
    for school in items:
        # Any six ASCII digits is a URN (the contract), `000000` included.
        assert len(str(school.urn)) == 6 and school.name.strip()
        if school.location is not None:
            assert -90 <= school.location.latitude <= 90


@FUZZ
@given(data=files(LINKS_HEADER, LINKS_TEMPLATE))
def test_gias_links_never_raise_anything_but_import_rejected(data: bytes) -> None:
    result = run(links.parse_links, "links_edubasealldata20261101.csv", data)
    if result is not None:
        assert all(isinstance(link, EstablishmentLink) for link in result[0])


# ---- postcodes -----------------------------------------------------------------------------


@FUZZ
@given(data=files(None, CODEPOINT_TEMPLATE))
def test_codepoint_never_raises_anything_but_import_rejected(data: bytes) -> None:
    result = run(parse_codepoint, "sw.csv", data)
    if result is None:
        return
    items, log = result
    for postcode, location in items:
        assert postcode == postcode.strip().upper() and " " not in postcode
        assert isinstance(location, Location)
    assert len(items) + len(log.rejects) + log.skipped >= log.rows_read - 1


@FUZZ
@given(data=files(ONSPD_HEADER, ONSPD_TEMPLATE))
def test_onspd_never_raises_anything_but_import_rejected(data: bytes) -> None:
    result = run(onspd.parse_onspd, "ONSPD_NOV_2025_UK.csv", data)
    if result is None:
        return
    items, log = result
    assert len(items) + len(log.rejects) + log.skipped == log.rows_read
    for _, location in items:
        assert abs(location.latitude) <= 90 and abs(location.longitude) <= 180


# ---- DfE school-level tables -------------------------------------------------------------------


def table_header(spec: TableSpec) -> list[str]:
    """The EES layout of a table: a split column when it has one, with its first value's
    measures; else its wide measures."""
    names = ["time_period", "school_urn"]
    if spec.split is not None:
        names.append(spec.split.column)
        measures = next(iter(spec.split.groups.values()))
    else:
        measures = spec.measures
    for field in measures.values():
        names.extend([field.names[0], *field.cohort[:1]])
    return list(dict.fromkeys(names))


def table_template(spec: TableSpec, header: list[str]) -> list[str]:
    known = {"time_period": "202324", "school_urn": "100001"}
    if spec.split is not None:
        known[spec.split.column] = next(iter(spec.split.groups))
    return template_of(header, known, "55.5")


@pytest.mark.parametrize("dataset", sorted(TABLES))
def test_dfe_tables_never_raise_anything_but_import_rejected(dataset: str) -> None:
    spec = TABLES[dataset]

    header = table_header(spec)

    @FUZZ
    @given(data=files(header, table_template(spec, header)))
    def check(data: bytes) -> None:
        result = run(lambda path, log: parse_table(spec, path, log), f"{dataset}.csv", data)
        if result is None:
            return
        items, _ = result
        assert all(isinstance(m, MeasureRecord) for m in items)
        for record in items:
            value = record.measure.value
            assert value is None or math.isfinite(value)  # never NaN or infinite

    check()


KS4_HEADER = list(dict.fromkeys(ks4_info.COLUMNS_READ))
KS4_TEMPLATE = template_of(
    KS4_HEADER,
    {"school_urn": "100001", "time_period": "202425", "geographic_level": "School"},
    "42.5",
)


@FUZZ
@given(data=files(KS4_HEADER, KS4_TEMPLATE))
def test_ks4_information_never_raises_anything_but_import_rejected(data: bytes) -> None:
    result = run(ks4_info.parse_ks4_information, "202425_information_about_schools.csv", data)
    if result is not None:
        assert all(isinstance(m, MeasureRecord) for m in result[0])


# ---- Ofsted --------------------------------------------------------------------------------


def ofsted_template(header: list[str]) -> list[str]:
    """A valid row of an MI `header`: every judgement and date filled in."""
    values = {"URN": "100001"}
    for name in header:
        low = name.lower()
        if low.startswith("safeguarding") and "effective" not in low:
            values[name] = "Met"
        elif "date" in low:
            values.setdefault(name, "20/11/2025")
        elif "number" in low:
            values.setdefault(name, "10300001")
        elif name in ofsted_mi.GRADED or "oeif" in low:
            values.setdefault(name, "Yes" if "effective?" in low else "2")
        else:
            values.setdefault(name, "Strong standard")
    return ofsted_mi.row(header, values)


@pytest.mark.parametrize(
    "header",
    [ofsted_mi.REPORT_CARD, ofsted_mi.GRADED, ofsted_mi.LATEST],
    ids=["report-card", "graded", "latest-inspections"],
)
def test_ofsted_never_raises_anything_but_import_rejected(header: list[str]) -> None:
    # One row of the latest-inspections layout may hold a report card, a graded and an ungraded
    # inspection.
    most = 3 if header is ofsted_mi.LATEST else 1

    @FUZZ
    @given(data=files(header, ofsted_template(header)))
    def check(data: bytes) -> None:
        result = run(ofsted.parse_ofsted, "ofsted_mi.csv", data)
        if result is None:
            return
        items, log = result
        assert all(isinstance(r, InspectionRecord) for r in items)
        # Every row read is an inspection (three, at most, in the latest-inspections layout),
        # a reject or skipped (no inspection yet), never lost silently.
        accounted = len(items) + len(log.rejects) + log.skipped
        assert log.rows_read <= accounted <= most * log.rows_read

    check()
