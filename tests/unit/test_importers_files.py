"""Reading publishers' files: encodings, gzip, sources, CSV records, counting and progress."""

from __future__ import annotations

import csv
import gzip
import io
import zipfile
from pathlib import Path

import pytest

from schooldata.adapters.importers.files import decoding
from schooldata.adapters.importers.files.columns import Columns
from schooldata.adapters.importers.files.counting import RowCounter
from schooldata.adapters.importers.files.rows import csv_rows, plain_rows, read_header
from schooldata.adapters.importers.files.sources import expand_sources, label_of, single_file
from schooldata.domain.errors import ImportRejected
from schooldata.ports.imports import RejectLog


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def fields(path: Path) -> list[list[str]]:
    return [row for _, row in csv_rows(path)]


@pytest.fixture(params=[4, 5, 1 << 20], ids=["chunk4", "chunk5", "chunk1MiB"])
def chunk(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """Run decoding tests with tiny chunks too, so multi-byte characters straddle chunks."""
    size: int = request.param
    monkeypatch.setattr(decoding, "_CHUNK", size)
    return size


def test_cp1252_0x92_comes_back_as_a_right_single_quote(tmp_path: Path, chunk: int) -> None:
    path = write(tmp_path / "a.csv", b'"Name"\r\n"St Mary\x92s"\r\n')
    assert fields(path) == [["Name"], ["St Mary’s"]]


def test_a_cp1252_byte_after_much_ascii_still_decodes(tmp_path: Path, chunk: int) -> None:
    body = b"x\n" * 5000 + b"Caf\xe9\n"
    path = write(tmp_path / "a.csv", body)
    rows = fields(path)
    assert rows[-1] == ["Café"]
    assert len(rows) == 5001


def test_utf8_with_and_without_bom(tmp_path: Path, chunk: int) -> None:
    text = "Name\nÉcole Française ’\n".encode()
    assert fields(write(tmp_path / "a.csv", text))[1] == ["École Française ’"]
    bom = fields(write(tmp_path / "b.csv", b"\xef\xbb\xbf" + text))
    assert bom[0] == ["Name"]  # the BOM is not part of the first column's name


def test_a_byte_undefined_in_cp1252_is_refused_not_replaced(tmp_path: Path) -> None:
    path = write(tmp_path / "a.csv", b"Name\nBad\x81byte\n")
    with pytest.raises(ImportRejected, match=r"0x81 at offset 8 .*neither UTF-8 nor Windows-1252"):
        fields(path)


def test_utf8_text_then_a_stray_cp1252_byte_is_refused(tmp_path: Path, chunk: int) -> None:
    # Once real UTF-8 was decoded, switching to cp1252 would garble what came before.
    path = write(tmp_path / "a.csv", "Café\n".encode() + b"St Mary\x92s\n")
    with pytest.raises(ImportRejected, match="0x92 at offset 13 is not valid UTF-8"):
        fields(path)


def test_gzip_is_recognised_by_content_whatever_the_name(tmp_path: Path) -> None:
    data = gzip.compress(b'"AB10 1AB",10\n')
    for name in ("a.csv.gz", "b.csv"):
        assert fields(write(tmp_path / name, data)) == [["AB10 1AB", "10"]]


def test_a_truncated_gzip_is_refused_with_its_name(tmp_path: Path) -> None:
    data = gzip.compress(b'"AB10 1AB",10\n' * 1000)
    path = write(tmp_path / "ab.csv.gz", data[: len(data) // 2])
    with pytest.raises(ImportRejected, match=r"ab\.csv\.gz cannot be read"):
        fields(path)


def test_records_report_the_line_they_start_on(tmp_path: Path) -> None:
    path = write(tmp_path / "a.csv", b'h1,h2\r\n1,"two\r\nlines"\r\n\r\n3,x\r\n')
    assert list(csv_rows(path)) == [(1, ["h1", "h2"]), (2, ["1", "two\r\nlines"]), (5, ["3", "x"])]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b'h1,h2,h3\n1,2,3\n4,"fi', r"the quoted field of the record at line 3 never closes"),
        (b'h1,h2,h3\n1,"two\nlines', r"the quoted field of the record at line 2 never closes"),
        (b'h1,h2,h3\n1,2,3\n4,"five\n', r"the quoted field of the record at line 3 never closes"),
        (b"h1,h2,h3\r\n1,2,3\r\n4,5", r"its last record \(line 3\) has 2 of 3 fields and no line"),
    ],
    ids=["open-quote", "open-multiline-quote", "open-quote-then-newline", "short-last-row"],
)
def test_a_file_cut_off_mid_record_is_refused_once_read(
    tmp_path: Path, chunk: int, data: bytes, reason: str
) -> None:
    path = write(tmp_path / "cut.csv", data)
    with pytest.raises(ImportRejected, match=rf"cut\.csv: the file is cut off: {reason}"):
        fields(path)


@pytest.mark.parametrize(
    "data",
    [
        b"h1,h2\n1,2",  # no line break after a whole last record
        b'h1,h2\n1,"2"',
        b'h1,h2\n1,"two\nlines"',
        b"h1,h2\n1,2\n3\n",  # a short row with its line break is a bad row, not a cut
        b"h1,h2\n1,2\n\n",
        b"h1,h2",
        b"",
    ],
)
def test_a_whole_file_is_read_with_or_without_a_final_line_break(
    tmp_path: Path, chunk: int, data: bytes
) -> None:
    path = write(tmp_path / "whole.csv", data)
    expected = [row for row in csv.reader(data.decode().splitlines()) if row]
    if data == b'h1,h2\n1,"two\nlines"':
        expected = [["h1", "h2"], ["1", "two\nlines"]]
    assert fields(path) == expected


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b'"AB10 1AB",10,394251,806376\n"AB10 1AF",10,3942', r"its last line has 3 of 4 fields"),
        (b'"AB10 1AB",10,394251,806376\n"AB10 1', r"its last line opens a quoted field"),
        # A quote left open on an earlier line, in a file that still ends with a line break.
        (
            b'"AB10 1AB",10,394251,806376\n"AB10 1AF,10,394235,806\nAB10 1AG,10,394230,8\n',
            r"a quoted field opens and never closes",
        ),
        (b'"AB10 1AB",10,394251,806376\n"AB10 1AF,10,394235,8\n', r"a quoted field opens"),
    ],
    ids=[
        "short-last-line",
        "open-quote-last-line",
        "open-quote-earlier",
        "open-quote-then-newline",
    ],
)
def test_plain_rows_refuse_a_file_cut_off_on_its_last_line(
    tmp_path: Path, data: bytes, reason: str
) -> None:
    path = write(tmp_path / "ab.csv", data)
    with (
        pytest.raises(ImportRejected, match=rf"ab\.csv: the file is cut off: {reason}"),
        plain_rows(path) as rows,
    ):
        list(rows)


def test_plain_rows_read_a_whole_last_line_without_a_line_break(tmp_path: Path) -> None:
    path = write(tmp_path / "ab.csv", b'"AB10 1AB",10,394251,806376\n"AB10 1AF",10,394235,806')
    with plain_rows(path) as rows:
        assert [row[0] for row in rows] == ["AB10 1AB", "AB10 1AF"]


def test_plain_rows_stop_where_the_file_does(tmp_path: Path) -> None:
    """The end marks never reach the caller, with or without a final line break, and a pair of
    quotes that does close is not a cut."""
    for data in (b'"A",1\n"B","2"\n', b'"A",1\n"B","2"', b'"A",1\r\n"B,\n2",3\r\n'):
        path = write(tmp_path / "a.csv", data)
        with plain_rows(path) as rows:
            assert list(rows) == list(csv.reader(io.StringIO(data.decode(), newline="")))


def test_plain_rows_reads_every_record(tmp_path: Path) -> None:
    path = write(tmp_path / "a.csv.gz", gzip.compress(b'"A",1\n"B",2\n'))
    with plain_rows(path) as rows:
        assert list(rows) == [["A", "1"], ["B", "2"]]


def test_a_header_is_trimmed_and_an_empty_file_is_refused(tmp_path: Path) -> None:
    assert read_header(write(tmp_path / "a.csv", b'" URN ","Name"\n')) == ["URN", "Name"]
    with pytest.raises(ImportRejected, match="empty"):
        read_header(write(tmp_path / "b.csv", b""))


def test_columns_refuse_a_file_missing_required_names(tmp_path: Path) -> None:
    path = write(tmp_path / "a.csv", b"URN,Other\n")
    with pytest.raises(ImportRejected, match=r"missing column.*'EstablishmentName'"):
        Columns.read(path, required=["URN", "EstablishmentName"], what="GIAS establishments")


def test_a_directory_expands_to_its_data_files_recursively(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    for name in ("b.csv", "a.csv.gz", "sub/c.CSV", "notes.txt", "d.csv.zip"):
        write(tmp_path / name, b"x\n")
    assert [p.relative_to(tmp_path).as_posix() for p in expand_sources(tmp_path)] == [
        "a.csv.gz",
        "b.csv",
        "sub/c.CSV",
    ]


def test_globs_lists_and_single_files_expand(tmp_path: Path) -> None:
    a, b = write(tmp_path / "a.csv", b"x\n"), write(tmp_path / "b.csv", b"x\n")
    assert expand_sources(str(tmp_path / "*.csv")) == [a, b]
    assert expand_sources([b, str(a)]) == [b, a]
    assert expand_sources(a) == [a]


def test_nothing_to_read_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ImportRejected, match="No such file"):
        expand_sources(tmp_path / "missing.csv")
    with pytest.raises(ImportRejected, match="No data files"):
        expand_sources(str(tmp_path / "*.csv"))
    with pytest.raises(ImportRejected, match="No data files"):
        expand_sources(tmp_path)


def test_single_file_datasets_refuse_several_files(tmp_path: Path) -> None:
    write(tmp_path / "a.csv", b"x\n")
    write(tmp_path / "b.csv", b"x\n")
    with pytest.raises(ImportRejected, match="exactly one file; got 2"):
        single_file(tmp_path, "A GIAS establishments extract")


def test_row_counter_counts_and_reports_progress_every_n_rows() -> None:
    log, seen = RejectLog(), []
    counter = RowCounter(log, seen.append, every=3)
    for _ in range(7):
        counter.row()
    counter.add(5)
    counter.done()
    assert log.rows_read == 12
    assert seen == [3, 6, 12, 12]


# ---- zip archives, as OS, ONS and EES publish them ----------------------------------------------


def zipped(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def test_a_zip_is_read_in_place_as_its_csv_members_in_any_folder(tmp_path: Path) -> None:
    archive = zipped(
        tmp_path / "codepo_gb.zip",
        {
            "Doc/licence.txt": b"OGL",
            "Data/CSV/sw.csv": b'"SW1A 1AA",10\n',
            "Data/CSV/ab.csv.gz": gzip.compress(b'"AB10 1AB",10\n'),
            "Data/": b"",
        },
    )
    paths = expand_sources(archive)
    assert [label_of(p) for p in paths] == [
        "codepo_gb.zip:Data/CSV/ab.csv.gz",
        "codepo_gb.zip:Data/CSV/sw.csv",
    ]
    assert [fields(p) for p in paths] == [[["AB10 1AB", "10"]], [["SW1A 1AA", "10"]]]


def test_a_directory_holding_a_zip_reads_the_zips_members(tmp_path: Path) -> None:
    zipped(tmp_path / "release.zip", {"data/a.csv": b"x\n"})
    write(tmp_path / "b.csv", b"y\n")
    assert [label_of(p) for p in expand_sources(tmp_path)] == [
        "b.csv",
        "release.zip:data/a.csv",
    ]


def test_a_zip_member_in_cp1252_decodes_like_a_file(tmp_path: Path) -> None:
    archive = zipped(
        tmp_path / "gias.zip", {"edubasealldata20251101.csv": b'"Name"\r\n"St Mary\x92s"\r\n'}
    )
    (path,) = expand_sources(archive)
    assert fields(path) == [["Name"], ["St Mary’s"]]
    assert single_file(archive, "A GIAS establishments extract") == path


def test_a_zip_without_csv_files_is_refused_with_its_name(tmp_path: Path) -> None:
    archive = zipped(tmp_path / "docs.zip", {"readme.txt": b"hello"})
    with pytest.raises(ImportRejected, match=r"docs\.zip: the zip archive holds no \.csv"):
        expand_sources(archive)


def test_a_bad_byte_in_a_zip_member_names_the_archive_and_member(tmp_path: Path) -> None:
    archive = zipped(tmp_path / "ees.zip", {"data/table.csv": b"Name\nBad\x81byte\n"})
    with pytest.raises(ImportRejected, match=r"ees\.zip:data/table\.csv: byte 0x81"):
        fields(expand_sources(archive)[0])


def test_a_zip_with_several_tables_asks_for_one(tmp_path: Path) -> None:
    archive = zipped(tmp_path / "ees.zip", {"data/a.csv": b"x\n", "data/b.csv": b"y\n"})
    with pytest.raises(ImportRejected, match=r"exactly one file; got 2: ees\.zip:data/a\.csv"):
        single_file(archive, "A KS4 school results table")
