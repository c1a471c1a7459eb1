"""`schooldata export` and `client.export` write whole datasets: the same rows as CSV and
Parquet, with their sources, licences and data version beside or inside the file."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from tests.e2e.test_cli_queries import BASE_URL, runtime_for

from schooldata.application.exports import DATASETS
from schooldata.application.service import Application
from schooldata.entrypoints.cli.app import cli
from schooldata.entrypoints.wire.exports import TABLES
from schooldata.library import SchoolDataClient

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")


@pytest.fixture
def run(app: Application, tmp_path: Path) -> Any:
    runtime = runtime_for(app, tmp_path)

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(cli, list(args), obj=runtime)

    return invoke


def read_csv(text: str) -> tuple[list[str], list[dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(text))
    return list(reader.fieldnames or []), list(reader)


@pytest.mark.parametrize("dataset", DATASETS)
def test_each_dataset_has_its_declared_columns(run: Any, dataset: str) -> None:
    result = run("export", dataset)
    header, _ = read_csv(result.stdout)
    if result.exit_code == 1:  # nothing of it in the fixture: the header alone, exit 1
        assert result.stderr.strip().endswith(f"No {dataset} rows to export.")
    else:
        assert result.exit_code == 0, result.output
    assert tuple(header) == TABLES[next(d for d in TABLES if d.value == dataset)].columns


def test_the_register_export_is_every_open_school_in_urn_order(app: Application, run: Any) -> None:
    result = run("export", "schools")
    assert result.exit_code == 0, result.output
    _, rows = read_csv(result.stdout)
    urns = [int(row["urn"]) for row in rows]
    assert urns == sorted(urns) == [s.urn.value for s in app.ports.schools.iter_all()]
    assert rows[0]["url"] == f"{BASE_URL}/api/v1/schools/{rows[0]['urn']}"
    assert "Sources: Department for Education; licences: Open Government" in result.stderr


def test_a_csv_file_has_a_sidecar_naming_its_sources_licences_and_data_version(
    app: Application, run: Any, tmp_path: Path
) -> None:
    target = tmp_path / "results.csv"
    result = run("export", "results", "--phase", "secondary", "-o", str(target))
    assert result.exit_code == 0, result.output
    _, rows = read_csv(target.read_text(encoding="utf-8"))
    sidecar = json.loads((tmp_path / "results.csv.meta.json").read_text(encoding="utf-8"))
    assert sidecar["rows"] == len(rows) > 0 and sidecar["file"] == "results.csv"
    assert sidecar["dataset"] == "results" and sidecar["filters"] == {"phase": "secondary"}
    version = app.ports.datasets.data_version()
    assert version is not None and sidecar["data_version"] == version.id
    assert sidecar["licences"] == ["Open Government Licence v3.0"]
    assert sidecar["sources"][0]["attribution"]
    assert f"Wrote {len(rows)} rows" in result.stderr


def test_parquet_reads_back_to_the_rows_of_the_csv(run: Any, tmp_path: Path) -> None:
    csv_file, parquet_file = tmp_path / "r.csv", tmp_path / "r.parquet"
    assert run("export", "results", "-o", str(csv_file)).exit_code == 0
    written = run("export", "results", "--format", "parquet", "-o", str(parquet_file))
    assert written.exit_code == 0, written.output
    from_parquet = pd.read_parquet(parquet_file)
    from_csv = pd.read_csv(csv_file, keep_default_na=False, na_values=[""])
    assert list(from_parquet.columns) == list(from_csv.columns)
    assert len(from_parquet) == len(from_csv) > 0
    for column in from_csv.columns:
        a, b = from_parquet[column], from_csv[column]
        same = (a.isna() & b.isna()) | (a.astype(str) == b.astype(str))
        assert same.all(), column
    import pyarrow.parquet as pq

    metadata = json.loads(pq.read_schema(parquet_file).metadata[b"schooldata"])
    assert metadata["dataset"] == "results" and metadata["sources"]


def test_nulls_are_empty_cells_never_zero(run: Any) -> None:
    _, rows = read_csv(run("export", "results").stdout)
    missing = [row for row in rows if row["status"] != "reported"]
    assert missing and all(row["value"] == "" and row["reason"] for row in missing)
    assert all(row["release_status"] == "" and row["released_on"] == "" for row in rows)


def test_the_library_exports_the_same_rows_typed(
    app: Application, run: Any, tmp_path: Path
) -> None:
    client = SchoolDataClient.from_application(app, base_url=BASE_URL)
    export = client.export("results", local_authority="Westminster")
    header, rows = read_csv(run("export", "results", "--local-authority", "Westminster").stdout)
    assert list(export.columns) == header
    exported = list(export)
    assert len(exported) == len(rows) and all(list(r) == header for r in exported)
    frame = export.to_pandas()
    assert list(frame.columns) == header and len(frame) == len(rows)
    assert str(frame["value"].dtype) == "Float64" and str(frame["cohort"].dtype) == "Int64"
    polars = export.to_polars()
    assert polars.height == len(rows)
    assert export.meta["dataset"] == "results" and export.meta["sources"]
    assert export.write_csv(tmp_path / "lib.csv") == len(rows)
    assert (tmp_path / "lib.csv.meta.json").is_file()
    assert export.write_parquet(tmp_path / "lib.parquet") == len(rows)


def test_bad_arguments_are_refused_before_anything_is_written(run: Any, tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    for args in (["nosuch"], ["results", "--phase", "middle"]):
        result = run("export", *args, "-o", str(target))
        assert result.exit_code == 2, result.output
    assert run("--format", "json", "export", "schools").exit_code == 2
    assert run("--as-plan", "developer", "export", "finance").exit_code == 2
    assert not target.exists() and list(tmp_path.iterdir()) == []
