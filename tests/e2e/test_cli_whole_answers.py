"""No silent truncation: every CLI list command, `call` included, says on stderr when a CSV or
JSON answer holds fewer rows than the answer has, and `--all` writes every row."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from tests.e2e.test_cli_queries import runtime_for

from schooldata.application.service import Application
from schooldata.entrypoints.cli.app import cli


@pytest.fixture
def run(app: Application, tmp_path: Path) -> Any:
    runtime = runtime_for(app, tmp_path)

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(cli, list(args), obj=runtime)

    return invoke


def csv_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


# (a partial question, the same question with --all) per list command; each answers more
# rows than the partial one holds.
LISTS = [
    (["search", "school", "--limit", "2"], ["search", "school", "--all"]),
    (["schools", "--per-page", "2"], ["schools", "--all", "--per-page", "2"]),
    (["nearby", "SW1A 1AA", "--per-page", "3"], ["nearby", "SW1A 1AA", "--all"]),
    (
        ["rankings", "--metric", "svc_score", "--phase", "secondary", "--per-page", "1"],
        ["rankings", "--metric", "svc_score", "--phase", "secondary", "--all"],
    ),
    (["authorities", "--per-page", "1"], ["authorities", "--all"]),
    (["call", "listSchools", "per_page=2"], ["call", "listSchools", "--all"]),
    (["call", "searchSchools", "query=school", "limit=2"], ["call", "searchSchools", "query=school", "--all"]),
    (["call", "listLocalAuthorities", "per_page=1"], ["call", "listLocalAuthorities", "--all"]),
]  # fmt: skip


@pytest.mark.parametrize(("partial", "whole"), LISTS, ids=lambda args: " ".join(args[:2]))
def test_a_partial_csv_list_says_how_many_of_how_many_it_wrote_and_all_writes_every_row(
    run: Any, partial: list[str], whole: list[str]
) -> None:
    cut = run("--format", "csv", *partial)
    assert cut.exit_code == 0, cut.output
    every = run("--format", "csv", *whole)
    assert every.exit_code == 0, every.output
    written, total = len(csv_rows(cut.stdout)), len(csv_rows(every.stdout))
    assert 0 < written < total
    assert cut.stderr.splitlines() == [f"Wrote {written} of {total} rows; --all for every row."]
    assert "Wrote" not in every.stderr


@pytest.mark.parametrize(("partial", "whole"), LISTS, ids=lambda args: " ".join(args[:2]))
def test_a_partial_json_list_says_so_too_and_all_gives_every_item(
    run: Any, partial: list[str], whole: list[str]
) -> None:
    cut = run("--format", "json", *partial)
    every = run("--format", "json", *whole)
    assert cut.exit_code == 0 and every.exit_code == 0, cut.output + every.output
    assert cut.stderr.startswith("Wrote ") and "; --all for every row." in cut.stderr
    assert "Wrote" not in every.stderr
    items = json.loads(every.stdout)
    items = items["data"] if isinstance(items, dict) else items
    total = int(cut.stderr.split(" of ")[1].split(" ")[0])
    assert len(items) == total


def test_a_whole_answer_and_a_table_say_nothing_on_stderr(run: Any) -> None:
    whole = run("--format", "csv", "schools", "--per-page", "500")
    assert whole.exit_code == 0 and "Wrote" not in whole.stderr
    table = run("schools", "--per-page", "2")
    assert table.exit_code == 0 and "Wrote" not in table.stderr
    assert "(--all for every page)" in table.stdout


def test_a_later_page_says_it_is_part_of_the_answer(run: Any) -> None:
    second = run("--format", "csv", "schools", "--per-page", "2", "--page", "2")
    assert second.exit_code == 0
    assert second.stderr.startswith("Wrote 2 of ")


def test_call_all_writes_the_apis_items_and_meta_without_pages(run: Any) -> None:
    result = run("--format", "json", "call", "listSchools", "local_authority=Westminster", "--all")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert set(document) == {"data", "meta"}
    assert document["data"] and {"request_id", "sources", "data_version"} <= set(document["meta"])
    one_page = json.loads(
        run("--format", "json", "call", "listSchools", "local_authority=Westminster").stdout
    )
    assert document["data"][: len(one_page["data"])] == one_page["data"]


def test_call_all_of_an_answer_that_is_not_a_list_is_a_usage_error(run: Any) -> None:
    result = run("call", "getSchoolProfile", "urn=100001", "--all")
    assert result.exit_code == 2
    assert "not a list" in result.stderr


def test_every_call_answer_carries_its_meta(run: Any) -> None:
    for args in (["getSchoolProfile", "urn=100001"], ["getSchool", "urn=100001"], ["getMeta"]):
        document = json.loads(run("--format", "json", "call", *args).stdout)
        meta = document["meta"]
        assert meta["request_id"].startswith("req_")
        assert meta["sources"] and all(s["licence"] for s in meta["sources"])
        assert isinstance(meta["data_version"], str) and meta["data_version"]


def test_call_takes_an_operation_in_any_case_and_suggests_near_names(run: Any) -> None:
    folded = run("--format", "json", "call", "listschools", "per_page=1")
    assert folded.exit_code == 0, folded.output
    near = run("call", "listSchool")
    assert near.exit_code == 2
    assert "Did you mean listSchools" in near.stderr
    parameter = run("call", "getRankings", "metrc=svc_score", "phase=secondary")
    assert parameter.exit_code == 2
    assert "metrc. Did you mean metric?" in parameter.stderr
