"""The library pages for its caller, carries `meta` on every `call` answer, and turns list
answers into DataFrames with the CSV's columns, nulls as nulls and dates as dates."""

from __future__ import annotations

import csv
import datetime as dt
import io
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from tests.e2e.test_cli_queries import BASE_URL, runtime_for

from schooldata.application.service import Application
from schooldata.domain.errors import InvalidParameter, UnknownOperation, UnknownParameter
from schooldata.entrypoints.cli.app import cli
from schooldata.library import Answer, SchoolDataClient

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")


@pytest.fixture
def library(app: Application) -> SchoolDataClient:
    return SchoolDataClient.from_application(app, base_url=BASE_URL)


def cli_csv(app: Application, tmp_path: Path, *args: str) -> tuple[list[str], list[list[str]]]:
    result = CliRunner().invoke(cli, ["--format", "csv", *args], obj=runtime_for(app, tmp_path))
    assert result.exit_code == 0, result.output
    header, *rows = list(csv.reader(io.StringIO(result.stdout)))
    return header, rows


def test_every_call_answer_carries_its_meta(library: SchoolDataClient) -> None:
    for operation, arguments in [
        ("listSchools", {}),
        ("getSchoolProfile", {"urn": "100001"}),
        ("getSchool", {"urn": "100001"}),
        ("searchSchools", {"query": "st mary"}),
        ("getRankings", {"metric": "svc_score", "phase": "secondary"}),
    ]:
        meta = library.call(operation, **arguments).meta
        assert meta is not None, operation
        assert meta["request_id"].startswith("req_")
        assert meta["sources"] and {"name", "publisher", "licence", "attribution"} <= set(
            meta["sources"][0]
        )
        assert meta["data_version"] and "data_updated_at" in meta
    assert "ranking" in (
        library.call("getRankings", metric="svc_score", phase="secondary").meta or {}
    )


def test_record_urls_start_at_the_configured_base_url(library: SchoolDataClient) -> None:
    item = library.call("listSchools", per_page="1").data[0]
    assert item["url"] == f"{BASE_URL}/api/v1/schools/{item['urn']}"


def test_all_reads_every_page_into_one_answer(library: SchoolDataClient) -> None:
    paged = library.call("listSchools", per_page="2")
    every = library.call("listSchools", all=True, per_page="2")
    assert isinstance(every, Answer)
    assert len(every.data) == paged.pagination["total"] > 2  # type: ignore[index]
    assert every.pagination == {
        "page": 1,
        "per_page": len(every.data),
        "total": len(every.data),
        "total_pages": 1,
        "next": None,
        "prev": None,
    }
    assert [i["urn"] for i in every.data[:2]] == [i["urn"] for i in paged.data]
    assert list(library.iter_all("listSchools", per_page="3")) == every.data


def test_iter_all_refuses_a_bad_argument_at_once(library: SchoolDataClient) -> None:
    with pytest.raises(InvalidParameter):
        library.iter_all("listSchools", per_page="0")
    with pytest.raises(InvalidParameter):
        library.iter_all("getSchoolProfile", urn="100001")


def test_search_reads_on_past_25_locally_and_all_gives_every_match(
    library: SchoolDataClient,
) -> None:
    one = library.search("school", limit=1)
    every = library.search("school", all=True)
    assert len(every) == every.total == one.total > 1
    more = library.search("school", limit=every.total + 5)
    assert [h.school.urn for h in more] == [h.school.urn for h in every]
    assert more.limit == every.total + 5
    first = library.search("school", limit=3)
    assert [h.school.urn for h in every][:3] == [h.school.urn for h in first]
    with pytest.raises(InvalidParameter):
        library.search("school", limit=0)
    near = library.nearby("SW1A 1AA", all=True)
    assert len(near) == near.total and all(h.distance_miles is not None for h in near)


def test_operation_and_parameter_names_are_forgiven_their_case_or_suggested(
    library: SchoolDataClient,
) -> None:
    assert library.call("LISTSCHOOLS", per_page="1").operation == "listSchools"
    with pytest.raises(UnknownOperation, match="Did you mean listSchools"):
        library.call("listSchool")
    with pytest.raises(UnknownParameter, match="Did you mean per_page"):
        library.call("listSchools", perpage="1")


@pytest.mark.parametrize(
    ("operation", "arguments", "command"),
    [
        ("listSchools", {"per_page": "500"}, ["schools", "--per-page", "500"]),
        ("searchSchools", {"query": "school", "limit": "25"}, ["search", "school", "--limit", "25"]),
        ("getRankings", {"metric": "svc_score", "phase": "secondary"},
         ["rankings", "--metric", "svc_score", "--phase", "secondary"]),
        ("listLocalAuthorities", {}, ["authorities"]),
        ("getDataFreshness", {}, ["freshness"]),
    ],
)  # fmt: skip
def test_a_list_answer_as_a_dataframe_has_the_csvs_columns_and_rows(
    app: Application,
    library: SchoolDataClient,
    tmp_path: Path,
    operation: str,
    arguments: dict[str, Any],
    command: list[str],
) -> None:
    header, rows = cli_csv(app, tmp_path, *command)
    answer = library.call(operation, **arguments)
    frame = answer.to_pandas()
    assert list(frame.columns) == header
    assert len(frame) == len(rows)
    assert list(answer.to_polars().columns) == header
    assert answer.to_arrow().column_names == header
    # Every cell reads back as CSV wrote it (null as an empty cell).
    for position, row in enumerate(rows):
        for column, cell in zip(header, row, strict=True):
            value = frame[column].iloc[position]
            if cell == "":
                assert pd.isna(value), (column, value)


def test_nulls_stay_nulls_numbers_stay_numbers_and_dates_are_dates(
    library: SchoolDataClient,
) -> None:
    answer = library.call("listSchools", all=True)
    frame = answer.to_pandas()
    assert str(frame["urn"].dtype) == "Int64"
    assert str(frame["pupils"].dtype) == "Int64" and str(frame["svc_score"].dtype) == "Float64"
    assert str(frame["ofsted_historic_grade.inspection_date"].dtype).startswith("datetime64")
    items = answer.data
    for position, item in enumerate(items):
        if item["svc_score"] is None:
            assert frame["svc_score"].isna().iloc[position]
        else:
            assert frame["svc_score"].iloc[position] == item["svc_score"]
    assert frame["distance_miles"].isna().all()  # no origin: null, never 0
    polars = answer.to_polars()
    assert polars.schema["ofsted_historic_grade.inspection_date"] == pl.Date
    assert polars["distance_miles"].null_count() == len(items)
    dated = [d for d in polars["ofsted_historic_grade.inspection_date"] if d is not None]
    assert dated and all(isinstance(d, dt.date) for d in dated)


def test_search_results_become_the_search_commands_csv_columns(
    app: Application, library: SchoolDataClient, tmp_path: Path
) -> None:
    header, rows = cli_csv(app, tmp_path, "search", "st mary", "--postcode", "SW1A 1AA")
    frame = library.search("st mary", postcode="SW1A 1AA").to_pandas()
    assert list(frame.columns) == header
    assert [str(u) for u in frame["urn"]] == [row[0] for row in rows]


def test_a_single_answer_is_one_row_of_its_flattened_fields(library: SchoolDataClient) -> None:
    frame = library.call("getSchoolProfile", urn="100001").to_pandas()
    assert len(frame) == 1
    assert frame["urn"].iloc[0] == 100001 and "location.latitude" in frame.columns
