"""`open_database` opens what exists and creates nothing by mistake; `schooldata where` shows
where the state is without creating it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from schooldata import open_database
from schooldata.__main__ import runtime
from schooldata.domain.errors import DataUnavailable
from schooldata.entrypoints.cli.app import cli


@pytest.fixture(autouse=True)
def clean_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in os.environ if n.startswith("SCHOOLDATA_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("SCHOOLDATA_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)  # no stray schooldata.toml


def test_a_mistyped_database_path_is_refused_with_the_clis_message_and_nothing_is_created(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "typo" / "schooldata.sqlite3"
    url = f"sqlite:///{missing}"
    with pytest.raises(DataUnavailable) as refused:
        open_database(url)
    command = CliRunner().invoke(cli, ["--db", url, "meta"], obj=runtime())
    assert command.exit_code == 3
    assert refused.value.message in command.stderr
    assert "There is no database at" in refused.value.message
    assert not missing.parent.exists()
    assert not (tmp_path / "home").exists()


def test_create_makes_an_empty_database_to_import_into(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    with open_database(f"sqlite:///{path}", create=True) as client:
        assert client.search("school").total == 0
    assert path.is_file()
    with open_database(f"sqlite:///{path}") as again:  # exists now: opened
        assert again.sources() == []


def test_record_urls_use_the_configured_base_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "db.sqlite3"
    open_database(f"sqlite:///{path}", create=True).close()
    monkeypatch.setenv("SCHOOLDATA_BASE_URL", "https://schools.example.org/")
    with open_database(f"sqlite:///{path}") as client:
        assert client._base_url == "https://schools.example.org"
    with open_database(f"sqlite:///{path}", base_url="https://other.example") as client:
        assert client._base_url == "https://other.example"


def test_where_shows_the_state_and_creates_none_of_it(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--format", "json", "where"], obj=runtime())
    assert result.exit_code == 0, result.output
    state = json.loads(result.stdout)
    home = tmp_path / "home"
    assert state["data_home"] == str(home) and state["data_home_from"] == "SCHOOLDATA_HOME"
    assert state["database"] == f"sqlite:///{home / 'schooldata-demo.sqlite3'}"
    assert state["embedded_demo"] is True and state["demo_built"] is False
    assert state["key_secret"].endswith("(created on first use)")
    assert not home.exists()
    only = CliRunner().invoke(cli, ["where", "--home"], obj=runtime())
    assert only.stdout == f"{home}\n"


def test_where_never_shows_a_secret_or_a_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCHOOLDATA_KEY_SECRET", "s" * 40)
    monkeypatch.setenv("SCHOOLDATA_DATABASE_URL", "postgresql+psycopg://app:hunter2@db/school")
    result = CliRunner().invoke(cli, ["--format", "json", "where"], obj=runtime())
    assert result.exit_code == 0, result.output
    assert "s" * 40 not in result.stdout and "hunter2" not in result.stdout
    state = json.loads(result.stdout)
    assert state["database"] == "postgresql+psycopg://app:***@db/school"
    assert state["embedded_demo"] is False and state["demo_built"] is False
