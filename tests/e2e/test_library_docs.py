"""docs/library.md is executable: its examples run as doctests over the shared fixture."""

from __future__ import annotations

import datetime as dt
import doctest
import os
from pathlib import Path

import pytest
from tests.support.dataset import build_store

from schooldata.application.import_dataset import DatasetKind
from schooldata.bootstrap import bootstrap_memory
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.measure import reported
from schooldata.domain.results import MeasureRecord
from schooldata.domain.urn import Urn
from schooldata.library import SchoolDataClient, SearchResults
from schooldata.ports.imports import RejectLog

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "library.md"


# The guide's results panel needs two years: the fixture holds 2024/25 KS4; the year before
# is imported here, as a publisher's earlier file would be.
EARLIER_KS4 = {100002: 38.5, 100003: 41.0, 100005: 45.5, 100014: 47.0, 100017: 52.5}


@pytest.fixture
def client() -> SchoolDataClient:
    app = bootstrap_memory(store=build_store())
    earlier = [
        MeasureRecord(
            Urn(urn), "ks4_results", "2023/24", "ks4_attainment8_average", reported(v), 118
        )
        for urn, v in EARLIER_KS4.items()
    ]
    app.import_dataset.execute(
        kind=DatasetKind.MEASURES,
        items=earlier,
        log=RejectLog(),
        record=DatasetRecord(
            name="ks4_results",
            title="Key stage 4 performance: school-level results (test fixture)",
            publisher="Department for Education",
            licence="Open Government Licence v3.0",
            attribution="Contains public sector information licensed under the Open Government Licence v3.0.",
            url=None,
            extract_date=dt.date(2025, 10, 16),
            imported_at=dt.datetime(2026, 11, 1, 9, 30, tzinfo=dt.UTC),
        ),
    )
    return SchoolDataClient.from_application(app)


def test_every_example_in_the_library_guide_runs(client: SchoolDataClient) -> None:
    result = doctest.testfile(
        str(GUIDE),
        module_relative=False,
        globs={"client": client},
        optionflags=doctest.ELLIPSIS,
        report=True,
        verbose=False,
    )
    assert result.attempted >= 20, "the guide lost its examples"
    assert result.failed == 0, f"{result.failed} example(s) in {GUIDE.name} failed (see output)"


def test_the_package_re_exports_the_facade_lazily() -> None:
    import schooldata
    from schooldata import library

    assert schooldata.open_database is library.open_database
    assert schooldata.SchoolDataClient is library.SchoolDataClient


def test_results_never_carry_withheld_fields(client: SchoolDataClient) -> None:
    results = client.search("school", limit=25)
    assert isinstance(results, SearchResults) and results.hits
    for school in (*results.schools, client.get_school(results.hits[0].school.urn.value)):
        assert school.head_name is None
        assert school.inspectorate_name is None


def test_open_database_with_no_url_serves_the_embedded_demo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip(
        "schooldata.adapters.sql.key_store", reason="the SQL key store is not built"
    )
    for name in [n for n in os.environ if n.startswith("SCHOOLDATA_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("SCHOOLDATA_HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)  # no stray schooldata.toml
    from schooldata import open_database

    with open_database() as demo:
        results = demo.search("school", limit=5)
        assert results.total > 0 and len(results) == 5
        first = demo.get_school(results.hits[0].school.urn.value)
        assert first.urn == results.hits[0].school.urn
        assert any(s.name == "gias_establishments" for s in demo.sources())
