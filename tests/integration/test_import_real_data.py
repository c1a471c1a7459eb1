"""The importers on the publishers' real files in ../shared/data (see its SOURCES.md).

Skipped, with the reason, when that directory is absent, unless SCHOOLDATA_REQUIRE_SERVICES=1
(CI with the data mounted), where its absence is a failure.
"""

from __future__ import annotations

import collections
import os
import time
from pathlib import Path

import pytest
from pyproj import Transformer

from schooldata.adapters.importers.codepoint import parse_codepoint
from schooldata.adapters.importers.gias import parse_gias
from schooldata.adapters.importers.ks4_info import parse_ks4_information
from schooldata.adapters.importers.links import parse_links
from schooldata.adapters.importers.registry import IMPORTERS
from schooldata.domain.geo import Location, distance_miles
from schooldata.domain.measure import MeasureStatus
from schooldata.domain.urn import Urn
from schooldata.ports.imports import RejectLog

SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
CODEPOINT = SHARED_DATA / "codepoint_open"
GIAS_SUBSET = SHARED_DATA / "gias" / "gias_subset.csv"
LINKS = SHARED_DATA / "gias" / "links_edubasealldata20250422.csv"
KS4 = SHARED_DATA / "performance_tables" / "202425_information_about_schools_provisional.csv"
METRES_PER_MILE = 1609.344
PALACE_PUBLISHED = Location(51.50101, -0.14156)  # SW1A 1AA, WGS84

if not SHARED_DATA.is_dir() and os.environ.get("SCHOOLDATA_REQUIRE_SERVICES") == "1":
    pytest.fail(f"SCHOOLDATA_REQUIRE_SERVICES=1 but {SHARED_DATA} is missing", pytrace=False)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.shared_data,
    pytest.mark.skipif(
        not SHARED_DATA.is_dir(),
        reason=f"the real data files are not here ({SHARED_DATA} is absent)",
    ),
]


def metres(a: Location, b: Location) -> float:
    return distance_miles(a, b) * METRES_PER_MILE


def test_gias_subset_yields_its_eight_rows_with_their_statuses() -> None:
    log = RejectLog()
    schools = {s.urn.value: s for s in parse_gias(GIAS_SUBSET, log)}
    assert sorted(schools) == sorted(
        [100000, 100004, 101173, 101077, 137666, 150516, 124087, 126370]
    )
    statuses = collections.Counter(s.status for s in schools.values())
    assert statuses == {"Open": 5, "Closed": 2, "Open, but proposed to close": 1}
    assert schools[101173].status == "Open"
    assert schools[101173].inspectorate_name == "ISI"
    assert (log.rows_read, log.skipped, log.rejects) == (8, 2, [])


def test_gias_subset_overseas_school_has_no_location_and_ofsted_grades_are_historic() -> None:
    schools = {s.urn.value: s for s in parse_gias(GIAS_SUBSET, RejectLog())}
    assert schools[150516].location is None  # British school overseas: no grid reference
    assert schools[150516].postcode is None
    assert schools[100000].ofsted is not None
    assert schools[100000].ofsted.grade == 1
    assert all(s.location is not None for urn, s in schools.items() if urn != 150516)


def test_gias_locations_agree_with_codepoint_postcode_centroids() -> None:
    # SOURCES.md: the subset's grid references lie 0-82 m from their postcode's centroid.
    schools = [s for s in parse_gias(GIAS_SUBSET, RejectLog()) if s.postcode]
    wanted = {"".join(s.postcode.split()) for s in schools if s.postcode}
    areas = {"".join(ch for ch in key[:2] if ch.isalpha()).lower() for key in wanted}
    files = [CODEPOINT / f"{area}.csv.gz" for area in sorted(areas)]
    centroids = {k: v for k, v in parse_codepoint(files, RejectLog()) if k in wanted}
    for school in schools:
        assert school.location is not None
        assert school.postcode is not None
        centroid = centroids["".join(school.postcode.split())]
        assert metres(school.location, centroid) < 100, school.urn


def test_sw1a_1aa_resolves_within_50_metres_of_an_independent_conversion() -> None:
    found = dict(parse_codepoint(CODEPOINT / "sw.csv.gz", RejectLog()))
    palace = found["SW1A1AA"]
    transformer = Transformer.from_crs("EPSG:27700", "EPSG:4326", always_xy=True)
    lon, lat = transformer.transform(529090, 179645)  # the row's own grid reference
    assert metres(palace, Location(lat, lon)) < 50
    assert metres(palace, PALACE_PUBLISHED) < 50


@pytest.mark.slow
def test_all_of_codepoint_open_parses_quickly_and_completely() -> None:
    log = RejectLog()
    wall, cpu = time.perf_counter(), time.process_time()
    count = sum(1 for _ in parse_codepoint(CODEPOINT, log))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert log.rows_read == 1_745_849
    assert log.skipped == 836  # positional quality 90: no coordinates
    assert log.rejects == []
    assert count == 1_745_849 - 836
    # CPU time, not wall time: the budget is the parser's, not that of whatever else the
    # machine is running (this 2-core box is shared by parallel test runs).
    assert cpu < 30, f"Code-Point Open took {cpu:.1f} s of CPU ({wall:.1f} s wall)"


def test_ks4_symbols_are_non_reported_measures_never_zero() -> None:
    log = RejectLog()
    records = list(parse_ks4_information(KS4, log))
    assert log.rows_read == 5755
    assert log.rejects == []
    assert {r.period for r in records} == {"2024/25"}
    by_urn_code = {(r.urn, r.code): r for r in records}
    # David Game College (100544): "z" throughout its measure columns.
    z_cell = by_urn_code[(Urn(100544), "ks4_attainment8_disadvantaged_gap")]
    assert z_cell.measure.status is MeasureStatus.NOT_APPLICABLE
    assert z_cell.measure.value is None
    suppressed = [r for r in records if r.measure.status is MeasureStatus.SUPPRESSED]
    assert suppressed, "the file has `c` cells"
    assert all(r.measure.value is None for r in suppressed)
    assert all(r.measure.is_reported or r.measure.value is None for r in records)
    progress8 = [r for r in records if r.code == "ks4_progress8_disadvantaged_gap"]
    assert len(progress8) == 5755
    assert {(r.measure.status, r.measure.reason) for r in progress8} == {
        (MeasureStatus.MISSING, "no_ks2_baseline")
    }


def test_ks4_z_and_c_cells_match_the_raw_file() -> None:
    import csv

    with KS4.open(encoding="utf-8", newline="") as handle:
        raw = {row["school_urn"]: row for row in csv.DictReader(handle)}
    records = parse_ks4_information(KS4, RejectLog())
    for record in records:
        if record.code != "ks4_attainment8_disadvantaged_gap":
            continue
        cell = raw[str(record.urn)]["attainment8_diffn"]
        if cell == "z":
            assert record.measure.status is MeasureStatus.NOT_APPLICABLE
        elif cell == "c":
            assert record.measure.status is MeasureStatus.SUPPRESSED
        else:
            assert record.measure.value == float(cell)


def test_the_links_file_has_33801_rows() -> None:
    log = RejectLog()
    links = list(parse_links(LINKS, log))
    assert len(links) == log.rows_read == 33_801
    assert log.rejects == []
    assert len({link.urn for link in links}) == 29_269
    types = collections.Counter(link.link_type for link in links)
    assert (types["Successor"], types["Predecessor"]) == (16_451, 16_264)
    assert any(link.linked_name and "à" in link.linked_name for link in links)  # cp1252 0xE0


def test_registry_records_for_the_real_files() -> None:
    links = IMPORTERS["links"].record_for(LINKS)
    assert links.extract_date is not None
    assert links.extract_date.isoformat() == "2025-04-22"
    ks4 = IMPORTERS["ks4-info"].record_for(KS4)
    assert ks4.period == "2024/25"
    assert IMPORTERS["postcodes"].record_for(CODEPOINT).name == "codepoint_open"
