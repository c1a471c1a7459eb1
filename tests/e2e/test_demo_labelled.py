"""Synthetic data says so where people look: after CLI tables (on stderr, so JSON and CSV stay
the API's data), on the landing page and on /docs. Real data carries no such line."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from litestar.testing import TestClient

from schooldata.application.import_dataset import DatasetKind
from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap_memory
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.school import School
from schooldata.domain.urn import Urn
from schooldata.entrypoints.cli.app import cli
from schooldata.entrypoints.cli.output import SYNTHETIC_NOTICE
from schooldata.entrypoints.cli.runtime import CliRuntime
from schooldata.entrypoints.rest.app import create_app
from schooldata.ports.imports import RejectLog
from schooldata.settings import Settings

BASE_URL = "http://testserver.local"  # the test client's host, configured as a deployment would


def served(*, synthetic: bool) -> Application:
    app = bootstrap_memory()
    app.import_dataset.execute(
        kind=DatasetKind.SCHOOLS,
        items=[School(urn=Urn(100001), name="Invented Primary School", status="Open")],
        log=RejectLog(),
        record=DatasetRecord(
            name="gias_establishments",
            title="GIAS",
            publisher="DfE",
            licence="OGL",
            attribution="OGL",
            url=None,
            extract_date=dt.date(2026, 11, 1),
            imported_at=dt.datetime(2026, 11, 2, tzinfo=dt.UTC),
            synthetic=synthetic,
            demo=synthetic,
        ),
    )
    return app


def run(app: Application, tmp_path: Path, *args: str) -> Any:
    runtime = CliRuntime(
        load_settings=lambda environ=None, **_: Settings(home=tmp_path),
        build_app=lambda settings, **_: app,
        serve=print,
        upgrade=print,
        importers=dict,
        load_sample=lambda _: [],
    )
    return CliRunner().invoke(cli, list(args), obj=runtime)


@pytest.mark.parametrize("args", [["search", "invented"], ["school", "100001"], ["meta"]])
def test_a_table_of_synthetic_data_is_followed_by_the_notice_on_stderr(
    tmp_path: Path, args: list[str]
) -> None:
    result = run(served(synthetic=True), tmp_path, *args)
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[-1] == SYNTHETIC_NOTICE
    assert "Synthetic" not in result.stdout


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_json_and_csv_of_synthetic_data_stay_the_data_alone(tmp_path: Path, fmt: str) -> None:
    result = run(served(synthetic=True), tmp_path, "--format", fmt, "search", "invented")
    assert result.exit_code == 0, result.stderr
    assert SYNTHETIC_NOTICE not in result.stderr + result.stdout
    if fmt == "json":
        assert json.loads(result.stdout)["total"] == 1


@pytest.mark.parametrize("args", [["keys", "list"], ["orgs", "list"]])
def test_tables_of_keys_and_organisations_carry_no_notice(tmp_path: Path, args: list[str]) -> None:
    app = served(synthetic=True)
    app.keys.create_key(organisation="acme", name="ci", plan=None, test=True)
    result = run(app, tmp_path, *args)
    assert result.exit_code == 0, result.stderr
    assert "acme" in result.stdout
    assert SYNTHETIC_NOTICE not in result.stderr


def test_a_table_of_real_data_carries_no_notice(tmp_path: Path) -> None:
    result = run(served(synthetic=False), tmp_path, "search", "invented")
    assert result.exit_code == 0, result.stderr
    assert SYNTHETIC_NOTICE not in result.stderr


@pytest.mark.parametrize("synthetic", [True, False])
def test_the_landing_page_and_docs_say_when_the_data_is_the_synthetic_demo(
    synthetic: bool,
) -> None:
    with TestClient(app=create_app(served(synthetic=synthetic), base_url=BASE_URL)) as client:
        home = client.get("/", headers={"Accept": "text/html"}).text
        docs = client.get("/docs").text
        as_json = client.get("/", headers={"Accept": "application/json"}).json()
    assert ("Synthetic demo data" in home) is synthetic
    assert ("Synthetic demo data" in docs) is synthetic
    assert as_json["synthetic"] is synthetic


def test_the_landing_page_says_mcp_serves_anonymous_callers_too() -> None:
    with TestClient(app=create_app(served(synthetic=False), base_url=BASE_URL)) as client:
        home = client.get("/", headers={"Accept": "text/html"}).text
    assert "two public tools" in home and "no key" in home
