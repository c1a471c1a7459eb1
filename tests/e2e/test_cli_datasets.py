"""The dataset commands run the same operations as their REST twins (one pipeline) and show
their answers whole in every format: JSON is the API's `data`, CSV flattens every field, a
table shows a record above its rows. The REST twin comparisons of the lists are in
test_cli_queries.py."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.support.dataset import build_store

from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap_memory
from schooldata.domain.ofsted import GradedInspection, InspectionRecord, UngradedInspection
from schooldata.domain.urn import Urn
from schooldata.entrypoints.cli.app import cli
from schooldata.entrypoints.cli.runtime import CliRuntime
from schooldata.entrypoints.tables import csv_cell, flatten
from schooldata.settings import Settings

INSPECTIONS = [
    InspectionRecord(
        Urn(100001),
        GradedInspection(dt.date(2024, 3, 1), dt.date(2024, 4, 2), "S5", 2, {}, True),
        "10001",
    ),
    InspectionRecord(
        Urn(100001),
        UngradedInspection(dt.date(2021, 5, 1), None, "S8", "School remains Good"),
        "10002",
    ),
]


@pytest.fixture
def app() -> Application:
    store = build_store()
    with store.transaction() as tx:
        tx.replace_inspections(dataset="ofsted_all_inspections", records=INSPECTIONS)
    return bootstrap_memory(store=store)


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

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(cli, list(args), obj=runtime)

    return invoke


def rest_data(client: TestClient[Any], app: Application, path: str, **kwargs: Any) -> Any:
    key = issue_key(app, "enterprise", org="cli-twin")
    headers = {"Authorization": f"Bearer {key}"}
    if "json" in kwargs:
        response = client.post(path, headers=headers, **kwargs)
    else:
        response = client.get(path, headers=headers, **kwargs)
    assert response.status_code == 200, response.text
    return response.json()["data"]


@pytest.mark.parametrize(
    ("words", "path"),
    [
        (["inspections", "100001"], "/api/v1/schools/100001/inspections"),
        (["results", "100002"], "/api/v1/schools/100002/results"),
        (["admissions", "100001"], "/api/v1/schools/100001/admissions"),
        (["finance", "100002"], "/api/v1/schools/100002/finance"),
    ],
)
def test_json_is_the_rest_twins_data_unchanged(
    run: Any, client: TestClient[Any], app: Application, words: list[str], path: str
) -> None:
    result = run("--format", "json", *words)
    assert result.exit_code == 0, result.stderr
    shown = json.loads(result.stdout)
    expected = rest_data(client, app, path)
    # Record URLs point at the configured base URL on both faces.
    assert shown == expected


def test_a_record_answer_as_csv_is_one_row_of_every_flattened_field(run: Any) -> None:
    shown = json.loads(run("--format", "json", "results", "100002").stdout)
    result = run("--format", "csv", "results", "100002")
    assert result.exit_code == 0, result.stderr
    [row] = list(csv.DictReader(io.StringIO(result.stdout)))
    flat = flatten(shown)
    assert list(row) == list(flat)
    assert row == {key: csv_cell(value) for key, value in flat.items()}


def test_a_record_holding_a_list_as_csv_is_one_row_with_every_field(run: Any) -> None:
    shown = json.loads(run("--format", "json", "inspections", "100001").stdout)
    assert shown["inspections"], "the dataset holds inspections for 100001"
    result = run("--format", "csv", "inspections", "100001")
    assert result.exit_code == 0, result.stderr
    [row] = list(csv.DictReader(io.StringIO(result.stdout)))
    assert row == {key: csv_cell(value) for key, value in flatten(shown).items()}
    assert "inspections.0.inspection_date" in row


def test_a_record_holding_a_list_as_a_table_shows_the_record_and_the_rows(run: Any) -> None:
    shown = json.loads(run("--format", "json", "inspections", "100001").stdout)
    result = run("inspections", "100001")
    assert result.exit_code == 0, result.stderr
    first = shown["inspections"][0]
    for text in (shown["school"]["name"], shown["note"][:20], first["inspection_date"]):
        assert text in result.stdout


def test_compare_as_csv_is_one_row_per_school(
    run: Any, client: TestClient[Any], app: Application
) -> None:
    result = run("--format", "csv", "compare", "100002", "100003")
    assert result.exit_code == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    expected = rest_data(
        client, app, "/api/v1/schools/compare", json={"urns": ["100002", "100003"]}
    )
    assert [r["urn"] for r in rows] == ["100002", "100003"]
    assert [r["svc_score"] for r in rows] == [csv_cell(s["svc_score"]) for s in expected["schools"]]


def test_compare_is_bounded_by_the_plan_only_with_as_plan(run: Any) -> None:
    urns = [str(100001 + n) for n in range(11)]
    refused = run("--as-plan", "professional", "compare", *urns)
    assert refused.exit_code == 4
    assert refused.stderr.strip() == "Error: 'urns' may be at most 10 on the professional plan."
    locally = run("--format", "json", "compare", *urns)
    # Locally there is no plan bound: the same URNs are refused only for what the data says.
    assert locally.exit_code != 4, locally.stderr


@pytest.mark.parametrize(
    ("plan", "args"),
    [
        ("developer", ["results", "100002"]),
        ("developer", ["admissions", "100001"]),
        ("developer", ["compare", "100001", "100002"]),
        ("developer", ["rankings", "--metric", "m", "--phase", "primary"]),
        ("professional", ["finance", "100002"]),
    ],
)
def test_features_outside_the_plan_exit_4_in_one_line(run: Any, plan: str, args: list[str]) -> None:
    result = run("--as-plan", plan, *args)
    assert result.exit_code == 4
    assert len(result.stderr.splitlines()) == 1
    assert result.stdout == ""
