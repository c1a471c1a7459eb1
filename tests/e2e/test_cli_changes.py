"""`schooldata changes`, `--include-predecessors` and the library's `changes()`: the same
operation as `GET /api/v1/changes` and the results' twin, in every format."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from pathlib import Path
from typing import Any

import attrs
import pytest
from click.testing import CliRunner, Result
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.support.dataset import SCHOOLS, build_store

from schooldata.application.import_dataset import DatasetKind
from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap_memory
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.errors import SinceExpired
from schooldata.domain.links import EstablishmentLink
from schooldata.domain.school import is_servable_status
from schooldata.domain.urn import Urn
from schooldata.entrypoints.cli.app import cli
from schooldata.entrypoints.cli.runtime import CliRuntime
from schooldata.entrypoints.rest.app import create_app
from schooldata.entrypoints.tables import CHANGES_COLUMNS
from schooldata.library import SchoolDataClient
from schooldata.ports.imports import RejectLog
from schooldata.settings import Settings

RENAMED = 100001
FIRST_VERSION = "20261101T090000Z-000001"  # tests.support.dataset's


class Clock:
    def now(self) -> dt.datetime:
        return dt.datetime(2026, 11, 2, 7, 0, tzinfo=dt.UTC)

    def timestamp(self) -> float:
        return self.now().timestamp()


def record(name: str) -> DatasetRecord:
    return DatasetRecord(
        name=name,
        title=name,
        publisher="DfE",
        licence="OGL",
        attribution="OGL",
        url=None,
        extract_date=None,
        imported_at=dt.datetime(2026, 11, 2, tzinfo=dt.UTC),
        synthetic=True,
    )


@pytest.fixture
def app() -> Application:
    made = bootstrap_memory(store=build_store(), clock=Clock())
    served = [s for s in SCHOOLS if is_servable_status(s.status)]
    renamed = [attrs.evolve(s, name="Renamed") if s.urn.value == RENAMED else s for s in served]
    made.import_dataset.execute(
        kind=DatasetKind.SCHOOLS,
        items=renamed,
        log=RejectLog(),
        record=record("gias_establishments"),
    )
    links = [EstablishmentLink(Urn(100002), Urn(100019), "Closed Example", "Predecessor", None)]
    made.import_dataset.execute(
        kind=DatasetKind.LINKS, items=links, log=RejectLog(), record=record("gias_links")
    )
    return made


@pytest.fixture
def run(app: Application, tmp_path: Path) -> Any:
    runtime = CliRuntime(
        load_settings=lambda environ=None, **_: Settings(home=tmp_path, base_url="http://x"),
        build_app=lambda settings, **_: app,
        serve=print,
        upgrade=print,
        importers=dict,
        load_sample=lambda a: [],
    )
    return lambda *args: CliRunner().invoke(cli, list(args), obj=runtime)


def rest(app: Application, path: str, **params: Any) -> Any:
    key = issue_key(app, "enterprise", org="twin")
    with TestClient(app=create_app(app, base_url="http://x"), base_url="http://x") as client:
        answer = client.get(path, params=params, headers={"Authorization": f"Bearer {key}"})
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_json_is_the_apis_changes_with_the_versions_between(run: Any, app: Application) -> None:
    result: Result = run("--format", "json", "changes", "--since", FIRST_VERSION)
    assert result.exit_code == 0, result.stderr
    shown = json.loads(result.stdout)
    expected = rest(app, "/api/v1/changes", since=FIRST_VERSION)
    assert shown["data"] == expected["data"]
    assert (shown["since"], shown["until"]) == (FIRST_VERSION, expected["meta"]["until"])
    kinds = [(item["urn"], item["kind"]) for item in shown["data"]]
    assert (RENAMED, "updated") in kinds
    assert (100002, "linked") in kinds


def test_all_pages_are_read_up_to_the_first_pages_version(run: Any) -> None:
    every = run("--format", "json", "changes", "--since", FIRST_VERSION, "--all", "--per-page", "1")
    one = run("--format", "json", "changes", "--since", FIRST_VERSION)
    assert every.exit_code == 0, every.stderr
    assert json.loads(every.stdout) == json.loads(one.stdout)


def test_csv_has_the_stated_columns_and_says_until_on_stderr(run: Any) -> None:
    result = run("--format", "csv", "changes", "--since", FIRST_VERSION, "--kind", "updated")
    assert result.exit_code == 0, result.stderr
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert tuple(rows[0]) == CHANGES_COLUMNS
    assert [row[2:5] for row in rows[1:]] == [[str(RENAMED), "updated", "name"]]
    assert "the next --since is" in result.stderr


def test_no_change_since_the_current_version_exits_1_and_an_expired_since_too(
    run: Any, app: Application
) -> None:
    current = app.ports.datasets.data_version()
    assert current is not None
    empty = run("--format", "json", "changes", "--since", current.id)
    assert empty.exit_code == 1
    assert json.loads(empty.stdout)["data"] == []
    expired = run("changes", "--since", "20000101T000000Z-000001")
    assert expired.exit_code == 1
    assert "no longer kept" in expired.stderr
    bad = run("changes", "--since", "last week")
    assert bad.exit_code == 2


def test_results_with_predecessors_are_the_apis(run: Any, app: Application) -> None:
    result = run("--format", "json", "results", "100002", "--include-predecessors")
    assert result.exit_code == 0, result.stderr
    expected = rest(app, "/api/v1/schools/100002/results", include_predecessors="true")
    assert json.loads(result.stdout) == expected["data"]
    assert [p["urn"] for p in expected["data"]["predecessors"]] == [100019]
    plain = run("--format", "json", "inspections", "100002")
    assert "predecessors" not in json.loads(plain.stdout)


def test_the_library_reads_every_change_since_a_version(app: Application) -> None:
    client = SchoolDataClient.from_application(app)
    found = client.changes(FIRST_VERSION)
    assert found.since == FIRST_VERSION
    current = app.ports.datasets.data_version()
    assert current is not None
    assert found.until == current.id
    updated = [c for c in found if c.change.kind.value == "updated"]
    assert [(c.change.urn.value, c.change.fields) for c in updated] == [(RENAMED, ("name",))]
    assert len(client.changes(found.until)) == 0
    with pytest.raises(SinceExpired):
        client.changes("20000101T000000Z-000001")
