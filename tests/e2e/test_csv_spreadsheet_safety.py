"""A publisher's file is untrusted input: a school whose name is a spreadsheet formula,
imported through the real GIAS importer, comes out of REST's `text/csv` and the CLI's
`--format csv` as text a spreadsheet will not run (`entrypoints/tables.py`, one writer)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from litestar.testing import TestClient
from tests.support.http import bearer

from schooldata.__main__ import runtime
from schooldata.bootstrap import bootstrap
from schooldata.entrypoints.cli.app import cli
from schooldata.entrypoints.rest.app import create_app
from schooldata.settings import load_settings

GIAS = Path(__file__).parent.parent / "fixtures" / "importers" / "edubasealldata20250401.csv"
SECRET = "a-test-secret-of-at-least-32-characters"
FORMULA = '=HYPERLINK("http://evil.example","click")'
BASE_URL = "http://testserver.local"


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, str]:
    """A SQLite database holding the GIAS fixture whose first school is named `FORMULA`,
    imported by `schooldata import gias`; its URN."""
    folder = tmp_path_factory.mktemp("formula")
    rows = list(csv.reader(io.StringIO(GIAS.read_text(encoding="cp1252"), newline="")))
    header, first = rows[0], rows[1]
    first[header.index("EstablishmentName")] = FORMULA
    source = folder / "edubasealldata20250401.csv"
    with source.open("w", encoding="cp1252", newline="") as stream:
        csv.writer(stream, lineterminator="\r\n").writerows(rows)
    url = f"sqlite:///{folder / 'real.sqlite3'}"
    result = _cli(url, folder, "import", "gias", str(source))
    assert result.exit_code == 0, result.output
    return url, folder, first[header.index("URN")]


def _cli(url: str, home: Path, *args: str) -> Any:
    env = {
        "SCHOOLDATA_KEY_SECRET": SECRET,
        "SCHOOLDATA_DATABASE_URL": None,
        "SCHOOLDATA_CONFIG": None,
        "SCHOOLDATA_HOME": str(home / "home"),
    }
    return CliRunner().invoke(cli, ["--db", url, *args], obj=runtime(), env=env)


def _names(text: str, column: str) -> list[str]:
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    return [row[column] for row in rows]


def test_the_importer_keeps_the_name_as_the_publisher_wrote_it(
    imported: tuple[str, Path, str],
) -> None:
    url, home, urn = imported
    result = _cli(url, home, "--format", "json", "school", urn, "--public")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["name"] == FORMULA  # JSON is not a spreadsheet


def test_the_clis_csv_neutralises_a_formula_name(imported: tuple[str, Path, str]) -> None:
    url, home, _urn = imported
    searched = _cli(url, home, "search", "hyperlink", "--format", "csv")
    assert searched.exit_code == 0, searched.output
    assert _names(searched.stdout, "name") == ["'" + FORMULA]
    listed = _cli(url, home, "--format", "csv", "schools", "--all")
    assert listed.exit_code == 0, listed.output
    assert "'" + FORMULA in _names(listed.stdout, "name")
    assert FORMULA not in _names(listed.stdout, "name")


def test_rests_csv_neutralises_a_formula_name(imported: tuple[str, Path, str]) -> None:
    url, home, _urn = imported
    app = bootstrap(load_settings({}, database_url=url, key_secret=SECRET, home=home / "rest"))
    key = app.keys.create_key(organisation="csv", name="t", plan="enterprise").key
    csv_accept = {"Accept": "text/csv"}
    asgi = create_app(app, base_url=BASE_URL)
    with TestClient(app=asgi, base_url=BASE_URL) as http:  # type: ignore[arg-type]
        public = http.get("/api/v1/search", params={"query": "hyperlink"}, headers=csv_accept)
        assert public.status_code == 200, public.text
        assert _names(public.text, "name") == ["'" + FORMULA]
        keyed = http.get(
            "/api/v1/schools", params={"per_page": 100}, headers={**bearer(key), **csv_accept}
        )
        assert keyed.status_code == 200, keyed.text
        names = _names(keyed.text, "name")
        assert "'" + FORMULA in names and FORMULA not in names
        # Numbers stay numbers: coordinates west of Greenwich are negative, written as such.
        longitudes = _names(keyed.text, "location.longitude")
        assert any(value.startswith("-") for value in longitudes)
        assert all(not value.startswith("'") for value in longitudes)
