"""Issue acceptance on the publishers' real files, through the CLI into SQLite.

- Importing gias_subset.csv serves exactly its open rows.
- Importing all of Code-Point Open, then SW1A 1AA, sw1a1aa, SW1A and B1 resolve within 50 m
  of the OS eastings/northings converted independently; an unknown postcode is unknown.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pyproj import Transformer

from schooldata.domain.geo import Location, distance_miles

SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
SCHOOLDATA = [sys.executable, "-m", "schooldata"]

if not SHARED_DATA.is_dir() and os.environ.get("SCHOOLDATA_REQUIRE_SERVICES") == "1":
    pytest.fail(f"SCHOOLDATA_REQUIRE_SERVICES=1 but {SHARED_DATA} is missing", pytrace=False)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.shared_data,
    pytest.mark.skipif(not SHARED_DATA.is_dir(), reason=f"{SHARED_DATA} is absent"),
]


def cli(db: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SCHOOLDATA_KEY_SECRET": "x" * 40, "SCHOOLDATA_HOME": str(Path(db).parent)}
    return subprocess.run(
        [*SCHOOLDATA, "--db", f"sqlite:///{db}", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    db = str(tmp_path_factory.mktemp("acceptance") / "real.sqlite3")
    for args in (
        ("import", "postcodes", str(SHARED_DATA / "codepoint_open")),
        ("import", "gias", str(SHARED_DATA / "gias" / "gias_subset.csv")),
    ):
        result = cli(db, *args)
        assert result.returncode == 0, result.stderr
    return db


def test_the_gias_subset_serves_exactly_its_open_rows(database: str) -> None:
    with (SHARED_DATA / "gias" / "gias_subset.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    open_urns = {
        int(r["URN"])
        for r in rows
        if r["EstablishmentStatus (name)"] in ("Open", "Open, but proposed to close")
    }
    closed = {int(r["URN"]) for r in rows} - open_urns
    assert closed, "the fixture has closed rows"
    served = set()
    for row in rows:
        result = cli(database, "--format", "json", "school", row["URN"], "--public")
        if result.returncode == 0:
            served.add(json.loads(result.stdout)["urn"])
        else:
            assert result.returncode == 1, result.stderr  # not found, never a crash
    assert served == open_urns


def _os_location(postcode: str) -> Location:
    area = re.match(r"[A-Z]+", postcode.upper()).group(0).lower()  # type: ignore[union-attr]
    with gzip.open(SHARED_DATA / "codepoint_open" / f"{area}.csv.gz", "rt") as f:
        for row in csv.reader(f):
            if row[0] == postcode:
                lon, lat = Transformer.from_crs(
                    "EPSG:27700", "EPSG:4326", always_xy=True
                ).transform(float(row[2]), float(row[3]))
                return Location(lat, lon)
    raise AssertionError(f"{postcode} not in Code-Point")


def _resolved(database: str, postcode: str) -> Location:
    result = cli(database, "--format", "json", "search", "--postcode", postcode, "--limit", "1")
    assert result.returncode in (0, 1), result.stderr
    from schooldata.adapters.sql.store import SqlStore
    from schooldata.domain.postcode import parse_postcode

    location = SqlStore(f"sqlite:///{database}").locate(postcode=parse_postcode(postcode))
    assert location is not None, postcode
    return location


@pytest.mark.parametrize("typed", ["SW1A 1AA", "sw1a1aa"])
def test_full_postcodes_resolve_within_50_metres_of_the_os_grid_reference(
    database: str, typed: str
) -> None:
    metres = distance_miles(_resolved(database, typed), _os_location("SW1A 1AA")) * 1609.344
    assert metres < 50


@pytest.mark.parametrize(("outward", "sample"), [("SW1A", "SW1A 1AA"), ("B1", "B1 1BB")])
def test_outward_codes_resolve_to_a_centroid_among_their_postcodes(
    database: str, outward: str, sample: str
) -> None:
    # An outward code's centroid is the mean of its live postcodes: within a few miles of any.
    assert distance_miles(_resolved(database, outward), _os_location(sample)) < 3


def test_an_unknown_postcode_is_reported_unknown_not_zero_zero(database: str) -> None:
    result = cli(database, "search", "--postcode", "ZZ99 9ZZ")
    assert result.returncode == 2
    assert "Unknown postcode" in result.stderr
    assert "Traceback" not in result.stderr


def embedded(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI on the embedded default database (no --db), as README's "Real data" runs it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCHOOLDATA_")}
    env["SCHOOLDATA_HOME"] = str(home)
    return subprocess.run(
        [*SCHOOLDATA, *args], capture_output=True, text=True, env=env, timeout=300, check=False
    )


def test_real_gias_into_the_embedded_demo_serves_only_real_data(tmp_path: Path) -> None:
    imported = embedded(tmp_path, "import", "gias", str(SHARED_DATA / "gias" / "gias_subset.csv"))
    assert imported.returncode == 0, imported.stderr
    assert "Removed the bundled demo" in imported.stderr

    westbury = json.loads(embedded(tmp_path, "--format", "json", "school", "126370").stdout)
    # GIAS's own (2024 layout) grade, not a synthetic inspection's.
    assert westbury["ofsted_rating"] == 3
    assert westbury["ofsted_historic_grade"]["label"] == "Requires improvement"
    inspections = json.loads(embedded(tmp_path, "--format", "json", "inspections", "126370").stdout)
    assert inspections["inspections"] == []
    results = json.loads(embedded(tmp_path, "--format", "json", "results", "137666").stdout)
    assert all(results[topic]["measures"] == [] for topic in ("ks2", "ks4", "16_18"))
    finance = json.loads(embedded(tmp_path, "--format", "json", "finance", "137666").stdout)
    assert finance["finance"]["measures"] == []
    freshness = json.loads(embedded(tmp_path, "--format", "json", "freshness").stdout)
    assert [(d["dataset"], d["synthetic"]) for d in freshness] == [("gias_establishments", False)]
    overseas = json.loads(embedded(tmp_path, "--format", "json", "school", "150516").stdout)
    assert overseas["local_authority"] is None  # GIAS's "Does not apply"

    sample = embedded(tmp_path, "import", "sample")
    assert sample.returncode == 3
    assert "never mixed with real data" in sample.stderr
