"""The dataset commands call the application's dataset API with the right plan and show its
answers in every format. A hand-written fake stands in for `app.datasets_api` here; the
REST twin comparisons (rankings among them) are in test_cli_queries.py."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from schooldata.application.service import Application
from schooldata.domain.errors import LimitExceedsPlan
from schooldata.domain.plans import Plan
from schooldata.entrypoints.cli.app import cli
from schooldata.entrypoints.cli.runtime import CliRuntime
from schooldata.settings import Settings


class FakeDatasets:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any, Any]] = []

    def inspections(self, urn_raw: str) -> Any:
        self.calls.append(("inspections", urn_raw, None))
        return {
            "school": {"urn": int(urn_raw), "name": "St Mary's"},
            "latest_report_card": None,
            "inspections": [
                {"date": "2024-03-01", "kind": "graded", "grade": 2},
                {"date": "2021-05-01", "kind": "ungraded", "outcome": "Remains Good"},
            ],
            "note": "Not comparable.",
        }

    def results(self, urn_raw: str) -> Any:
        return {"urn": int(urn_raw), "ks4": {"attainment8": {"value": 46.0, "status": "reported"}}}

    def admissions(self, urn_raw: str) -> Any:
        return {"urn": int(urn_raw), "applications": None}

    def finance(self, urn_raw: str) -> Any:
        return {"urn": int(urn_raw), "income": None}

    def compare(self, urns: list[str], plan: Plan) -> Any:
        if len(urns) > plan.compare_max:
            raise LimitExceedsPlan("urns", plan.compare_max, plan.name)
        self.calls.append(("compare", urns, plan.name))
        return {  # the API's shape: the compared schools and nothing else
            "schools": [{"urn": int(u), "name": f"School {u}", "svc_score": None} for u in urns],
        }


class WithDatasets:
    """The application, plus the dataset API it will soon carry itself."""

    def __init__(self, app: Application, datasets: FakeDatasets) -> None:
        self._app = app
        self.datasets_api = datasets

    def __getattr__(self, name: str) -> Any:
        return getattr(self._app, name)


@pytest.fixture
def datasets() -> FakeDatasets:
    return FakeDatasets()


@pytest.fixture
def run(app: Application, datasets: FakeDatasets, tmp_path: Path) -> Any:
    def load_settings(environ: Any = None, **overrides: Any) -> Settings:
        return Settings(home=tmp_path)

    runtime = CliRuntime(
        load_settings=load_settings,
        build_app=lambda settings, **_: WithDatasets(app, datasets),  # type: ignore[arg-type,return-value]
        serve=print,
        upgrade=print,
        importers=dict,
        load_sample=lambda a: [],
    )

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(cli, list(args), obj=runtime)

    return invoke


def test_json_is_the_dataset_apis_answer_unchanged(run: Any, datasets: FakeDatasets) -> None:
    result = run("--format", "json", "inspections", "100001")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == FakeDatasets().inspections("100001")
    assert datasets.calls == [("inspections", "100001", None)]


def test_a_record_answer_as_csv_is_one_flattened_row(run: Any) -> None:
    result = run("--format", "csv", "results", "100002")
    assert result.stdout.splitlines() == [
        "urn,ks4.attainment8.value,ks4.attainment8.status",
        "100002,46.0,reported",
    ]


def test_a_record_holding_a_list_as_csv_is_one_row_with_every_field(run: Any) -> None:
    result = run("--format", "csv", "inspections", "100001")
    assert result.exit_code == 0, result.stderr
    [row] = list(csv.DictReader(io.StringIO(result.stdout)))
    assert row == {
        "school.urn": "100001",
        "school.name": "St Mary's",
        "latest_report_card": "",
        "inspections.0.date": "2024-03-01",
        "inspections.0.kind": "graded",
        "inspections.0.grade": "2",
        "inspections.1.date": "2021-05-01",
        "inspections.1.kind": "ungraded",
        "inspections.1.outcome": "Remains Good",
        "note": "Not comparable.",
    }


def test_a_record_holding_a_list_as_a_table_shows_the_record_and_the_rows(run: Any) -> None:
    result = run("inspections", "100001")
    assert result.exit_code == 0, result.stderr
    for shown in ("St Mary's", "Not comparable.", "2024-03-01", "Remains Good", "outcome"):
        assert shown in result.stdout


def test_compare_as_csv_is_one_row_per_school(run: Any, datasets: FakeDatasets) -> None:
    result = run("--format", "csv", "compare", "100002", "100003")
    assert result.exit_code == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [(r["urn"], r["svc_score"]) for r in rows] == [("100002", ""), ("100003", "")]
    assert datasets.calls == [("compare", ["100002", "100003"], "local (unrestricted)")]


def test_compare_is_bounded_by_the_plan_only_with_as_plan(run: Any) -> None:
    urns = [str(100001 + n) for n in range(11)]
    assert run("--format", "json", "compare", *urns).exit_code == 0
    refused = run("--as-plan", "professional", "compare", *urns)
    assert refused.exit_code == 4
    assert refused.stderr.strip() == "Error: 'urns' may be at most 10 on the professional plan."


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
def test_features_outside_the_plan_exit_4_before_any_query(
    run: Any, datasets: FakeDatasets, plan: str, args: list[str]
) -> None:
    result = run("--as-plan", plan, *args)
    assert result.exit_code == 4
    assert len(result.stderr.splitlines()) == 1
    assert datasets.calls == []
