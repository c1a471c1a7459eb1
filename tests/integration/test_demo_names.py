"""The bundled demo is what its generator writes, and no demo school carries a real school's
name (the real names are DfE's, in ../shared/data/performance_tables)."""

from __future__ import annotations

import csv
import gzip
import os
import re
from pathlib import Path

import pytest
from tools.demo.__main__ import generate
from tools.demo.real_names import RealNames

ROOT = Path(__file__).parents[2]
SAMPLE = ROOT / "src" / "schooldata" / "adapters" / "sample" / "data"
SHARED_DATA = ROOT.parent / "shared" / "data"
REAL_NAMES = SHARED_DATA / "performance_tables"

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


def demo_schools() -> list[dict[str, str]]:
    with gzip.open(SAMPLE / "gias_demo.csv.gz", "rt", encoding="cp1252", newline="") as text:
        return list(csv.DictReader(text))


def real_school_names() -> list[str]:
    names = []
    for path in REAL_NAMES.glob("*.csv"):
        with path.open(encoding="utf-8-sig", newline="") as text:
            names.extend(row["school_name"] for row in csv.DictReader(text))
    assert len(names) > 5000
    return names


def plain(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.casefold().replace("&", "and"))


def test_no_demo_school_has_a_real_school_name() -> None:
    real = {plain(name) for name in real_school_names()}
    schools = demo_schools()
    assert len(schools) == 5900
    assert [s["EstablishmentName"] for s in schools if plain(s["EstablishmentName"]) in real] == []


def test_no_demo_school_is_a_real_town_school_under_another_kind_word() -> None:
    real = RealNames(real_school_names())
    named = [
        s["EstablishmentName"]
        for s in demo_schools()
        if real.taken(s["EstablishmentName"], (s["Town"], s["LA (name)"]))
    ]
    assert named == []
    # The name the issue found being served with invented results, and its real school.
    assert real.taken("Folkestone Grammar School for Girls", ("Folkestone",))
    assert "Folkestone Grammar School for Girls" not in {
        s["EstablishmentName"] for s in demo_schools()
    }


def test_the_bundled_demo_is_what_the_generator_writes(tmp_path: Path) -> None:
    """Deterministic, and regenerated whenever the generator changed (`make demo-data`)."""
    outputs = generate(
        SHARED_DATA / "codepoint_open", RealNames.read(REAL_NAMES), tmp_path, log=lambda _: None
    )
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert len(outputs) == 11
    different = [
        str(path)
        for path in written
        if (tmp_path / path).read_bytes() != (SAMPLE / path).read_bytes()
    ]
    assert different == []
    bundled = {p.relative_to(SAMPLE) for p in SAMPLE.rglob("*") if p.is_file()}
    assert bundled - set(written) == {Path("README.md")}
