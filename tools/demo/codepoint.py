"""OS Code-Point Open: read once for the postcodes of the demo's authorities, and the real
rows the demo needs copied byte for byte into `codepoint_demo/`."""

from __future__ import annotations

import gzip
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tools.demo.output import Output, write_gz

if TYPE_CHECKING:
    from tools.demo.places import LocalAuthority
    from tools.demo.school import School

# Outward codes copied whole into codepoint_demo/, so famous postcodes and outward-code
# centroids resolve even where no demo school sits.
# fmt: off
FULL_OUTWARD_CODES = (
    "SW1A", "SW1P", "WC2N", "EC1A", "B1", "B2", "M1", "LS1", "L1", "BS1", "S1", "NE1", "CB2",
    "OX1", "EH1", "CF10",
)
# fmt: on
MAX_CODEPOINT_ROWS = 250_000


@dataclass(frozen=True)
class Postcode:
    postcode: str
    easting: int
    northing: int
    county: str
    district: str
    ward: str

    @property
    def outward(self) -> str:
        return self.postcode.split()[0]


@dataclass
class CodePoint:
    """What the generator needs from Code-Point Open, read once."""

    by_la: dict[str, list[Postcode]]  # LA code -> its quality-10 postcodes, file order
    outward_counts: Counter[str]  # rows per outward code (all qualities)
    area_files: dict[str, Path]  # area ("sw") -> source file


def postcode_area(postcode: str) -> str:
    match = re.match(r"[A-Z]+", postcode)
    if match is None:
        raise ValueError(f"not a postcode: {postcode!r}")
    return match.group(0).lower()


def load_codepoint(source: Path, authorities: Sequence[LocalAuthority]) -> CodePoint:
    """Read every Code-Point area file, keeping the postcodes of these authorities."""
    la_by_key = {(la.cp_column, la.cp_code): la.code for la in authorities}
    by_la: dict[str, list[Postcode]] = {la.code: [] for la in authorities}
    outward_counts: Counter[str] = Counter()
    area_files: dict[str, Path] = {}
    files = sorted(source.glob("*.csv.gz"))
    if not files:
        raise SystemExit(f"no Code-Point area files (*.csv.gz) in {source}")
    for path in files:
        area_files[path.name.split(".")[0]] = path
        with gzip.open(path, "rb") as fh:
            for raw in fh:
                fields = raw.decode("ascii").rstrip("\r\n").split(",")
                postcode = fields[0].strip('"')
                outward_counts[postcode.split()[0]] += 1
                county, district = fields[7].strip('"'), fields[8].strip('"')
                la_code = la_by_key.get(("district", district)) or la_by_key.get(("county", county))
                # Quality 10 = within the building of a matched address: good for a school.
                if la_code is None or fields[1] != "10":
                    continue
                by_la[la_code].append(
                    Postcode(
                        postcode,
                        int(fields[2]),
                        int(fields[3]),
                        county,
                        district,
                        fields[9].strip('"'),
                    )
                )
    for la in authorities:
        if not by_la[la.code]:
            raise SystemExit(f"no Code-Point postcodes for {la.name} ({la.cp_code})")
    return CodePoint(by_la, outward_counts, area_files)


def write_codepoint(out: Path, cp: CodePoint, schools: Sequence[School]) -> Output:
    """Real Code-Point rows, byte for byte: used postcodes plus whole outward codes."""
    used = {s.pc.postcode for s in schools}
    school_outwards = sorted({s.pc.outward for s in schools})
    wanted_outwards = set(FULL_OUTWARD_CODES)
    district_rows = sum(cp.outward_counts[o] for o in school_outwards)
    full_districts = (
        district_rows
        + sum(cp.outward_counts[o] for o in FULL_OUTWARD_CODES if o not in school_outwards)
        <= MAX_CODEPOINT_ROWS
    )
    if full_districts:
        wanted_outwards.update(school_outwards)
    areas = sorted({postcode_area(p) for p in used} | {postcode_area(o) for o in wanted_outwards})
    target = out / "codepoint_demo"
    target.mkdir(parents=True, exist_ok=True)
    for stale in sorted(target.glob("*.csv.gz")):
        stale.unlink()  # only this generator's own outputs live here
    total, files = 0, []
    for area in areas:
        kept: list[bytes] = []
        with gzip.open(cp.area_files[area], "rb") as fh:
            for raw in fh:
                postcode = raw[1 : raw.index(b'"', 1)].decode("ascii")
                if postcode in used or postcode.split()[0] in wanted_outwards:
                    kept.append(raw)
        if kept:
            write_gz(target / f"{area}.csv.gz", b"".join(kept))
            files.append(f"codepoint_demo/{area}.csv.gz")
            total += len(kept)
    return Output(
        target,
        total,
        {
            "dataset": "OS Code-Point Open (subset: demo postcodes and selected outward codes)",
            "format": "codepoint_open",
            "publisher": "Ordnance Survey",
            "period": ["2025-10"],
            "source_version": "Code-Point Open 2025.4.0 (October 2025)",
            "encoding": "ascii",
            "line_endings": "LF",
            "header": False,
            "columns": [
                "Postcode",
                "Positional_quality_indicator",
                "Eastings",
                "Northings",
                "Country_code",
                "NHS_regional_HA_code",
                "NHS_HA_code",
                "Admin_county_code",
                "Admin_district_code",
                "Admin_ward_code",
            ],
            "files": files,
            "complete_outward_codes": sorted(wanted_outwards),
            "whole_districts_of_demo_schools": full_districts,
            "synthetic": False,
            "attribution": (
                "Contains Ordnance Survey data © Crown copyright and database right "
                "2025. Contains Royal Mail data © Royal Mail copyright and database "
                "right 2025. Contains National Statistics data © Crown copyright and "
                "database right 2025."
            ),
        },
    )
