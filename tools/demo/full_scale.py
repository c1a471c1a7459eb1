"""The benchmarks' authorities: every English upper-tier authority in Code-Point Open, the
table's real ones and synthetic ones for the rest."""

from __future__ import annotations

import dataclasses
import gzip
from collections import Counter
from pathlib import Path

from tools.demo.codepoint import postcode_area
from tools.demo.places import LOCAL_AUTHORITIES, LocalAuthority

# Full-scale counts: about the size of a real GIAS download (~65,000 establishments of which
# ~27,000 are open). Only used with --full-scale; the bundled demo never changes.
FULL_SCALE_COUNTS = {
    "N_OPEN": 26_500,
    "N_PROPOSED_TO_CLOSE": 400,
    "N_CLOSED_FOR_ACADEMY": 8_000,
    "N_CLOSED_OTHER": 30_400,
    "N_PROPOSED_TO_OPEN": 300,
}
FULL_SCALE_URN_RANGES = ((190000, 194999), (150000, 189999), (100000, 149999))

# Main post town of each English postcode area, for naming the synthetic authorities.
# fmt: off
AREA_TOWNS = {
    "al": "St Albans", "b": "Birmingham", "ba": "Bath", "bb": "Blackburn", "bd": "Bradford",
    "bh": "Bournemouth", "bl": "Bolton", "bn": "Brighton", "br": "Bromley", "bs": "Bristol",
    "ca": "Carlisle", "cb": "Cambridge", "ch": "Chester", "cm": "Chelmsford", "co": "Colchester",
    "cr": "Croydon", "ct": "Canterbury", "cv": "Coventry", "cw": "Crewe", "da": "Dartford",
    "de": "Derby", "dh": "Durham", "dl": "Darlington", "dn": "Doncaster", "dt": "Dorchester",
    "dy": "Dudley", "e": "London", "ec": "London", "en": "Enfield", "ex": "Exeter",
    "fy": "Blackpool", "gl": "Gloucester", "gu": "Guildford", "ha": "Harrow",
    "hd": "Huddersfield", "hg": "Harrogate", "hp": "Hemel Hempstead", "hr": "Hereford",
    "hu": "Hull", "hx": "Halifax", "ig": "Ilford", "ip": "Ipswich", "kt": "Kingston upon Thames",
    "l": "Liverpool", "la": "Lancaster", "le": "Leicester", "ln": "Lincoln", "ls": "Leeds",
    "lu": "Luton", "m": "Manchester", "me": "Rochester", "mk": "Milton Keynes", "n": "London",
    "ne": "Newcastle", "ng": "Nottingham", "nn": "Northampton", "nr": "Norwich", "nw": "London",
    "ol": "Oldham", "ox": "Oxford", "pe": "Peterborough", "pl": "Plymouth", "po": "Portsmouth",
    "pr": "Preston", "rg": "Reading", "rh": "Redhill", "rm": "Romford", "s": "Sheffield",
    "se": "London", "sg": "Stevenage", "sk": "Stockport", "sl": "Slough", "sm": "Sutton",
    "sn": "Swindon", "so": "Southampton", "sp": "Salisbury", "sr": "Sunderland",
    "ss": "Southend-on-Sea", "st": "Stoke-on-Trent", "sw": "London", "sy": "Shrewsbury",
    "ta": "Taunton", "tf": "Telford", "tn": "Tonbridge", "tq": "Torquay", "tr": "Truro",
    "ts": "Cleveland", "tw": "Twickenham", "ub": "Southall", "w": "London", "wa": "Warrington",
    "wc": "London", "wd": "Watford", "wf": "Wakefield", "wn": "Wigan", "wr": "Worcester",
    "ws": "Walsall", "wv": "Wolverhampton", "yo": "York",
}
# fmt: on
# Region letter -> (Church of England diocese, Roman Catholic diocese) for synthetic LAs.
# fmt: off
REGION_DIOCESES = {
    "A": ("Durham", "Hexham and Newcastle"), "B": ("Manchester", "Salford"), "D": ("York", "Leeds"),
    "E": ("Derby", "Nottingham"), "F": ("Lichfield", "Birmingham"), "G": ("Ely", "East Anglia"),
    "H": ("London", "Westminster"), "J": ("Oxford", "Portsmouth"), "K": ("Exeter", "Clifton"),
}
# fmt: on
NAME_SUFFIXES = ("North", "South", "East", "West", "Central", "Vale", "Borough", "District")


def approximate_region(easting: float, northing: float, london: bool) -> str:
    """A government office region letter from an authority's centroid (rough, synthetic)."""
    if london:
        return "H"
    if northing > 505_000:
        return "A" if easting >= 370_000 else "B"
    if northing > 380_000:
        return "B" if easting < 395_000 else "D"
    if northing > 290_000:
        return "F" if easting < 440_000 else ("E" if easting < 530_000 else "G")
    if northing > 200_000:
        return "K" if easting < 390_000 else ("J" if easting < 480_000 else "G")
    return "K" if easting < 420_000 else "J"


def full_scale_authorities(source: Path) -> tuple[LocalAuthority, ...]:
    """Every English upper-tier authority in Code-Point Open, weighted by its postcodes.

    The table's authorities keep their real names and codes; every other English county or
    unitary/metropolitan/London district becomes a synthetic authority (DfE-style codes
    500-699, which DfE does not use, named after its main postcode area's post town)."""
    known = {(la.cp_column, la.cp_code) for la in LOCAL_AUTHORITIES}
    counts: Counter[tuple[str, str]] = Counter()
    sums: dict[tuple[str, str], list[float]] = {}
    areas: dict[tuple[str, str], Counter[str]] = {}
    for path in sorted(source.glob("*.csv.gz")):
        with gzip.open(path, "rb") as fh:
            for raw in fh:
                fields = raw.decode("ascii").rstrip("\r\n").split(",")
                if fields[1] != "10":
                    continue
                county, district = fields[7].strip('"'), fields[8].strip('"')
                if ("district", district) in known:
                    key = ("district", district)
                elif county.startswith("E10"):
                    key = ("county", county)
                elif district.startswith(("E06", "E08", "E09")):
                    key = ("district", district)
                else:
                    continue  # Wales, Scotland, or an unknown code
                counts[key] += 1
                total = sums.setdefault(key, [0.0, 0.0])
                total[0] += int(fields[2])
                total[1] += int(fields[3])
                areas.setdefault(key, Counter())[postcode_area(fields[0].strip('"'))] += 1
    used_names = {la.name for la in LOCAL_AUTHORITIES}
    result: list[LocalAuthority] = []
    for la in LOCAL_AUTHORITIES:
        n = counts[(la.cp_column, la.cp_code)]
        result.append(dataclasses.replace(la, weight=0 if la.code == "213" else max(1, n)))
    next_code = 500
    for key in sorted(counts):
        if key in known or counts[key] < 50:
            continue
        column, code = key
        area = areas[key].most_common(1)[0][0]
        town = AREA_TOWNS.get(area, area.upper())
        name = town
        for suffix in (*NAME_SUFFIXES, *(str(i) for i in range(2, 100))):
            if name not in used_names:
                break
            name = f"{town} {suffix}"
        used_names.add(name)
        e, n = (v / counts[key] for v in sums[key])
        gor = approximate_region(e, n, code.startswith("E09"))
        urban = {"E08": "conurbation", "E09": "conurbation", "E06": "city"}.get(code[:3], "shire")
        ce, rc = REGION_DIOCESES[gor]
        result.append(
            LocalAuthority(
                str(next_code),
                name,
                code,
                column,
                code,
                gor,
                counts[key],
                town,
                name if column == "county" else "",
                "london" if gor == "H" else "other",
                ce,
                rc,
                urban,
                0.05 if column == "county" else 0.0,
            )
        )
        next_code += 1
    return tuple(result)
