"""The analysts' CLI answers every query with the API's own data, in JSON, CSV and tables."""

from __future__ import annotations

import csv
import io
import json
import shlex
from pathlib import Path
from typing import Any

import attrs
import pytest
from click.testing import CliRunner, Result
from litestar.testing import TestClient
from tests.conftest import issue_key

from schooldata.application.service import Application
from schooldata.entrypoints.cli.app import cli
from schooldata.entrypoints.cli.output import opened
from schooldata.entrypoints.cli.runtime import CliRuntime
from schooldata.entrypoints.tables import SEARCH_COLUMNS
from schooldata.settings import Settings

BASE_URL = "http://testserver.local"  # the `client` fixture's base URL


def runtime_for(app: Application, home: Path) -> CliRuntime:
    def load_settings(environ: Any = None, **overrides: Any) -> Settings:
        return Settings(home=home, base_url=BASE_URL)

    def unused(*_: Any) -> Any:
        raise AssertionError("not used by query commands")

    return CliRuntime(
        load_settings=load_settings,
        build_app=lambda settings, **_: app,
        serve=unused,
        upgrade=unused,
        importers=dict,
        load_sample=unused,
    )


@pytest.fixture
def run(app: Application, tmp_path: Path) -> Any:
    runtime = runtime_for(app, tmp_path)

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(cli, list(args), obj=runtime)

    return invoke


@pytest.fixture
def key(app: Application) -> str:
    return issue_key(app, "enterprise")


def rest_data(client: TestClient[Any], key: str | None, path: str, **params: str) -> Any:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    response = client.get(path, params=params, headers=headers)
    assert response.status_code == 200, response.text
    body = response.json()
    return body["data"] if key else body


def cli_json(run: Any, *args: str) -> Any:
    result = run("--format", "json", *args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


# ------------------------------------------------------------------ JSON = the API's data

PUBLIC_TWINS = [
    (["search", "st mary"], "/api/v1/search", {"query": "st mary"}),
    (
        ["search", "--postcode", "SW1A 1AA", "--phase", "primary", "--radius", "2", "--limit", "3"],
        "/api/v1/search",
        {"postcode": "SW1A 1AA", "phase": "primary", "radius_miles": "2", "limit": "3"},
    ),
    (
        ["search", "westminster", "--postcode", "SW1A"],
        "/api/v1/search",
        {"query": "westminster", "postcode": "SW1A"},
    ),
    (["school", "100001", "--public"], "/api/v1/schools/100001", {}),
]

COMMERCIAL_TWINS = [
    (["school", "100002"], "/api/v1/schools/100002", {}),
    (
        ["nearby", "SW1A 1AA", "--radius", "1"],
        "/api/v1/schools/nearby",
        {"postcode": "SW1A 1AA", "radius_miles": "1"},
    ),
    (
        ["nearby", "--lat", "51.5", "--lon", "-0.14", "--per-page", "3", "--page", "2"],
        "/api/v1/schools/nearby",
        {"latitude": "51.5", "longitude": "-0.14", "per_page": "3", "page": "2"},
    ),
    (
        ["schools", "--local-authority", "Camden", "--sort", "name"],
        "/api/v1/schools",
        {"local_authority": "Camden", "sort": "name"},
    ),
    (
        ["schools", "-q", "academy", "--phase", "secondary", "--min-score", "10"],
        "/api/v1/schools",
        {"q": "academy", "phase": "secondary", "min_score": "10"},
    ),
    (["authorities"], "/api/v1/areas/local-authorities", {}),
    (["authorities", "-q", "birm"], "/api/v1/areas/local-authorities", {"q": "birm"}),
    (["freshness"], "/api/v1/data-freshness", {}),
    (["meta"], "/api/v1/meta", {}),
]


@pytest.mark.parametrize(("args", "path", "params"), PUBLIC_TWINS)
def test_public_queries_print_exactly_the_public_api_response(
    run: Any,
    client: TestClient[Any],
    args: list[str],
    path: str,
    params: dict[str, str],
) -> None:
    assert cli_json(run, *args) == rest_data(client, None, path, **params)


@pytest.mark.parametrize(("args", "path", "params"), COMMERCIAL_TWINS)
def test_commercial_queries_print_exactly_the_api_data(
    run: Any,
    client: TestClient[Any],
    key: str,
    args: list[str],
    path: str,
    params: dict[str, str],
) -> None:
    assert cli_json(run, *args) == rest_data(client, key, path, **params)


SEARCH_ALL_TWINS = [
    (["school"], {"query": "school"}),
    (["--postcode", "SW1A 1AA"], {"postcode": "SW1A 1AA"}),
    (
        ["st mary", "--postcode", "SW1A", "--radius", "5"],
        {"query": "st mary", "postcode": "SW1A", "radius_miles": "5"},
    ),
    (["academy", "--phase", "secondary"], {"query": "academy", "phase": "secondary"}),
    ([" st"], {"query": " st"}),
]


@pytest.mark.parametrize(("args", "params"), SEARCH_ALL_TWINS)
def test_search_all_is_the_public_search_answer_not_cut_at_its_limit(
    run: Any, client: TestClient[Any], args: list[str], params: dict[str, str]
) -> None:
    every = cli_json(run, "search", *args, "--all")
    public = rest_data(client, None, "/api/v1/search", **params, limit="25")
    assert public["total"] <= 25  # so one public page holds every match
    assert len(every) == public["total"]
    assert every == public["results"]


def test_paging_with_all_concatenates_the_api_pages(
    run: Any,
    client: TestClient[Any],
    key: str,
) -> None:
    every = cli_json(run, "authorities", "--per-page", "1", "--all")
    pages = [
        rest_data(client, key, "/api/v1/areas/local-authorities", per_page="1", page=str(n))
        for n in (1, 2, 3)
    ]
    assert every == [item for page in pages for item in page]


# ------------------------------------------------------------------ the dataset queries

DATASET_TWINS = [
    (["inspections", "100001"], "/api/v1/schools/100001/inspections", {}),
    (["results", "100002"], "/api/v1/schools/100002/results", {}),
    (["admissions", "100001"], "/api/v1/schools/100001/admissions", {}),
    (["finance", "100002"], "/api/v1/schools/100002/finance", {}),
    (
        ["rankings", "--metric", "ks4_attainment8_average", "--phase", "secondary"],
        "/api/v1/rankings",
        {"metric": "ks4_attainment8_average", "phase": "secondary"},
    ),
]


RANKINGS = ["rankings", "--metric", "ks4_attainment8_average", "--phase", "secondary"]
RANKING_PARAMS = {"metric": "ks4_attainment8_average", "phase": "secondary"}


@pytest.mark.parametrize(
    ("args", "params"),
    [
        (["--order", "asc"], {"order": "asc"}),
        (["--order", "desc", "--per-page", "2", "--page", "2"], {"per_page": "2", "page": "2"}),
        (["--local-authority", "Westminster"], {"local_authority": "Westminster"}),
        (
            ["--local-authority", "Westminster", "--order", "asc"],
            {"local_authority": "Westminster", "order": "asc"},
        ),
    ],
)
def test_rankings_take_the_apis_parameters_and_answer_as_it_does(
    run: Any, client: TestClient[Any], key: str, args: list[str], params: dict[str, str]
) -> None:
    expected = rest_data(client, key, "/api/v1/rankings", **RANKING_PARAMS, **params)
    assert expected
    assert cli_json(run, *RANKINGS, *args) == expected


def test_rankings_all_concatenates_the_api_pages(
    run: Any, client: TestClient[Any], key: str
) -> None:
    every = cli_json(run, *RANKINGS, "--per-page", "1", "--all")
    headers = {"Authorization": f"Bearer {key}"}
    first = client.get(
        "/api/v1/rankings", params={**RANKING_PARAMS, "per_page": "1"}, headers=headers
    )
    pages = first.json()["meta"]["pagination"]["total_pages"]
    assert pages > 1
    expected = [
        item
        for n in range(1, pages + 1)
        for item in rest_data(
            client, key, "/api/v1/rankings", **RANKING_PARAMS, per_page="1", page=str(n)
        )
    ]
    assert every == expected


def test_rankings_say_which_schools_were_left_unranked_and_why(
    run: Any, client: TestClient[Any], key: str
) -> None:
    headers = {"Authorization": f"Bearer {key}"}
    meta = client.get("/api/v1/rankings", params=RANKING_PARAMS, headers=headers).json()["meta"]
    excluded = meta["ranking"]["excluded"]
    assert excluded
    table = run(*RANKINGS)
    assert table.exit_code == 0, table.stderr
    caption = " ".join(table.stdout.split())
    for reason, count in excluded.items():
        assert f"{count} {reason}" in caption


def test_rankings_past_the_last_page_exit_1_with_an_empty_array(run: Any) -> None:
    result = run("--format", "json", *RANKINGS, "--page", "99")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == []
    assert result.stderr.startswith("Page 99 is past the last page")


@pytest.mark.parametrize(("args", "path", "params"), DATASET_TWINS)
def test_dataset_queries_print_exactly_the_api_data(
    run: Any,
    client: TestClient[Any],
    key: str,
    app: Application,
    args: list[str],
    path: str,
    params: dict[str, str],
) -> None:
    assert cli_json(run, *args) == rest_data(client, key, path, **params)


def test_compare_prints_exactly_the_api_data(
    run: Any,
    client: TestClient[Any],
    key: str,
    app: Application,
) -> None:
    response = client.post(
        "/api/v1/schools/compare",
        json={"urns": ["100002", "100003"]},
        headers={"Authorization": f"Bearer {key}"},
    )
    assert response.status_code == 200, response.text
    assert cli_json(run, "compare", "100002", "100003") == response.json()["data"]


# ------------------------------------------------------------------ CSV and tables


def test_search_csv_parses_with_the_stated_columns_and_empty_cells_for_null(run: Any) -> None:
    result = run("--format", "csv", "search", "st mary")
    assert result.exit_code == 0, result.stderr
    reader = csv.DictReader(io.StringIO(result.stdout))
    rows = list(reader)
    assert tuple(reader.fieldnames or ()) == SEARCH_COLUMNS
    assert [row["urn"] for row in rows] == ["100011", "100001", "100002", "100015"]
    suppressed = next(row for row in rows if row["urn"] == "100001")
    assert suppressed["svcScore"] == ""  # null, never 0
    assert suppressed["scoreSuppressed"] == "true"
    assert suppressed["ofstedRating"] == "2"
    assert suppressed["distanceMiles"] == ""  # no postcode, no distance
    assert suppressed["location.latitude"] == "51.499"


def test_nearby_csv_flattens_nested_objects_with_dots(run: Any) -> None:
    result = run("--format", "csv", "nearby", "SW1A 1AA", "--radius", "0.3")
    assert result.exit_code == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    graded = next(row for row in rows if row["urn"] == "100001")
    assert graded["ofsted_historic_grade.grade"] == "2"
    assert graded["ofsted_historic_grade.comparable"] == "false"
    assert float(graded["distance_miles"]) <= 0.3


def test_a_single_record_as_csv_is_one_flattened_row(run: Any) -> None:
    result = run("--format", "csv", "school", "100001")
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert len(rows) == 1
    assert rows[0]["urn"] == "100001"
    assert rows[0]["location.longitude"] == "-0.138"


def test_tables_show_null_as_a_dash(run: Any) -> None:
    result = run("search", "st mary")
    assert result.exit_code == 0
    assert "100001" in result.stdout
    assert "—" in result.stdout
    assert "4 of 4 schools" in result.stdout


def test_output_file_receives_the_answer_and_stdout_stays_empty(run: Any, tmp_path: Path) -> None:
    target = tmp_path / "camden.csv"
    result = run("--format", "csv", "--output", str(target), "authorities")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert target.read_text(encoding="utf-8").splitlines()[0] == "code,name,open_schools"


# ------------------------------------------------------------------ errors and exit codes


@pytest.mark.parametrize(
    "args",
    [
        ["school", "12345"],
        ["nearby", "ZZ99 9ZZ"],
        ["search", "x"],
        ["search"],
        ["search", "st mary", "--limit", "26"],
        ["nearby", "SW1A 1AA", "--radius", "abc"],
        ["schools", "--gender", "other"],
        ["authorities", "--all", "--page", "2"],
        ["school"],
        ["--format", "xml", "meta"],
        ["--as-plan", "platinum", "meta"],
    ],
)
def test_bad_input_is_exit_code_2_with_exactly_one_clear_line(run: Any, args: list[str]) -> None:
    result = run(*args)
    assert result.exit_code == 2, result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: ")
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_the_api_message_reaches_the_analyst_unchanged(run: Any) -> None:
    assert run("school", "12345").stderr.strip() == (
        "Error: URN must be exactly six digits; got '12345'."
    )
    assert run("nearby", "ZZ99 9ZZ").stderr.strip() == "Error: Unknown postcode: 'ZZ99 9ZZ'."


def test_a_search_with_no_results_exits_1_after_writing_the_empty_answer(run: Any) -> None:
    result = run("--format", "json", "search", "zzzz")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["total"] == 0
    assert result.stderr.strip() == "No schools matched."


def test_an_unknown_school_exits_1(run: Any) -> None:
    result = run("school", "999999")
    assert result.exit_code == 1
    assert result.stderr.strip() == "No open school has URN 999999."


def test_a_page_past_the_end_exits_1_with_an_empty_array(run: Any) -> None:
    result = run("--format", "json", "authorities", "--page", "9")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == []


def test_as_plan_answers_as_that_plans_caller_and_refuses_what_it_lacks(run: Any) -> None:
    refused = run("--as-plan", "developer", "finance", "100002")
    assert refused.exit_code == 4
    assert refused.stderr.strip() == (
        "Error: The 'finance' capability is not included in the developer plan."
    )
    too_many = run("--as-plan", "developer", "schools", "--per-page", "26")
    assert too_many.exit_code == 4
    allowed = run("--as-plan", "developer", "--format", "json", "schools", "--per-page", "25")
    assert allowed.exit_code == 0
    assert len(json.loads(allowed.stdout)) == 19


def test_locally_pages_go_far_beyond_any_plan(run: Any) -> None:
    result = run("--format", "json", "schools", "--per-page", "10000")
    assert result.exit_code == 0, result.stderr
    assert len(json.loads(result.stdout)) == 19


def test_an_unexpected_failure_is_one_line_and_debug_shows_the_traceback(
    app: Application, tmp_path: Path
) -> None:
    def broken(settings: Settings, **_: Any) -> Application:
        raise RuntimeError("disk on fire")

    runtime = runtime_for(app, tmp_path)
    runtime = CliRuntime(
        load_settings=runtime.load_settings,
        build_app=broken,
        serve=runtime.serve,
        upgrade=runtime.upgrade,
        importers=runtime.importers,
        load_sample=runtime.load_sample,
    )
    quiet = CliRunner().invoke(cli, ["meta"], obj=runtime)
    assert quiet.exit_code == 3
    assert quiet.stderr.splitlines() == [
        "Error: unexpected RuntimeError: disk on fire (run with --debug for details)"
    ]
    loud = CliRunner().invoke(cli, ["--debug", "meta"], obj=runtime)
    assert loud.exit_code == 3
    assert "Traceback" in loud.stderr
    assert "disk on fire" in loud.stderr


def test_a_settings_error_is_exit_code_3(app: Application, tmp_path: Path) -> None:
    from schooldata.settings import SettingsError

    def bad_settings(environ: Any = None, **overrides: Any) -> Settings:
        raise SettingsError("SCHOOLDATA_PORT must be an integer, got 'x'")

    runtime = runtime_for(app, tmp_path)
    runtime = CliRuntime(
        load_settings=bad_settings,
        build_app=runtime.build_app,
        serve=runtime.serve,
        upgrade=runtime.upgrade,
        importers=runtime.importers,
        load_sample=runtime.load_sample,
    )
    result = CliRunner().invoke(cli, ["meta"], obj=runtime)
    assert result.exit_code == 3
    assert result.stderr.strip() == (
        "Error: configuration: SCHOOLDATA_PORT must be an integer, got 'x'"
    )


# ------------------------------------------------------------------ help a stranger can use


@pytest.mark.parametrize(
    "command",
    [
        "search",
        "school",
        "nearby",
        "schools",
        "inspections",
        "results",
        "admissions",
        "finance",
        "compare",
        "rankings",
        "authorities",
        "freshness",
        "meta",
        "import",
    ],
)
def test_every_query_has_help_with_an_example(run: Any, command: str) -> None:
    result = run(command, "--help")
    assert result.exit_code == 0
    assert "Example" in result.stdout
    assert f"schooldata {command}" in result.stdout or "schooldata --" in result.stdout


def test_top_level_help_documents_exit_codes_and_completion(run: Any) -> None:
    result = run("--help")
    assert result.exit_code == 0
    assert "Exit codes" in result.stdout
    assert "_SCHOOLDATA_COMPLETE=bash_source schooldata" in result.stdout


def test_version_names_the_build_the_python_and_the_data_home(run: Any) -> None:
    result = run("--version")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("schooldata 0.")
    assert lines[1] in ("build: compiled (mypyc)", "build: pure Python")
    assert lines[2].startswith("python: CPython 3.")
    assert lines[3].startswith("data home: ")


def test_an_unwritable_output_is_exit_3_and_one_line(run: Any, tmp_path: Path) -> None:
    result = run("--output", str(tmp_path / "missing" / "out.csv"), "meta")
    assert result.exit_code == 3
    assert len(result.stderr.splitlines()) == 1
    assert "No such file or directory" in result.stderr


def test_an_answer_that_fails_half_way_leaves_no_output_file(tmp_path: Path) -> None:
    def write_half(target: Path) -> None:
        with opened(target) as stream:
            stream.write("[")
            raise RuntimeError("page 2 failed")

    with pytest.raises(RuntimeError):
        write_half(tmp_path / "out.json")
    assert list(tmp_path.iterdir()) == []


def test_format_and_output_may_follow_the_command(run: Any, tmp_path: Path) -> None:
    before = run("--format", "csv", "search", "st mary")
    after = run("search", "st mary", "--format", "csv")
    assert after.exit_code == 0, after.stderr
    assert after.stdout == before.stdout
    target = tmp_path / "meta.json"
    assert run("meta", "-f", "json", "-o", str(target)).exit_code == 0
    assert json.loads(target.read_text(encoding="utf-8"))["service"] == "schooldata"


def test_docs_state_every_csv_column_order() -> None:
    from schooldata.entrypoints import tables
    from schooldata.entrypoints.cli import views

    docs = (Path(__file__).parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    for columns in (
        tables.SEARCH_COLUMNS,
        tables.SCHOOLS_COLUMNS,
        tables.AUTHORITIES_COLUMNS,
        tables.FRESHNESS_COLUMNS,
        views.KEYS_CSV,
        tables.RANKINGS_COLUMNS,
        views.ORGS_CSV,
    ):
        assert f"`{', '.join(columns)}`" in docs


# ------------------------------------------------------------------ exit codes, as documented

CLI_DOC = Path(__file__).parents[2] / "docs" / "cli.md"


def documented_exit_codes() -> dict[int, str]:
    """The rows of docs/cli.md's exit code table: code -> the whole row."""
    section = CLI_DOC.read_text(encoding="utf-8").split("## Exit codes", 1)[1].split("\n## ")[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    return {int(row.split("|")[1]): row for row in rows[1:]}


def test_the_documented_exit_codes_are_the_codes_the_cli_uses() -> None:
    from schooldata.entrypoints.cli.app import EPILOG
    from schooldata.entrypoints.cli.errors import ExitCode

    assert set(documented_exit_codes()) == {code.value for code in ExitCode}
    for code in ExitCode:
        assert f"{code.value} " in EPILOG


DOCUMENTED_EXAMPLES = {
    "search zzzz": 1,
    "school 999999": 1,
    "school 12345": 2,
    'nearby "ZZ99 9ZZ"': 2,
    "search x": 2,
    "search --limit 26": 2,
    "schooldata nosuch": 2,
    "--as-plan developer finance 140122": 4,
}


@pytest.mark.parametrize(("example", "code"), DOCUMENTED_EXAMPLES.items())
def test_each_documented_exit_code_example_exits_with_its_code(
    run: Any, example: str, code: int
) -> None:
    assert f"`{example}`" in documented_exit_codes()[code]
    words = shlex.split(example)
    result = run(*(words[1:] if words[0] == "schooldata" else words))
    assert result.exit_code == code, result.output
    assert len(result.stderr.splitlines()) == 1


def test_an_interrupted_command_exits_130_not_1(app: Application, tmp_path: Path) -> None:
    def interrupted(settings: Settings, **_: Any) -> Application:
        raise KeyboardInterrupt

    runtime = attrs.evolve(runtime_for(app, tmp_path), build_app=interrupted)
    result = CliRunner().invoke(cli, ["meta"], obj=runtime)
    assert result.exit_code == 130
    assert result.stderr.splitlines() == ["Error: interrupted."]
