"""The CLI with the production wiring (`schooldata.__main__.runtime`) on real SQLite files:
imports of the publishers' files, and which commands may create a database."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from schooldata.__main__ import runtime
from schooldata.entrypoints.cli.app import cli

FIXTURES = Path(__file__).parent.parent / "fixtures" / "importers"
GIAS = FIXTURES / "edubasealldata20250401.csv"
SECRET = "a-test-secret-of-at-least-32-characters"


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return tmp_path / "real.sqlite3"


@pytest.fixture
def run(tmp_path: Path, database: Path) -> Any:
    env = {
        "SCHOOLDATA_KEY_SECRET": SECRET,
        "SCHOOLDATA_DATABASE_URL": None,
        "SCHOOLDATA_CONFIG": None,
        "SCHOOLDATA_HOME": str(tmp_path / "home"),
    }

    def invoke(*args: str, db: Path | str = database) -> Result:
        url = db if isinstance(db, str) else f"sqlite:///{db}"
        return CliRunner().invoke(cli, ["--db", url, *args], obj=runtime(), env=env)

    return invoke


def served_urns(run: Any) -> list[int]:
    result = run("--format", "json", "schools", "--all")
    assert result.exit_code == 0, result.stderr
    return [item["urn"] for item in json.loads(result.stdout)]


# ------------------------------------------------------------------ cut-off files


def cut_mid_row(tmp_path: Path) -> Path:
    """The GIAS fixture as an interrupted download leaves it: the last row cut in half."""
    data = GIAS.read_bytes().rstrip(b"\r\n")
    last_row = data.rsplit(b"\n", 1)[1]
    cut = tmp_path / "edubasealldata20250402.csv"
    cut.write_bytes(data[: -(len(last_row) // 2)])
    return cut


def cut_in_a_quote(tmp_path: Path) -> Path:
    data = GIAS.read_bytes().rstrip(b"\r\n")
    last_row = data.rsplit(b"\n", 1)[1]
    opening = data.rfind(b'"', len(data) - len(last_row), len(data) - len(last_row) + 40)
    cut = tmp_path / "edubasealldata20250403.csv"
    cut.write_bytes(data[: opening + 4])  # just inside the last row's first quoted field
    return cut


@pytest.mark.parametrize("cut", [cut_mid_row, cut_in_a_quote], ids=["short-row", "open-quote"])
def test_a_file_cut_off_mid_row_is_refused_and_nothing_is_imported(
    run: Any, tmp_path: Path, cut: Any
) -> None:
    first = run("--format", "json", "import", "gias", str(GIAS))
    assert first.exit_code == 0, first.stderr
    before = served_urns(run)
    assert before

    path = cut(tmp_path)
    result = run("import", "gias", str(path))

    assert result.exit_code == 3
    [line] = result.stderr.splitlines()
    assert line.startswith(f"Error: {path.name}: the file is cut off: ")
    assert result.stdout == ""
    assert served_urns(run) == before


# ------------------------------------------------------------------ which commands create


READ_ONLY = [
    ["search", "st mary"],
    ["school", "100001"],
    ["schools"],
    ["nearby", "SW1A 1AA"],
    ["inspections", "100001"],
    ["compare", "100001", "100002"],
    ["rankings", "--metric", "svc_score", "--phase", "primary"],
    ["authorities"],
    ["freshness"],
    ["meta"],
    ["keys", "list"],
    ["keys", "create", "--org", "acme", "--name", "laptop"],
    ["keys", "revoke", "svc_live_AbC1"],
    ["orgs", "set-plan", "acme", "enterprise"],
]


@pytest.mark.parametrize("args", READ_ONLY, ids=lambda args: " ".join(args[:2]))
def test_a_command_that_only_reads_never_creates_a_missing_database(
    run: Any, database: Path, args: list[str]
) -> None:
    result = run(*args)
    assert result.exit_code == 3
    assert result.stderr.splitlines() == [
        f"Error: There is no database at {database} (sqlite:///{database}): create it with "
        "'schooldata db upgrade' or an import, or check --db."
    ]
    assert not database.exists()


def test_a_file_that_is_no_schooldata_database_is_refused_and_left_alone(
    run: Any, database: Path
) -> None:
    database.write_bytes(b"")
    result = run("meta")
    assert result.exit_code == 3
    assert "holds no schooldata data" in result.stderr
    assert str(database) in result.stderr
    assert database.read_bytes() == b""


def test_an_unreachable_database_is_named_without_its_password(run: Any) -> None:
    url = "postgresql+psycopg://someone:hunter2@127.0.0.1:1/nowhere?connect_timeout=2"
    result = run("meta", db=url)
    assert result.exit_code == 3
    [line] = result.stderr.splitlines()
    assert line.startswith(
        "Error: Cannot open the database postgresql+psycopg://someone:***@127.0.0.1:1/nowhere"
    )
    assert "hunter2" not in result.stderr


def test_import_and_db_upgrade_create_the_database_and_then_it_is_read(
    run: Any, tmp_path: Path, database: Path
) -> None:
    assert run("db", "upgrade").exit_code == 0
    assert run("--format", "json", "freshness").exit_code == 1  # there, and empty
    other = tmp_path / "imported.sqlite3"
    imported = run("import", "gias", str(GIAS), db=other)
    assert imported.exit_code == 0, imported.stderr
    assert run("--format", "json", "school", "100001", "--public", db=other).exit_code == 0


def test_serve_never_creates_the_database_it_is_pointed_at(tmp_path: Path, database: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "SCHOOLDATA_KEY_SECRET": SECRET, "SCHOOLDATA_HOME": str(tmp_path)}
    env.pop("SCHOOLDATA_DATABASE_URL", None)
    command = [sys.executable, "-m", "schooldata", "--db", f"sqlite:///{database}", "serve"]
    finished = subprocess.run(
        [*command, "--port", str(port)], env=env, capture_output=True, text=True, timeout=120
    )
    assert finished.returncode == 3, finished.stderr
    assert f"Error: There is no database at {database}" in finished.stderr
    assert not database.exists()


# ------------------------------------------------------------------ honest import counts

FIXTURE_IMPORTS = [
    ("postcodes", "codepoint"),
    ("postcodes", "ONSPD_NOV_2025_UK_sample.csv"),
    ("gias", "edubasealldata20250401.csv"),
    ("gias", "edubasealldata20240115.csv"),
    ("links", "links_edubasealldata20250422.csv"),
    ("ks4-info", "202425_information_about_schools_provisional.csv"),
    ("ks2-results", "ks2_school_attainment_data.csv"),
    ("ks5-results", "institution_performance_202225.csv"),
    ("ks5-destinations", "1618_dm_institution_level_202223.csv"),
    ("admissions", "AppsandOffers_2025_SchoolLevel.csv"),
    ("ks4-results", "2018-2019/england_ks4final.csv"),
    ("finance", "2022-2023/england_cfr.csv"),
    (
        "ofsted",
        "Management_information_-_state-funded_schools_-_all_inspections_-_year_to_date_"
        "published_by_31_Aug_2025.csv",
    ),
]


@pytest.mark.parametrize(("dataset", "name"), FIXTURE_IMPORTS, ids=[n for _, n in FIXTURE_IMPORTS])
def test_every_row_read_is_counted_imported_skipped_or_rejected(
    run: Any, dataset: str, name: str
) -> None:
    result = run("--format", "json", "import", dataset, str(FIXTURES / name))
    assert result.exit_code == 0, result.stderr
    [report] = json.loads(result.stdout)
    parts = (report["rows_imported"], report["rows_skipped"], report["rows_rejected"])
    assert report["rows_read"] == sum(parts), report
    assert report["rows_imported"] > 0
    assert report["records_stored"] >= report["rows_imported"]
    assert report["rows_rejected"] == len(report["rejects"])


def test_rows_and_the_records_they_give_are_counted_apart(run: Any) -> None:
    path = FIXTURES / "202425_information_about_schools_provisional.csv"
    result = run("--format", "csv", "import", "ks4-info", str(path))
    assert result.exit_code == 0, result.stderr
    # 6 rows: the National row skipped, a bad URN rejected, 4 schools of 6 measures each.
    assert result.stdout.splitlines() == [
        "dataset,rows_read,rows_imported,rows_skipped,rows_rejected,records_stored",
        "ks4_information,6,4,1,1,24",
    ]


def test_a_row_replaced_by_a_later_row_for_the_same_school_is_not_counted_imported(
    run: Any, tmp_path: Path
) -> None:
    lines = GIAS.read_bytes().split(b"\r\n")
    header, first = lines[0], lines[1]
    repeated = tmp_path / "edubasealldata20250405.csv"
    repeated.write_bytes(b"\r\n".join([header, first, first, b""]))
    result = run("--format", "json", "import", "gias", str(repeated))
    assert result.exit_code == 0, result.stderr
    [report] = json.loads(result.stdout)
    counts = [report[k] for k in ("rows_read", "rows_imported", "rows_skipped", "records_stored")]
    assert counts == [2, 1, 1, 1]


def test_the_documented_missing_database_example_exits_3(
    run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = (Path(__file__).parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    row_3 = next(line for line in docs.splitlines() if line.startswith("| 3 |"))
    assert "`--db sqlite:///missing.sqlite3 meta`" in row_3
    monkeypatch.chdir(tmp_path)
    result = run("meta", db="sqlite:///missing.sqlite3")
    assert result.exit_code == 3
    assert not (tmp_path / "missing.sqlite3").exists()
