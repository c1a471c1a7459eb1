"""The importer table the CLI uses, its provenance records, and a parse -> import round trip."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from schooldata.adapters.importers.registry import (
    IMPORTERS,
    OGL,
    PLACEHOLDER_IMPORTED_AT,
)
from schooldata.adapters.memory.store import InMemoryStore
from schooldata.application.import_dataset import DatasetKind, ImportDataset
from schooldata.domain.postcode import parse_postcode
from schooldata.domain.urn import Urn
from schooldata.ports.imports import RejectLog

FIXTURES = Path(__file__).parent.parent / "fixtures" / "importers"
SAMPLE = Path(__file__).parents[2] / "src" / "schooldata" / "adapters" / "sample" / "data"
SOURCES = {
    "gias": FIXTURES / "edubasealldata20250401.csv",
    "links": FIXTURES / "links_edubasealldata20250422.csv",
    "postcodes": FIXTURES / "codepoint",
    "ks4-info": FIXTURES / "202425_information_about_schools_provisional.csv",
    # The bundled synthetic files are in the same publishers' layouts.
    "ks4-results": SAMPLE / "ks4_results_demo.csv.gz",
    "ks2-results": SAMPLE / "ks2_results_demo.csv.gz",
    "ks5-results": SAMPLE / "ks5_results_demo.csv.gz",
    "ks5-destinations": SAMPLE / "ks5_destinations_demo.csv.gz",
    "ofsted": SAMPLE / "ofsted_graded_demo.csv.gz",
    "admissions": SAMPLE / "admissions_demo.csv.gz",
    "finance": SAMPLE / "finance_demo.csv.gz",
}
NOW = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)


class FixedClock:
    def now(self) -> dt.datetime:
        return NOW


def test_the_cli_names_and_their_kinds() -> None:
    assert {name: imp.kind for name, imp in IMPORTERS.items()} == {
        "gias": DatasetKind.SCHOOLS,
        "links": DatasetKind.LINKS,
        "postcodes": DatasetKind.POSTCODES,
        "ks4-info": DatasetKind.MEASURES,
        "ks4-results": DatasetKind.MEASURES,
        "ks2-results": DatasetKind.MEASURES,
        "ks5-results": DatasetKind.MEASURES,
        "ks5-destinations": DatasetKind.MEASURES,
        "ofsted": DatasetKind.INSPECTIONS,
        "admissions": DatasetKind.MEASURES,
        "finance": DatasetKind.MEASURES,
    }


@pytest.mark.parametrize("name", sorted(IMPORTERS))
def test_every_record_carries_licence_attribution_and_source(name: str) -> None:
    record = IMPORTERS[name].record_for(SOURCES[name])
    assert record.licence == OGL == "Open Government Licence v3.0"
    assert record.attribution
    assert "{year}" not in record.attribution
    assert record.publisher
    assert record.title
    assert record.url
    assert record.cadence
    assert record.coverage
    assert record.imported_at == PLACEHOLDER_IMPORTED_AT
    assert "{year}" not in IMPORTERS[name].record.attribution


def test_gias_extract_dates_come_from_the_file_names() -> None:
    assert IMPORTERS["gias"].record_for(SOURCES["gias"]).extract_date == dt.date(2025, 4, 1)
    assert IMPORTERS["links"].record_for(SOURCES["links"]).extract_date == dt.date(2025, 4, 22)


def test_postcode_records_follow_the_detected_format() -> None:
    codepoint = IMPORTERS["postcodes"].record_for(
        SOURCES["postcodes"], extract_date=dt.date(2025, 10, 17)
    )
    assert (codepoint.name, codepoint.publisher) == ("codepoint_open", "Ordnance Survey")
    assert "Contains OS data © Crown copyright and database right 2025." in codepoint.attribution
    assert codepoint.extract_date == dt.date(2025, 10, 17)
    onspd = IMPORTERS["postcodes"].record_for(FIXTURES / "ONSPD_NOV_2025_UK_sample.csv")
    assert (onspd.name, onspd.extract_date) == ("onspd", dt.date(2025, 11, 1))


def test_an_unpacked_onspd_release_reads_its_national_file_once(tmp_path: Path) -> None:
    sample = (FIXTURES / "ONSPD_NOV_2025_UK_sample.csv").read_bytes()
    (tmp_path / "Data" / "multi_csv").mkdir(parents=True)
    (tmp_path / "Documents").mkdir()
    (tmp_path / "Data" / "ONSPD_NOV_2025_UK.csv").write_bytes(sample)
    (tmp_path / "Data" / "multi_csv" / "ONSPD_NOV_2025_UK_SW.csv").write_bytes(sample)
    (tmp_path / "Documents" / "LA_UA names and codes UK as at 04_25.csv").write_text(
        "LAD25CD,LAD25NM\nE09000033,Westminster\n"
    )
    whole, alone = RejectLog(), RejectLog()
    from_release = dict(IMPORTERS["postcodes"].parse(tmp_path, whole))
    from_file = dict(
        IMPORTERS["postcodes"].parse(tmp_path / "Data" / "ONSPD_NOV_2025_UK.csv", alone)
    )
    assert from_release == from_file and from_file
    assert whole.rows_read == alone.rows_read
    record = IMPORTERS["postcodes"].record_for(tmp_path)
    assert (record.name, record.extract_date) == ("onspd", dt.date(2025, 11, 1))


def test_ks4_period_and_release_come_from_the_file_name() -> None:
    record = IMPORTERS["ks4-info"].record_for(SOURCES["ks4-info"])
    assert record.period == "2024/25"
    assert record.title.endswith("(provisional)")
    assert record.name == "ks4_information"


def test_the_ofsted_extract_date_is_the_files_as_at_date(tmp_path: Path) -> None:
    name = (
        "Management_information_-_state-funded_schools_-_latest_inspections_as_at_31_Jan_2026.csv"
    )
    mi = tmp_path / name
    mi.write_bytes(SOURCES["ofsted"].read_bytes())
    record = IMPORTERS["ofsted"].record_for(mi)
    assert record.extract_date == dt.date(2026, 1, 31)
    assert IMPORTERS["ofsted"].record_for(SOURCES["ofsted"]).extract_date is None


@pytest.mark.parametrize("name", sorted(IMPORTERS))
def test_each_importer_runs_through_the_import_use_case(name: str) -> None:
    store = InMemoryStore()
    importer = IMPORTERS[name]
    log = RejectLog()
    report = ImportDataset(store=store, clock=FixedClock()).execute(
        kind=importer.kind,
        items=importer.parse(SOURCES[name], log),
        log=log,
        record=importer.record_for(SOURCES[name]),
    )
    assert report.rows_read == log.rows_read > 0
    assert report.rows_imported > 0
    (current,) = [r for r in store.current() if r.name == importer.record.name]
    assert current.imported_at == NOW


def test_imported_schools_and_postcodes_are_served() -> None:
    store = InMemoryStore()
    use_case = ImportDataset(store=store, clock=FixedClock())
    for name in ("gias", "postcodes"):
        importer, log = IMPORTERS[name], RejectLog()
        use_case.execute(
            kind=importer.kind,
            items=importer.parse(SOURCES[name], log),
            log=log,
            record=importer.record_for(SOURCES[name]),
        )
    assert store.get(urn=Urn(100001)) is not None
    assert store.get(urn=Urn(100003)) is None  # closed: parsed, not served
    assert store.locate(postcode=parse_postcode("sw1a 1aa")) is not None
