"""The CLI with the production wiring (`schooldata.__main__.runtime`) on real SQLite files:
imports of the publishers' files, and which commands may create a database."""

from __future__ import annotations

import json
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
