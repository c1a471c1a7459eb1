"""Postcodes: OS Code-Point Open (no header, grid references) and ONSPD (header, lat/long)."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.adapters.importers.codepoint import parse_codepoint, postcode_key
from schooldata.adapters.importers.onspd import parse_onspd
from schooldata.adapters.importers.postcodes import detect_postcode_format, parse_postcodes
from schooldata.domain.errors import ImportRejected, InvalidParameter
from schooldata.domain.geo import Location, distance_miles
from schooldata.domain.postcode import parse_postcode
from schooldata.ports.imports import RejectLog

FIXTURES = Path(__file__).parent.parent / "fixtures" / "importers"
CODEPOINT = FIXTURES / "codepoint"
ONSPD = FIXTURES / "ONSPD_NOV_2025_UK_sample.csv"
PALACE = Location(51.50101, -0.14156)


def near(a: Location, b: Location, metres: float = 50.0) -> bool:
    return distance_miles(a, b) * 1609.344 < metres


def codepoint(source: object, **kwargs: int) -> tuple[dict[str, Location], RejectLog]:
    log = RejectLog()
    return dict(parse_codepoint(source, log, **kwargs)), log  # type: ignore[arg-type]


def test_a_codepoint_directory_yields_located_postcodes() -> None:
    found, _log = codepoint(CODEPOINT)
    assert sorted(found) == ["AB101AB", "AB101AF", "SW1A1AA", "SW1A2AA"]
    assert near(found["SW1A1AA"], PALACE)
    assert 57.1 < found["AB101AB"].latitude < 57.2


def test_quality_90_and_zero_grid_rows_are_skipped_never_located_at_zero() -> None:
    found, log = codepoint(CODEPOINT / "ab.csv.gz")
    assert "AB431AJ" not in found
    assert "AB999ZZ" not in found
    assert log.skipped == 2
    assert log.rows_read == 4
    assert all(loc.latitude > 49 for loc in found.values())


def test_header_like_leading_rows_are_skipped_and_bad_rows_rejected() -> None:
    found, log = codepoint(CODEPOINT / "sw.csv")
    assert sorted(found) == ["SW1A1AA", "SW1A2AA"]  # "sw1a 2aa" normalised
    assert log.rows_read == 4  # the header is not a row
    assert log.rejects == [
        (4, "sw.csv: 'NOT A POSTCODE' is not a full postcode"),
        (5, "sw.csv: SW1A0AA: unusable grid reference 'abc', '179500'"),
    ]


def test_the_products_column_header_file_contributes_nothing() -> None:
    found, log = codepoint(CODEPOINT / "Code-Point_Open_Column_Headers.csv")
    assert found == {}
    assert (log.rows_read, log.rejects) == (0, [])


def test_globs_and_lists_of_files_work(tmp_path: Path) -> None:
    by_glob, _ = codepoint(str(CODEPOINT / "*.csv*"))
    by_list, _ = codepoint([CODEPOINT / "sw.csv", CODEPOINT / "ab.csv.gz"])
    assert by_glob == by_list == codepoint(CODEPOINT)[0]


@pytest.mark.parametrize("batch_size", [1, 2, 3])
def test_small_batches_change_nothing(batch_size: int) -> None:
    assert codepoint(CODEPOINT, batch_size=batch_size)[0] == codepoint(CODEPOINT)[0]


def test_a_file_that_is_not_codepoint_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("URN,EstablishmentName\n100001,A\n")
    with pytest.raises(ImportRejected, match="not an OS Code-Point Open CSV"):
        parse_codepoint(path, RejectLog())


def test_progress_reports_the_final_count() -> None:
    seen: list[int] = []
    list(parse_codepoint(CODEPOINT, RejectLog(), progress=seen.append))
    assert seen[-1] == 8


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="AB1029 XYZsw\t", min_size=0, max_size=10))
def test_postcode_key_agrees_with_the_domain_grammar(raw: str) -> None:
    try:
        query = parse_postcode(raw)
        expected = None if query.is_outward_only else query.compact
    except InvalidParameter:
        expected = None
    assert postcode_key(raw) == expected


def test_onspd_skips_terminated_and_unlocated_postcodes() -> None:
    log = RejectLog()
    found = dict(parse_onspd(ONSPD, log))
    assert sorted(found) == ["BT11AA", "SW1A1AA"]  # ONSPD covers Northern Ireland
    assert near(found["SW1A1AA"], PALACE)
    assert log.skipped == 2  # SW1A 0PW terminated; AB43 1AJ at 99.999999
    assert [line for line, _ in log.rejects] == [6, 7]  # GIR 0AA, unparseable lat/long


def test_onspd_columns_match_case_insensitively(tmp_path: Path) -> None:
    path = tmp_path / "nspl.csv"
    path.write_text("PCD7,DOTERM,LAT,LONG\nSW1A1AA,,51.501009,-0.141588\n")
    assert dict(parse_onspd(path, RejectLog())) == {"SW1A1AA": Location(51.501009, -0.141588)}


def test_onspd_without_lat_long_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "onspd.csv"
    path.write_text("pcds,doterm\nSW1A 1AA,\n")
    with pytest.raises(ImportRejected, match="not an ONSPD file"):
        parse_onspd(path, RejectLog())


def test_the_postcode_format_is_detected(tmp_path: Path) -> None:
    assert detect_postcode_format([CODEPOINT / "ab.csv.gz"]) == "codepoint"
    assert detect_postcode_format([CODEPOINT / "sw.csv"]) == "codepoint"  # with a header
    assert detect_postcode_format([ONSPD]) == "onspd"
    other = tmp_path / "x.csv"
    other.write_text("a,b,c\n1,2,3\n")
    with pytest.raises(ImportRejected, match="neither OS Code-Point Open"):
        detect_postcode_format([other])


def test_parse_postcodes_dispatches_on_the_format(tmp_path: Path) -> None:
    assert sorted(dict(parse_postcodes(ONSPD, RejectLog()))) == ["BT11AA", "SW1A1AA"]
    gz = tmp_path / "onspd.csv.gz"
    with gzip.open(gz, "wb") as out, ONSPD.open("rb") as src:
        shutil.copyfileobj(src, out)
    assert sorted(dict(parse_postcodes(gz, RejectLog()))) == ["BT11AA", "SW1A1AA"]
    assert "AB101AB" in dict(parse_postcodes(CODEPOINT, RejectLog()))


def test_a_codepoint_file_with_a_quote_left_open_is_refused_even_ending_in_a_line_break(
    tmp_path: Path,
) -> None:
    """The fast reader's gap (it only watched the last line): a quote opened on an earlier
    line of an unquoted re-save swallows every row after it into one field, and the file still
    ends with a line break. (In the product's own quoting the next quote closes it again.)"""
    rows = [f"AB10 1A{c},10,394251,806376,S92000003,,S08000020,,S12000033,S13002842"
            for c in "BDEF"]  # fmt: skip
    rows[1] = '"' + rows[1]
    path = tmp_path / "ab.csv"
    path.write_text("\n".join(rows) + "\n", encoding="ascii")
    log = RejectLog()
    with pytest.raises(ImportRejected, match=r"ab\.csv: the file is cut off: a quoted field opens"):
        list(parse_codepoint(path, log))
