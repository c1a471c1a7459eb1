"""What the CLI writes: every field of every row, whole values, numbers as numbers, UTF-8
whatever the locale, and `--output` only ever replacing a regular file."""

from __future__ import annotations

import csv
import io
import json
import os
import socket
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from schooldata.application.service import Application
from schooldata.entrypoints.cli.app import cli
from schooldata.entrypoints.cli.output import RowsView, Writer
from schooldata.entrypoints.cli.runtime import CliRuntime
from schooldata.settings import Settings

ANY = RowsView(table=(), csv=None)
UNEVEN = [
    {"urn": 100001, "name": "A", "measures": {"ks2": 71.5}},
    {"urn": 100002, "name": "B", "measures": {"ks4": 46.25}, "capacity": 1200},
]


@pytest.fixture
def run(app: Application, tmp_path: Path) -> Any:
    def load_settings(environ: Any = None, **overrides: Any) -> Settings:
        return Settings(home=tmp_path, base_url="http://testserver.local")

    runtime = CliRuntime(
        load_settings=load_settings,
        build_app=lambda settings, **_: app,
        serve=print,
        upgrade=print,
        importers=dict,
        load_sample=lambda a: [],
    )

    def invoke(*args: str, charset: str = "utf-8") -> Result:
        return CliRunner(charset=charset).invoke(cli, list(args), obj=runtime)

    return invoke


def written(fmt: Any, produce: Any) -> str:
    stream = io.StringIO()
    produce(Writer(fmt, stream))
    return stream.getvalue()


# ------------------------------------------------------------------ every field of every row


def test_csv_columns_are_every_key_of_every_row_in_the_order_first_seen() -> None:
    text = written("csv", lambda w: w.rows(UNEVEN, ANY))
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == ["urn", "name", "measures.ks2", "measures.ks4", "capacity"]
    assert rows[0] == {
        "urn": "100001",
        "name": "A",
        "measures.ks2": "71.5",
        "measures.ks4": "",
        "capacity": "",
    }
    assert (rows[1]["measures.ks4"], rows[1]["capacity"]) == ("46.25", "1200")


def test_table_columns_are_every_key_of_every_row() -> None:
    text = written("table", lambda w: w.rows(UNEVEN, ANY))
    for header in ("measures.ks2", "measures.ks4", "capacity"):
        assert header in text
    assert "1200" in text


def test_compare_shows_the_measures_only_later_schools_have(run: Any) -> None:
    # A primary first: the secondary's KS4 measures are not among the primary's keys.
    answer = run("--format", "json", "compare", "100001", "100002")
    assert answer.exit_code == 0, answer.stderr
    first, second = json.loads(answer.stdout)["schools"]
    later_only = [key for key in second["measures"] if key not in first["measures"]]
    assert later_only
    table = run("--format", "csv", "compare", "100001", "100002")
    header = next(csv.reader(io.StringIO(table.stdout)))
    assert all(f"measures.{key}.value" in header for key in later_only)


def test_empty_and_nested_values_are_written_as_json_not_dropped_or_blank() -> None:
    record = {"urn": 1, "inspections": [], "details": {}, "grid": [[1, 2], [3]], "tags": ["a", "b"]}
    text = written("csv", lambda w: w.record(record))
    [row] = list(csv.DictReader(io.StringIO(text)))
    assert row == {
        "urn": "1",
        "inspections": "[]",
        "details": "{}",
        "grid": "[[1, 2], [3]]",
        "tags": "a; b",
    }


# ------------------------------------------------------------------ whole values


def test_a_table_shows_numbers_and_long_text_whole() -> None:
    long_name = "The " + "Very " * 40 + "Long School"
    rows = [{"urn": 100001, "name": long_name, "latitude": 51.558001945485934, "pupils": 1234567}]
    text = written("table", lambda w: w.rows(rows, ANY))
    assert "51.558001945485934" in text
    assert "1234567" in text
    assert long_name in text
    assert "…" not in text


def test_a_record_table_shows_its_values_whole() -> None:
    record = {"location": {"latitude": 51.558001945485934}, "url": "http://x/" + "a" * 300}
    text = written("table", lambda w: w.record(record))
    assert "51.558001945485934" in text
    assert record["url"] in text


# ------------------------------------------------------------------ numbers stay numbers


def test_json_numbers_are_numbers(run: Any) -> None:
    compared = json.loads(run("--format", "json", "compare", "100001", "100002").stdout)
    for school in compared["schools"]:
        assert isinstance(school["urn"], int)
        for measure in school["measures"].values():
            assert measure["value"] is None or isinstance(measure["value"], int | float)
    freshness = json.loads(run("--format", "json", "freshness").stdout)
    assert all(isinstance(item["rows"], int) for item in freshness)


# ------------------------------------------------------------------ UTF-8 whatever the locale


@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
def test_output_is_utf8_even_where_the_locale_is_not(run: Any, fmt: str) -> None:
    result = run("--format", fmt, "school", "100001", "--public", charset="latin-1")
    assert result.exit_code == 0, result.output
    assert "St Mary’s Church of England Primary School" in result.stdout_bytes.decode("utf-8")


# ------------------------------------------------------------------ --output safety


def test_output_refuses_a_directory(run: Any, tmp_path: Path) -> None:
    target = tmp_path / "answers"
    target.mkdir()
    result = run("--output", str(target), "meta")
    assert result.exit_code == 3
    assert result.stderr.splitlines() == [
        f"Error: {target}: a directory; --output only writes (or replaces) a regular file"
    ]
    assert target.is_dir()
    assert list(target.iterdir()) == []


def test_output_refuses_a_fifo_and_leaves_it_in_place(run: Any, tmp_path: Path) -> None:
    target = tmp_path / "pipe"
    os.mkfifo(target)
    result = run("--format", "json", "--output", str(target), "meta")
    assert result.exit_code == 3
    assert result.stderr.splitlines() == [
        f"Error: {target}: not a regular file; --output only writes (or replaces) a regular file"
    ]
    assert target.is_fifo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]  # no temporary left


def test_output_refuses_a_socket(run: Any, tmp_path: Path) -> None:
    target = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(target))
        result = run("--output", str(target), "meta")
    assert result.exit_code == 3
    assert "not a regular file" in result.stderr


def test_output_through_a_link_replaces_the_file_it_points_at(run: Any, tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "latest.json"
    link.symlink_to(real)
    result = run("--format", "json", "--output", str(link), "meta")
    assert result.exit_code == 0, result.stderr
    assert link.is_symlink()
    assert json.loads(real.read_text(encoding="utf-8"))["service"] == "schooldata"


def test_output_through_a_link_to_a_fifo_is_refused(run: Any, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "out.json"
    link.symlink_to(fifo)
    result = run("--output", str(link), "meta")
    assert result.exit_code == 3
    assert fifo.is_fifo() and link.is_symlink()
