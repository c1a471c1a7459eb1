"""`schooldata lookup`: the bulk lookup on the command line, in every format, with the API's
rules and answers (the same operation through the same pipeline)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.e2e.test_cli_queries import runtime_for

from schooldata.application.service import Application
from schooldata.entrypoints.cli.app import cli
from schooldata.entrypoints.tables import csv_cell, flatten

ASKED = ("100002", "999999", "100001", "100019")  # open, unknown, open, closed


@pytest.fixture
def run(app: Application, tmp_path: Path) -> Any:
    runtime = runtime_for(app, tmp_path)

    def invoke(*args: str, stdin: str | None = None) -> Result:
        return CliRunner().invoke(cli, list(args), obj=runtime, input=stdin)

    return invoke


def test_json_is_the_apis_data_and_not_found(
    run: Any, client: TestClient[Any], app: Application
) -> None:
    result = run("--format", "json", "lookup", *ASKED)
    assert result.exit_code == 0, result.stderr
    printed = json.loads(result.stdout)
    key = issue_key(app, "enterprise")
    api = client.post(
        "/api/v1/schools/lookup",
        json={"urns": list(ASKED)},
        headers={"Authorization": f"Bearer {key}"},
    ).json()
    assert printed == {"data": api["data"], "not_found": api["meta"]["not_found"]}
    assert [p["urn"] for p in printed["data"]] == [100002, 100001]
    assert result.stderr == "Not found (no open school): 999999, 100019\n"


def test_csv_is_one_row_per_profile_of_every_flattened_field(run: Any) -> None:
    result = run("--format", "csv", "lookup", *ASKED)
    assert result.exit_code == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    profiles = json.loads(run("--format", "json", "lookup", *ASKED).stdout)["data"]
    assert [row["urn"] for row in rows] == ["100002", "100001"]
    for row, profile in zip(rows, profiles, strict=True):
        flat = flatten(profile)
        assert {k: v for k, v in row.items() if k in flat} == {
            k: csv_cell(v) for k, v in flat.items()
        }
    assert "999999" in result.stderr


def test_a_table_has_a_row_per_profile(run: Any) -> None:
    result = run("lookup", *ASKED)
    assert result.exit_code == 0, result.stderr
    assert "St. Mary's Roman Catholic High School" in result.stdout
    assert "2 of 4 schools" in result.stdout
    assert "Not found (no open school): 999999, 100019" in result.stderr


def test_urns_may_come_from_a_file_or_stdin(run: Any, tmp_path: Path) -> None:
    listed = tmp_path / "urns.txt"
    listed.write_text("# schools to check\n100002, 100001\n\n100003  # the third\n", "utf-8")
    from_file = run("--format", "json", "lookup", "100004", "--from-file", str(listed))
    assert from_file.exit_code == 0, from_file.stderr
    shown = [p["urn"] for p in json.loads(from_file.stdout)["data"]]
    assert shown == [100004, 100002, 100001, 100003]
    piped = run("--format", "json", "lookup", "--from-file", "-", stdin="100003 100002\n")
    assert [p["urn"] for p in json.loads(piped.stdout)["data"]] == [100003, 100002]


def test_nothing_found_exits_1_after_writing_the_empty_answer(run: Any) -> None:
    result = run("--format", "json", "lookup", "999999", "100019")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == {"data": [], "not_found": ["999999", "100019"]}
    assert result.stderr == "No open school has any of these URNs: 999999, 100019.\n"


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        ((), 2, "give at least one URN"),
        (("100002", "100002"), 2, "Each URN may appear only once."),
        (("10000a",), 2, "URN must be exactly six digits"),
        (("--from-file", "/nonexistent/urns.txt"), 2, "No such file"),
    ],
)
def test_a_bad_lookup_fails_in_one_line_with_a_usage_exit_code(
    run: Any, args: tuple[str, ...], code: int, message: str
) -> None:
    result = run("lookup", *args)
    assert result.exit_code == code
    assert result.stdout == ""
    assert message in result.stderr and len(result.stderr.splitlines()) == 1


def test_as_a_plan_a_lookup_is_bounded_by_its_per_page_maximum(run: Any) -> None:
    urns = [str(100_000 + i) for i in range(26)]
    refused = run("--as-plan", "developer", "lookup", *urns)
    assert refused.exit_code == 4
    assert "'urns' may be at most 25 on the developer plan." in refused.stderr
    assert run("--as-plan", "developer", "--format", "json", "lookup", *urns[:25]).exit_code == 0
