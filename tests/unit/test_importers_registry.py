"""The importer table the CLI uses, its provenance records, and a parse -> import round trip."""

from __future__ import annotations

import datetime as dt
import gzip
import zipfile
from pathlib import Path

import pytest

from schooldata.adapters.importers.provenance import OGL, PLACEHOLDER_IMPORTED_AT
from schooldata.adapters.importers.registry import IMPORTERS
from schooldata.adapters.memory.store import InMemoryStore
from schooldata.application.import_dataset import DatasetKind, ImportDataset
from schooldata.domain.errors import ImportRejected
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
    "ks4-results": FIXTURES / "2018-2019" / "england_ks4final.csv",
    "ks2-results": FIXTURES / "ks2_school_attainment_data.csv",
    "ks5-results": FIXTURES / "institution_performance_202225.csv",
    "ks5-destinations": FIXTURES / "1618_dm_institution_level_202223.csv",
    "admissions": FIXTURES / "AppsandOffers_2025_SchoolLevel.csv",
    "finance": FIXTURES / "2022-2023" / "england_cfr.csv",
    # The bundled synthetic file, in the layout of Ofsted's historic graded MI.
    "ofsted": SAMPLE / "ofsted_graded_demo.csv.gz",
}
NOW = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)


class FixedClock:
    def now(self) -> dt.datetime:
        return NOW

    def timestamp(self) -> float:
        return self.now().timestamp()


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


DEMO_TABLES = {
    "ks4-results": "ks4_results_demo.csv.gz",
    "ks2-results": "ks2_results_demo.csv.gz",
    "ks5-results": "ks5_results_demo.csv.gz",
    "ks5-destinations": "ks5_destinations_demo.csv.gz",
    "admissions": "admissions_demo.csv.gz",
    "finance": "finance_demo.csv.gz",
}


@pytest.mark.parametrize(("name", "demo"), sorted(DEMO_TABLES.items()))
def test_the_bundled_demo_files_are_read_by_the_same_importers(name: str, demo: str) -> None:
    log = RejectLog()
    assert sum(1 for _ in IMPORTERS[name].parse(SAMPLE / demo, log)) > 0
    assert log.rejects == []


def test_each_dfe_table_names_its_own_publication() -> None:
    urls = {name: IMPORTERS[name].record.url for name in ("ks2-results", "admissions", "finance")}
    assert urls["ks2-results"] and urls["ks2-results"].endswith("/key-stage-2-attainment")
    assert urls["admissions"] and "applications-and-offers" in urls["admissions"]
    assert urls["finance"] == "https://www.compare-school-performance.service.gov.uk/download-data"


def test_the_older_downloads_take_their_year_from_the_folder_for_the_record_too() -> None:
    record = IMPORTERS["ks4-results"].record_for(SOURCES["ks4-results"])
    assert record.period == "2018/19"


def test_a_period_is_refused_by_files_that_date_themselves() -> None:
    assert IMPORTERS["ks4-results"].periodic and not IMPORTERS["gias"].periodic
    with pytest.raises(ImportRejected, match="--period does not apply"):
        IMPORTERS["gias"].parse(SOURCES["gias"], RejectLog(), period="2023/24")


CODEPOINT_AB = FIXTURES / "codepoint" / "ab.csv.gz"
METADATA = "ORDNANCE SURVEY\nPRODUCT: OS CODE-POINT_03.02\nCOPYRIGHT DATE: 20251020\n"


def test_the_code_point_attribution_year_comes_from_the_releases_metadata(
    tmp_path: Path,
) -> None:
    # The unpacked release: codepo_gb/Data/CSV/<area>.csv and codepo_gb/Doc/metadata.txt.
    csv_dir = tmp_path / "codepo_gb" / "Data" / "CSV"
    csv_dir.mkdir(parents=True)
    (csv_dir / "ab.csv").write_bytes(gzip.decompress(CODEPOINT_AB.read_bytes()))
    (tmp_path / "codepo_gb" / "Doc").mkdir()
    (tmp_path / "codepo_gb" / "Doc" / "metadata.txt").write_text(METADATA)
    for source in (csv_dir, csv_dir / "ab.csv", tmp_path / "codepo_gb"):
        record = IMPORTERS["postcodes"].record_for(source)
        assert record.extract_date == dt.date(2025, 10, 20)
        assert "database right 2025." in record.attribution
        assert "2026" not in record.attribution


def test_the_code_point_zip_is_read_in_place_and_dated_by_its_metadata(tmp_path: Path) -> None:
    archive = tmp_path / "codepo_gb.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("Doc/metadata.txt", METADATA)
        out.writestr("Data/CSV/ab.csv", gzip.decompress(CODEPOINT_AB.read_bytes()))
    record = IMPORTERS["postcodes"].record_for(archive)
    assert (record.name, record.extract_date) == ("codepoint_open", dt.date(2025, 10, 20))
    log = RejectLog()
    postcodes = dict(IMPORTERS["postcodes"].parse(archive, log))
    assert postcodes == dict(IMPORTERS["postcodes"].parse(CODEPOINT_AB, RejectLog()))
    assert postcodes and log.rejects == []


def test_without_metadata_a_zip_dates_code_point_by_its_members(tmp_path: Path) -> None:
    archive = tmp_path / "codepo_gb.zip"
    with zipfile.ZipFile(archive, "w") as out:
        member = zipfile.ZipInfo("Data/CSV/ab.csv", date_time=(2025, 10, 17, 9, 0, 0))
        out.writestr(member, gzip.decompress(CODEPOINT_AB.read_bytes()))
    record = IMPORTERS["postcodes"].record_for(archive)
    assert record.extract_date == dt.date(2025, 10, 17)
    assert "database right 2025." in record.attribution


def test_an_onspd_release_zip_reads_its_national_file_once(tmp_path: Path) -> None:
    sample = (FIXTURES / "ONSPD_NOV_2025_UK_sample.csv").read_bytes()
    archive = tmp_path / "ONSPD_NOV_2025.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("Data/ONSPD_NOV_2025_UK.csv", sample)
        out.writestr("Data/multi_csv/ONSPD_NOV_2025_UK_SW.csv", sample)
        out.writestr("Documents/LA_UA names and codes UK as at 04_25.csv", "LAD25CD,LAD25NM\n")
    whole, alone = RejectLog(), RejectLog()
    from_zip = dict(IMPORTERS["postcodes"].parse(archive, whole))
    from_file = dict(IMPORTERS["postcodes"].parse(FIXTURES / "ONSPD_NOV_2025_UK_sample.csv", alone))
    assert from_zip == from_file and from_file
    assert whole.rows_read == alone.rows_read
    record = IMPORTERS["postcodes"].record_for(archive)
    assert (record.name, record.extract_date) == ("onspd", dt.date(2025, 11, 1))


def test_a_year_to_date_file_is_dated_by_its_published_by_date() -> None:
    name = (
        "Management_information_-_state-funded_schools_-_all_inspections_-_year_to_date"
        "_published_by_31_Aug_2025.csv"
    )
    record = IMPORTERS["ofsted"].record_for(FIXTURES / name)
    assert (record.name, record.extract_date) == ("ofsted_all_inspections", dt.date(2025, 8, 31))
