"""Any operation of the registry reaches the CLI (`schooldata call`) and the library
(`SchoolDataClient.call`) with no code of its own: the same pipeline, the API's answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.e2e.test_cli_queries import BASE_URL, runtime_for

from schooldata.application.service import Application
from schooldata.domain.errors import FeatureNotInPlan, InvalidParameter, UnknownParameter
from schooldata.entrypoints.cli.app import cli
from schooldata.library import SchoolDataClient

# (operationId, CLI assignments, the HTTP request an enterprise key makes)
CALLS: list[tuple[str, tuple[str, ...], tuple[str, str, dict[str, Any]]]] = [
    ("getRankings", ("metric=ks4_attainment8_average", "phase=secondary", "per_page=3"),
     ("GET", "/api/v1/rankings", {"params": {"metric": "ks4_attainment8_average",
                                             "phase": "secondary", "per_page": "3"}})),
    ("listSchools", ("local_authority=Westminster", "per_page=1", "page=2"),
     ("GET", "/api/v1/schools", {"params": {"local_authority": "Westminster",
                                            "per_page": "1", "page": "2"}})),
    ("lookupSchools", ("urns=100002,999999", "urns=100001"),
     ("POST", "/api/v1/schools/lookup", {"json": {"urns": ["100002", "999999", "100001"]}})),
    ("getSchoolProfile", ("urn=100002",), ("GET", "/api/v1/schools/100002", {})),
]  # fmt: skip


def _api(client: TestClient[Any], app: Application, request: tuple[str, str, dict[str, Any]]):
    method, path, options = request
    key = issue_key(app, "enterprise")
    answer = client.request(method, path, headers={"X-API-Key": key}, **options)
    assert answer.status_code == 200, answer.text
    return answer.json()


@pytest.mark.parametrize(("operation", "assignments", "request_"), CALLS)
def test_schooldata_call_prints_the_apis_answer_for_any_operation(
    app: Application,
    client: TestClient[Any],
    tmp_path: Path,
    operation: str,
    assignments: tuple[str, ...],
    request_: tuple[str, str, dict[str, Any]],
) -> None:
    result = CliRunner().invoke(
        cli, ["--format", "json", "call", operation, *assignments], obj=runtime_for(app, tmp_path)
    )
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    api = _api(client, app, request_)
    assert api["data"]  # something to compare
    assert printed["data"] == api["data"]
    if "pagination" in api["meta"]:  # page links are HTTP's: built from the request's URL
        links = {"next": None, "prev": None}
        assert printed["pagination"] == {**api["meta"]["pagination"], **links}


@pytest.mark.parametrize(("operation", "assignments", "request_"), CALLS)
def test_the_library_calls_any_operation_and_gets_the_apis_data(
    app: Application,
    client: TestClient[Any],
    operation: str,
    assignments: tuple[str, ...],
    request_: tuple[str, str, dict[str, Any]],
) -> None:
    arguments: dict[str, Any] = {}
    for assignment in assignments:
        name, _, value = assignment.partition("=")
        arguments[name] = arguments.get(name, []) + value.split(",") if name == "urns" else value
    answer = SchoolDataClient.from_application(app, base_url=BASE_URL).call(operation, **arguments)
    assert answer.data == _api(client, app, request_)["data"]


def test_a_csv_call_has_a_row_per_item_in_the_apis_order(app: Application, tmp_path: Path) -> None:
    runtime = runtime_for(app, tmp_path)
    args = ["call", "listSchools", "local_authority=Westminster", "per_page=5"]
    as_json = CliRunner().invoke(cli, ["--format", "json", *args], obj=runtime)
    as_csv = CliRunner().invoke(cli, ["--format", "csv", *args], obj=runtime)
    assert as_csv.exit_code == 0, as_csv.output
    urns = [line.split(",")[0] for line in as_csv.stdout.splitlines()[1:]]
    assert len(urns) > 1
    assert urns == [str(item["urn"]) for item in json.loads(as_json.stdout)["data"]]


def test_a_call_is_refused_as_the_api_refuses_it(app: Application, tmp_path: Path) -> None:
    runtime = runtime_for(app, tmp_path)
    unknown = CliRunner().invoke(cli, ["call", "getRankings", "metrc=x"], obj=runtime)
    assert unknown.exit_code == 2
    assert "metrc" in unknown.output
    malformed = CliRunner().invoke(cli, ["call", "getRankings", "metric"], obj=runtime)
    assert malformed.exit_code == 2
    assert "NAME=VALUE" in malformed.output
    library = SchoolDataClient.from_application(app)
    with pytest.raises(UnknownParameter):
        library.call("getRankings", metrc="x")
    with pytest.raises(InvalidParameter):
        library.call("listSchools", per_page="0")
    with pytest.raises(FeatureNotInPlan):
        library.call("getSchoolFinance", as_plan="developer", urn="100002")


class _Observed:
    """The application's pipeline, noting each operation it is called for (the pipeline is
    compiled, so its methods cannot be replaced on it: it is wrapped instead)."""

    def __init__(self, pipeline: Any) -> None:
        self.seen: list[str] = []
        self._pipeline = pipeline

    def call(self, entry: Any, *args: Any, **kwargs: Any) -> Any:
        self.seen.append(entry.name)
        return self._pipeline.call(entry, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pipeline, name)


def test_the_librarys_own_methods_answer_through_the_pipeline(
    app: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    observed = _Observed(app.pipeline)
    monkeypatch.setattr(app, "pipeline", observed)
    seen = observed.seen
    library = SchoolDataClient.from_application(app)
    library.search("st mary", limit=2)
    library.get_school("100002")
    assert seen == ["searchSchools", "getSchool"]
