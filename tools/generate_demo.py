"""Generate the bundled SYNTHETIC demo dataset, in the publishers' real file formats.

Every school in the output is invented. Only two things are real:

* the local authorities (DfE 3-digit codes, names and GSS codes as DfE publishes them), and
* the postcodes and their coordinates, taken from OS Code-Point Open; the Code-Point rows
  that the demo needs are copied byte for byte into ``codepoint_demo/``.

The output is byte-for-byte reproducible: one seed, no clock, no iteration over sets or
hash-ordered containers, gzip with ``mtime=0`` and no file name in the header.

Run from the project root::

    .venv/bin/python tools/generate_demo.py \\
        --codepoint /work/shared/data/codepoint_open \\
        --out src/schooldata/adapters/sample/data

For benchmarks, ``--full-scale`` writes only a national-size GIAS file instead (about 65,000
establishments, 27,000 open, in every English upper-tier authority of Code-Point Open) as
``<out>/edubasealldataYYYYMMDD.csv``; ``make bench`` caches it under ``bench/.cache``. The
default output above does not change.

Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import datetime as dt
import gzip
import hashlib
import io
import json
import math
import random
import re
import sys
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

SEED = 20261122
EXTRACT_DATE = dt.date(2026, 11, 1)
LABEL = "SYNTHETIC DEMO DATA — not real schools"
OGL = "Open Government Licence v3.0"
GIAS_CENSUS_DATE = "16-01-2025"

N_OPEN = 5000
N_PROPOSED_TO_CLOSE = 200
N_CLOSED_FOR_ACADEMY = 250  # predecessors of open academy converters
N_CLOSED_OTHER = 350
N_PROPOSED_TO_OPEN = 100
N_WESTMINSTER_OPEN = 52  # all within 2 miles of SW1A 1AA, for proximity demos
WESTMINSTER_RADIUS_M = 3150.0  # 2 miles is 3219 m; leave room for the jitter
SW1A_1AA = (529090, 179645)

# Outward codes copied whole into codepoint_demo/, so famous postcodes and outward-code
# centroids resolve even where no demo school sits.
# fmt: off
FULL_OUTWARD_CODES = (
    "SW1A", "SW1P", "WC2N", "EC1A", "B1", "B2", "M1", "LS1", "L1", "BS1", "S1", "NE1", "CB2",
    "OX1", "EH1", "CF10",
)
# fmt: on
MAX_CODEPOINT_ROWS = 250_000
# URN ranges: (proposed to open), (academies and free schools), (everything else).
URN_RANGES = ((152000, 154999), (136000, 151999), (100000, 135999))

# ---------------------------------------------------------------------------------------
# Reference tables
# ---------------------------------------------------------------------------------------

# fmt: off
GOR_NAMES = {
    "A": "North East", "B": "North West", "D": "Yorkshire and the Humber", "E": "East Midlands",
    "F": "West Midlands", "G": "East of England", "H": "London", "J": "South East",
    "K": "South West",
}
# fmt: on

# Ofcom reserves these ranges for drama: they are never allocated, so a synthetic school
# can never show a real person's number. Value: (prefix, digits to append).
# fmt: off
PHONE_RANGES = {
    "london": ("02079460", 3), "leeds": ("01134960", 3), "sheffield": ("01144960", 3),
    "nottingham": ("01154960", 3), "leicester": ("01164960", 3), "bristol": ("01174960", 3),
    "reading": ("01184960", 3), "birmingham": ("01214960", 3), "liverpool": ("01514960", 3),
    "manchester": ("01614960", 3), "tyneside": ("01914980", 3), "other": ("01632960", 3),
}
# fmt: on

# fmt: off
URBAN_RURAL = {
    "A1": "(England/Wales) Urban major conurbation",
    "B1": "(England/Wales) Urban minor conurbation", "C1": "(England/Wales) Urban city and town",
    "D1": "(England/Wales) Rural town and fringe", "E1": "(England/Wales) Rural village",
    "F1": "(England/Wales) Rural hamlet and isolated dwellings",
}
# fmt: on
# fmt: off
URBAN_PROFILES: dict[str, list[tuple[str, int]]] = {
    "conurbation": [("A1", 100)], "minor": [("B1", 90), ("C1", 10)],
    "city": [("C1", 95), ("D1", 5)], "shire": [("C1", 55), ("D1", 20), ("E1", 19), ("F1", 6)],
}
# fmt: on

# Church of England diocese codes follow the GIAS pattern (CE + number). CE15 Exeter,
# CE23 London and CE34 Salisbury are seen in real GIAS rows; the other numbers continue
# the same alphabetical numbering and are illustrative.
# fmt: off
CE_DIOCESES = {
    "Birmingham": "CE02", "Blackburn": "CE03", "Bristol": "CE05", "Canterbury": "CE06",
    "Chester": "CE09", "Chichester": "CE10", "Coventry": "CE11", "Derby": "CE12",
    "Durham": "CE13", "Ely": "CE14", "Exeter": "CE15", "Guildford": "CE17", "Leicester": "CE19",
    "Lichfield": "CE20", "Liverpool": "CE22", "London": "CE23", "Manchester": "CE24",
    "Newcastle": "CE25", "Oxford": "CE27", "Portsmouth": "CE29", "Leeds": "CE30",
    "Rochester": "CE31", "St Albans": "CE32", "Sheffield": "CE35", "Southwark": "CE37",
    "Southwell and Nottingham": "CE38", "Truro": "CE39", "Winchester": "CE41", "York": "CE43",
}
# fmt: on
# fmt: off
RC_DIOCESES = {
    "Arundel and Brighton": "RC01", "Birmingham": "RC02", "Clifton": "RC05",
    "East Anglia": "RC06", "Hallam": "RC07", "Hexham and Newcastle": "RC08", "Lancaster": "RC09",
    "Leeds": "RC10", "Liverpool": "RC11", "Middlesbrough": "RC12", "Northampton": "RC14",
    "Nottingham": "RC15", "Plymouth": "RC16", "Portsmouth": "RC17", "Salford": "RC18",
    "Shrewsbury": "RC19", "Southwark": "RC20", "Westminster": "RC21",
}
# fmt: on
RC_ARCHDIOCESES = ("Birmingham", "Liverpool", "Southwark", "Westminster")


@dataclass(frozen=True)
class LocalAuthority:
    """A real English local authority and where its postcodes are in Code-Point Open."""

    code: str  # DfE 3-digit LA code
    name: str  # LA name exactly as DfE publishes it
    gss: str  # GSS code as DfE publishes it (new_la_code, GSSLACode)
    cp_column: str  # "district" or "county": which Code-Point column identifies the LA
    cp_code: str  # the GSS code found in that Code-Point column
    gor: str  # government office region letter
    weight: int  # relative number of schools
    town: str  # default post town ("" = use the district's town)
    county: str  # postal county for "County (name)"
    phone: str  # key of PHONE_RANGES
    ce: str  # Church of England diocese
    rc: str  # Roman Catholic diocese
    urban: str  # key of URBAN_PROFILES
    selective_share: float = 0.0  # share of state secondaries that are grammar schools


# Each cp_code was checked against Code-Point Open (October 2025): e.g. SW1A 1AA carries
# E09000033, B1 1BB E08000025, S1 1AA E08000039 (Sheffield's current code; DfE still
# publishes E08000019), CB2 1TN county E10000003, OX1 1DP county E10000025, and the
# outward codes carrying each code are the expected ones (see the report in README.md).
# fmt: off
LOCAL_AUTHORITIES: tuple[LocalAuthority, ...] = (
    LocalAuthority("213", "Westminster", "E09000033", "district", "E09000033", "H", 0, "London",
                   "", "london", "London", "Westminster", "conurbation"),
    LocalAuthority("202", "Camden", "E09000007", "district", "E09000007", "H", 60, "London", "",
                   "london", "London", "Westminster", "conurbation"),
    LocalAuthority("206", "Islington", "E09000019", "district", "E09000019", "H", 60, "London",
                   "", "london", "London", "Westminster", "conurbation"),
    LocalAuthority("204", "Hackney", "E09000012", "district", "E09000012", "H", 70, "London", "",
                   "london", "London", "Westminster", "conurbation"),
    LocalAuthority("211", "Tower Hamlets", "E09000030", "district", "E09000030", "H", 95,
                   "London", "", "london", "London", "Westminster", "conurbation"),
    LocalAuthority("210", "Southwark", "E09000028", "district", "E09000028", "H", 100, "London",
                   "", "london", "Southwark", "Southwark", "conurbation"),
    LocalAuthority("208", "Lambeth", "E09000022", "district", "E09000022", "H", 85, "London", "",
                   "london", "Southwark", "Southwark", "conurbation"),
    LocalAuthority("212", "Wandsworth", "E09000032", "district", "E09000032", "H", 85, "London",
                   "", "london", "Southwark", "Southwark", "conurbation"),
    LocalAuthority("207", "Kensington and Chelsea", "E09000020", "district", "E09000020", "H", 40,
                   "London", "", "london", "London", "Westminster", "conurbation"),
    LocalAuthority("306", "Croydon", "E09000008", "district", "E09000008", "H", 120, "Croydon",
                   "", "london", "Southwark", "Southwark", "conurbation"),
    LocalAuthority("302", "Barnet", "E09000003", "district", "E09000003", "H", 130, "London", "",
                   "london", "London", "Westminster", "conurbation"),
    LocalAuthority("307", "Ealing", "E09000009", "district", "E09000009", "H", 95, "London", "",
                   "london", "London", "Westminster", "conurbation"),
    LocalAuthority("330", "Birmingham", "E08000025", "district", "E08000025", "F", 420,
                   "Birmingham", "", "birmingham", "Birmingham", "Birmingham", "conurbation",
                   0.10),
    LocalAuthority("331", "Coventry", "E08000026", "district", "E08000026", "F", 110, "Coventry",
                   "", "other", "Coventry", "Birmingham", "conurbation"),
    LocalAuthority("336", "Wolverhampton", "E08000031", "district", "E08000031", "F", 100,
                   "Wolverhampton", "", "other", "Lichfield", "Birmingham", "conurbation"),
    LocalAuthority("352", "Manchester", "E08000003", "district", "E08000003", "B", 200,
                   "Manchester", "", "manchester", "Manchester", "Salford", "conurbation"),
    LocalAuthority("355", "Salford", "E08000006", "district", "E08000006", "B", 90, "Salford", "",
                   "manchester", "Manchester", "Salford", "conurbation"),
    LocalAuthority("341", "Liverpool", "E08000012", "district", "E08000012", "B", 160,
                   "Liverpool", "", "liverpool", "Liverpool", "Liverpool", "conurbation"),
    LocalAuthority("344", "Wirral", "E08000015", "district", "E08000015", "B", 110, "Wirral", "",
                   "liverpool", "Chester", "Shrewsbury", "conurbation", 0.15),
    LocalAuthority("383", "Leeds", "E08000035", "district", "E08000035", "D", 270, "Leeds", "",
                   "leeds", "Leeds", "Leeds", "conurbation"),
    LocalAuthority("380", "Bradford", "E08000032", "district", "E08000032", "D", 200, "Bradford",
                   "", "other", "Leeds", "Leeds", "conurbation"),
    LocalAuthority("373", "Sheffield", "E08000019", "district", "E08000039", "D", 170,
                   "Sheffield", "", "sheffield", "Sheffield", "Hallam", "minor"),
    LocalAuthority("391", "Newcastle upon Tyne", "E08000021", "district", "E08000021", "A", 90,
                   "Newcastle upon Tyne", "", "tyneside", "Newcastle", "Hexham and Newcastle",
                   "conurbation"),
    LocalAuthority("394", "Sunderland", "E08000024", "district", "E08000024", "A", 100,
                   "Sunderland", "", "tyneside", "Durham", "Hexham and Newcastle", "conurbation"),
    LocalAuthority("801", "Bristol, City of", "E06000023", "district", "E06000023", "K", 150,
                   "Bristol", "", "bristol", "Bristol", "Clifton", "city"),
    LocalAuthority("908", "Cornwall", "E06000052", "district", "E06000052", "K", 270, "Truro",
                   "Cornwall", "other", "Truro", "Plymouth", "shire"),
    LocalAuthority("879", "Plymouth", "E06000026", "district", "E06000026", "K", 95, "Plymouth",
                   "", "other", "Exeter", "Plymouth", "city", 0.10),
    LocalAuthority("856", "Leicester", "E06000016", "district", "E06000016", "E", 110,
                   "Leicester", "", "leicester", "Leicester", "Nottingham", "city"),
    LocalAuthority("892", "Nottingham", "E06000018", "district", "E06000018", "E", 110,
                   "Nottingham", "", "nottingham", "Southwell and Nottingham", "Nottingham",
                   "minor"),
    LocalAuthority("831", "Derby", "E06000015", "district", "E06000015", "E", 95, "Derby", "",
                   "other", "Derby", "Nottingham", "city"),
    LocalAuthority("816", "York", "E06000014", "district", "E06000014", "D", 65, "York", "",
                   "other", "York", "Middlesbrough", "city"),
    LocalAuthority("846", "Brighton and Hove", "E06000043", "district", "E06000043", "J", 75,
                   "Brighton", "", "other", "Chichester", "Arundel and Brighton", "city"),
    LocalAuthority("852", "Southampton", "E06000045", "district", "E06000045", "J", 75,
                   "Southampton", "", "other", "Winchester", "Portsmouth", "city"),
    LocalAuthority("851", "Portsmouth", "E06000044", "district", "E06000044", "J", 65,
                   "Portsmouth", "", "other", "Portsmouth", "Portsmouth", "city"),
    LocalAuthority("826", "Milton Keynes", "E06000042", "district", "E06000042", "J", 110,
                   "Milton Keynes", "", "other", "Oxford", "Northampton", "city"),
    LocalAuthority("870", "Reading", "E06000038", "district", "E06000038", "J", 50, "Reading", "",
                   "reading", "Oxford", "Portsmouth", "city", 0.20),
    LocalAuthority("886", "Kent", "E10000016", "county", "E10000016", "J", 600, "", "Kent",
                   "other", "Canterbury", "Southwark", "shire", 0.30),
    LocalAuthority("888", "Lancashire", "E10000017", "county", "E10000017", "B", 600, "",
                   "Lancashire", "other", "Blackburn", "Lancaster", "shire", 0.05),
    LocalAuthority("936", "Surrey", "E10000030", "county", "E10000030", "J", 400, "", "Surrey",
                   "other", "Guildford", "Arundel and Brighton", "shire"),
    LocalAuthority("919", "Hertfordshire", "E10000015", "county", "E10000015", "G", 530, "",
                   "Hertfordshire", "other", "St Albans", "Westminster", "shire"),
    LocalAuthority("931", "Oxfordshire", "E10000025", "county", "E10000025", "J", 300, "",
                   "Oxfordshire", "other", "Oxford", "Portsmouth", "shire"),
    LocalAuthority("873", "Cambridgeshire", "E10000003", "county", "E10000003", "G", 260, "",
                   "Cambridgeshire", "other", "Ely", "East Anglia", "shire"),
)
# fmt: on

# Districts inside the county LAs above: GSS code -> (district name, main post town).
# Each code was checked against the outward codes that carry it in Code-Point Open.
# fmt: off
COUNTY_DISTRICTS = {
    "E07000105": ("Ashford", "Ashford"), "E07000106": ("Canterbury", "Canterbury"),
    "E07000107": ("Dartford", "Dartford"), "E07000108": ("Dover", "Dover"),
    "E07000109": ("Gravesham", "Gravesend"), "E07000110": ("Maidstone", "Maidstone"),
    "E07000111": ("Sevenoaks", "Sevenoaks"), "E07000112": ("Folkestone and Hythe", "Folkestone"),
    "E07000113": ("Swale", "Sittingbourne"), "E07000114": ("Thanet", "Margate"),
    "E07000115": ("Tonbridge and Malling", "Tonbridge"),
    "E07000116": ("Tunbridge Wells", "Tunbridge Wells"), "E07000117": ("Burnley", "Burnley"),
    "E07000118": ("Chorley", "Chorley"), "E07000119": ("Fylde", "Lytham St. Annes"),
    "E07000120": ("Hyndburn", "Accrington"), "E07000121": ("Lancaster", "Lancaster"),
    "E07000122": ("Pendle", "Nelson"), "E07000123": ("Preston", "Preston"),
    "E07000124": ("Ribble Valley", "Clitheroe"), "E07000125": ("Rossendale", "Rossendale"),
    "E07000126": ("South Ribble", "Preston"), "E07000127": ("West Lancashire", "Ormskirk"),
    "E07000128": ("Wyre", "Poulton-le-Fylde"), "E07000207": ("Elmbridge", "Walton-on-Thames"),
    "E07000208": ("Epsom and Ewell", "Epsom"), "E07000209": ("Guildford", "Guildford"),
    "E07000210": ("Mole Valley", "Dorking"), "E07000211": ("Reigate and Banstead", "Redhill"),
    "E07000212": ("Runnymede", "Addlestone"), "E07000213": ("Spelthorne", "Staines-upon-Thames"),
    "E07000214": ("Surrey Heath", "Camberley"), "E07000215": ("Tandridge", "Caterham"),
    "E07000216": ("Waverley", "Farnham"), "E07000217": ("Woking", "Woking"),
    "E07000095": ("Broxbourne", "Cheshunt"), "E07000096": ("Dacorum", "Hemel Hempstead"),
    "E07000098": ("Hertsmere", "Borehamwood"), "E07000099": ("North Hertfordshire", "Hitchin"),
    "E07000102": ("Three Rivers", "Rickmansworth"), "E07000103": ("Watford", "Watford"),
    "E07000240": ("St Albans", "St. Albans"), "E07000241": ("Welwyn Hatfield", "Hatfield"),
    "E07000242": ("East Hertfordshire", "Hertford"), "E07000243": ("Stevenage", "Stevenage"),
    "E07000177": ("Cherwell", "Banbury"), "E07000178": ("Oxford", "Oxford"),
    "E07000179": ("South Oxfordshire", "Wallingford"),
    "E07000180": ("Vale of White Horse", "Abingdon"), "E07000181": ("West Oxfordshire", "Witney"),
    "E07000008": ("Cambridge", "Cambridge"), "E07000009": ("East Cambridgeshire", "Ely"),
    "E07000010": ("Fenland", "March"), "E07000011": ("Huntingdonshire", "Huntingdon"),
    "E07000012": ("South Cambridgeshire", "Cambridge"),
}
# fmt: on

# Post towns for outward codes where the LA's default town would be wrong.
# fmt: off
OUTWARD_TOWNS = {
    "TR1": "Truro", "TR2": "Truro", "TR3": "Truro", "TR4": "Truro", "TR7": "Newquay",
    "TR8": "Newquay", "TR9": "St. Columb", "TR10": "Penryn", "TR11": "Falmouth",
    "TR12": "Helston", "TR13": "Helston", "TR14": "Camborne", "TR15": "Redruth",
    "TR16": "Redruth", "TR18": "Penzance", "TR19": "Penzance", "TR20": "Penzance",
    "TR5": "St. Agnes", "TR6": "Perranporth", "TR17": "Marazion", "PL10": "Torpoint",
    "PL18": "Gunnislake", "PL29": "Port Isaac", "PL33": "Delabole", "PL34": "Tintagel",
    "PL35": "Boscastle", "EX22": "Holsworthy", "TR26": "St. Ives", "TR27": "Hayle",
    "PL11": "Torpoint", "PL12": "Saltash", "PL13": "Looe", "PL14": "Liskeard",
    "PL15": "Launceston", "PL17": "Callington", "PL22": "Lostwithiel", "PL23": "Fowey",
    "PL24": "Par", "PL25": "St. Austell", "PL26": "St. Austell", "PL27": "Wadebridge",
    "PL28": "Padstow", "PL30": "Bodmin", "PL31": "Bodmin", "PL32": "Camelford", "EX23": "Bude",
    "LS29": "Ilkley", "BD20": "Keighley", "BD21": "Keighley", "BD22": "Keighley",
    "BD16": "Bingley", "LS28": "Pudsey", "CH41": "Birkenhead", "CH42": "Birkenhead",
    "CH43": "Prenton", "CH44": "Wallasey", "CH45": "Wallasey", "M27": "Manchester",
    "M28": "Manchester", "M30": "Manchester", "M44": "Manchester", "DH4": "Houghton le Spring",
    "DH5": "Houghton le Spring", "NE37": "Washington", "NE38": "Washington",
    "CR2": "South Croydon", "CR7": "Thornton Heath", "CR8": "Purley", "CR5": "Coulsdon",
    "SE25": "London", "SE19": "London", "SW16": "London", "EN5": "Barnet", "HA8": "Edgware",
    "UB1": "Southall", "UB2": "Southall", "UB5": "Northolt", "UB6": "Greenford",
}
# fmt: on

# fmt: off
PHASES = {
    0: "Not applicable", 1: "Nursery", 2: "Primary", 3: "Middle deemed primary", 4: "Secondary",
    5: "Middle deemed secondary", 6: "16 plus", 7: "All-through",
}
# fmt: on

# fmt: off
GROUP_NAMES = {
    1: "Colleges", 3: "Independent schools", 4: "Local authority maintained schools",
    5: "Special schools", 10: "Academies", 11: "Free Schools",
}
# fmt: on


@dataclass(frozen=True)
class EstablishmentType:
    """A GIAS TypeOfEstablishment with the labels other publishers use for it."""

    code: int
    name: str
    group: int  # EstablishmentTypeGroup (code)
    ks4_group: str  # establishment_type_group in DfE performance tables
    ofsted: str  # "Type of education" in Ofsted MI ("" = not inspected under the schools MI)
    kind: str  # maintained | academy | free | independent | special_indep | fe
    special: bool = False
    alternative: bool = False  # pupil referral unit / alternative provision


# fmt: off
TYPES = {t.name: t for t in (
    EstablishmentType(1, "Community school", 4, "Community school", "Community", "maintained"),
    EstablishmentType(2, "Voluntary aided school", 4, "Voluntary aided school", "Voluntary Aided",
                      "maintained"),
    EstablishmentType(3, "Voluntary controlled school", 4, "Voluntary controlled school",
                      "Voluntary Controlled", "maintained"),
    EstablishmentType(5, "Foundation school", 4, "Foundation school", "Foundation", "maintained"),
    EstablishmentType(7, "Community special school", 5, "Community special school",
                      "Community Special", "maintained", special=True),
    EstablishmentType(8, "Non-maintained special school", 5, "Non-maintained special schools",
                      "Non-Maintained Special", "special_indep", special=True),
    EstablishmentType(10, "Other independent special school", 5, "Independent special schools",
                      "", "independent", special=True),
    EstablishmentType(11, "Other independent school", 3, "Independent schools", "",
                      "independent"),
    EstablishmentType(12, "Foundation special school", 5, "Foundation special school",
                      "Foundation Special", "maintained", special=True),
    EstablishmentType(14, "Pupil referral unit", 4, "Pupil referral unit", "Pupil Referral Unit",
                      "maintained", alternative=True),
    EstablishmentType(15, "Local authority nursery school", 4, "Local authority nursery school",
                      "LA Nursery School", "maintained"),
    EstablishmentType(18, "Further education", 1, "Further education", "", "fe"),
    EstablishmentType(28, "Academy sponsor led", 10, "Sponsored academies", "Academy Sponsor Led",
                      "academy"),
    EstablishmentType(33, "Academy special sponsor led", 10,
                      "Sponsored academies - special school", "Academy Special Sponsor Led",
                      "academy", special=True),
    EstablishmentType(34, "Academy converter", 10, "Converter academies", "Academy Converter",
                      "academy"),
    EstablishmentType(35, "Free schools", 11, "Free schools", "Free School", "free"),
    EstablishmentType(36, "Free schools special", 11, "Free schools - special school",
                      "Free School Special", "free", special=True),
    EstablishmentType(38, "Free schools alternative provision", 11,
                      "Free schools - alternative provision", "Free School Alternative Provision",
                      "free", alternative=True),
    EstablishmentType(39, "Free schools 16 to 19", 11, "Free schools 16 to 19",
                      "Free School 16-19", "free"),
    EstablishmentType(40, "University technical college", 11,
                      "University technical colleges (UTCs)", "University Technical College",
                      "free"),
    EstablishmentType(41, "Studio schools", 11, "Studio schools", "Studio School", "free"),
    EstablishmentType(42, "Academy alternative provision converter", 10,
                      "Converter academies - alternative provision",
                      "Academy Alternative Provision Converter", "academy", alternative=True),
    EstablishmentType(44, "Academy special converter", 10, "Converter academies - special school",
                      "Academy Special Converter", "academy", special=True),
    EstablishmentType(45, "Academy 16-19 converter", 10, "Academy 16-19 converter",
                      "Academy 16-19 Converter", "academy"),
    )
}
# fmt: on

STATUS_OPEN = (1, "Open")
STATUS_CLOSED = (2, "Closed")
STATUS_PROPOSED_TO_CLOSE = (3, "Open, but proposed to close")
STATUS_PROPOSED_TO_OPEN = (4, "Proposed to open")

# ReasonEstablishmentOpened/Closed: "00" Not applicable, "10" Academy Converter,
# "02" Closure and "06" For Academy are seen in real GIAS rows; the rest are illustrative.
# fmt: off
REASON_OPENED = {
    "na": ("00", "Not applicable"), "converter": ("10", "Academy Converter"),
    "sponsor": ("11", "Academy Sponsor Led"), "free": ("12", "Academy Free School"),
    "new": ("03", "New Provision"),
}
# fmt: on
# fmt: off
REASON_CLOSED = {
    "na": ("00", "Not applicable"), "closure": ("02", "Closure"),
    "academy": ("06", "For Academy"),
}
# fmt: on

# ---------------------------------------------------------------------------------------
# Name material (all invented)
# ---------------------------------------------------------------------------------------

# fmt: off
STEMS = (
    "Abbey", "Acorn", "Alder", "Applegarth", "Ashfield", "Ashgrove", "Aspen", "Barnfield",
    "Beacon", "Beech Hill", "Beechwood", "Birchfield", "Blackthorn", "Bluebell", "Bramley",
    "Briarwood", "Bridgewater", "Broadfield", "Brookfield", "Brookside", "Burnside",
    "Castle View", "Cedar", "Chantry", "Chestnut", "Church Hill", "Claremont", "Cliffe",
    "Clover Hill", "Coppice", "Cornfield", "Cranbrook", "Crossways", "Dale", "Deanery", "Downs",
    "Eastbrook", "Eastfield", "Elmhurst", "Elm Tree", "Fairfield", "Fairway", "Fernhill",
    "Fieldway", "Forest", "Foxhill", "Gatehouse", "Glebe", "Grange", "Greenacres", "Greenfield",
    "Greenway", "Hall Park", "Hawthorn", "Hazelwood", "Heathfield", "Highfield", "Hillcrest",
    "Hillside", "Hollybank", "Hollyfield", "Holmwood", "Kingfisher", "Kingsmead", "Kingswood",
    "Lakeside", "Larkrise", "Laurel", "Lime Tree", "Linden", "Longmeadow", "Manor", "Maple",
    "Marsh Lane", "Meadowbank", "Meadowside", "Middlefield", "Millbrook", "Moorside", "Mossgate",
    "Newbridge", "Northfield", "Northgate", "Oakfield", "Oaklands", "Oakwood", "Orchard",
    "Parkfield", "Parkside", "Pinewood", "Primrose", "Priory", "Queensway", "Ravenscroft",
    "Redwood", "Ridgeway", "Riverside", "Rosehill", "Rowan", "Sandfield", "Silverdale",
    "Southfield", "Springfield", "Spring Vale", "Stanley", "Stoneleigh", "Summerhill",
    "Sunnyside", "Sycamore", "Thornhill", "Townfield", "Valley", "Waterside", "Wellfield",
    "Westbrook", "Westfield", "Whitehall", "Willowbank", "Windmill", "Woodlands", "Woodside",
    "Yew Tree", "Thornton-le-Moor", "Sutton-on-the-Hill", "Ashby-cum-Fenby", "Walton-on-the-Hill",
    "Barton-le-Clay", "Upton-upon-Brook", "Bishop's Hill", "King's Meadow", "Queen's Park",
    "Lady's Walk", "Cross-in-Hand", "Marsh-End",
)
# fmt: on
# fmt: off
CE_SAINTS = (
    "St Mary's", "St John's", "St Peter's", "St Paul's", "St Michael's", "St Andrew's",
    "St George's", "St James'", "St Luke's", "St Mark's", "St Matthew's", "St Stephen's",
    "St Barnabas", "All Saints", "Holy Trinity", "Christ Church", "St Nicholas", "St Margaret's",
    "St Martin's", "St Mary and St John", "St Mary Magdalene", "St. John's", "St Thomas'",
    "Emmanuel", "St Mary & St Giles",
)
# fmt: on
# fmt: off
RC_SAINTS = (
    "St Mary's", "St Joseph's", "St Anne's", "St Teresa's", "St Patrick's", "St Bernadette's",
    "St Thomas More", "St Augustine's", "Our Lady of Lourdes", "Our Lady of Grace",
    "Sacred Heart", "Corpus Christi", "Holy Family", "St Anthony's", "St Francis of Assisi",
    "English Martyrs", "St Vincent de Paul", "St Edmund Campion", "Ss Peter & Paul", "Holy Cross",
    "St Monica's", "St Cuthbert's", "St Wilfrid's",
)
# fmt: on
# fmt: off
TRUST_WORDS = (
    "Oakfield Learning Trust", "Northern Lights Multi Academy Trust",
    "Riverside Education Partnership", "The Compass Schools Trust", "Keystone Learning Trust",
    "Bright Horizons Academy Trust", "Evergreen Schools Partnership", "The Lantern Trust",
    "Meridian Education Trust", "Pathfinder Academies Trust", "Summit Learning Partnership",
    "Three Rivers Education Trust", "Harbour Learning Trust", "Cornerstone Academy Trust",
    "The Kite Academy Trust", "Silver Birch Learning Trust", "Waypoint Multi Academy Trust",
    "Skylark Schools Trust", "Heartwood Education Trust", "The Beacon Partnership Trust",
    "Open Doors Learning Trust", "Fellowship Schools Trust", "Wildflower Academy Trust",
    "Kingfisher Learning Partnership", "Unity & Excellence Academies Trust",
    "St Bede's Catholic Academy Trust", "Diocesan Schools Trust", "The Arden Schools Trust",
    "Harmony Education Trust", "Horizon Multi Academy Trust", "Endeavour Learning Trust",
    "Tideway Academies", "Northstar Learning Trust", "Millstone Education Trust",
    "Greenshoots Schools Trust", "Brightwater Academy Trust", "The Quadrant Learning Trust",
    "Anchor Academies Trust", "Highland Oak Trust", "Clear Sky Education Trust",
)
# fmt: on
# fmt: off
FEMALE_NAMES = (
    "Amelia", "Anna", "Bethany", "Catherine", "Chloe", "Deborah", "Eleanor", "Emma", "Fiona",
    "Grace", "Hannah", "Helen", "Jane", "Joanne", "Karen", "Katie", "Laura", "Louise", "Michelle",
    "Natalie", "Nicola", "Priya", "Rachel", "Ruth", "Sarah", "Sophie", "Susan", "Victoria", "Zoe",
    "Alex", "Sam",
)
# fmt: on
# fmt: off
MALE_NAMES = (
    "Amir", "Ben", "Carl", "Daniel", "David", "Faisal", "Gareth", "Ian", "Imran", "Jack", "James",
    "Jonathan", "Liam", "Mark", "Martin", "Mohammed", "Neil", "Oliver", "Paul", "Richard",
    "Simon", "Stephen", "Tom", "Alex", "Sam",
)
# fmt: on
# fmt: off
LAST_NAMES = (
    "Ahmed", "Allen", "Bailey", "Baker", "Begum", "Bell", "Brown", "Carter", "Chen", "Clarke",
    "Cooper", "Davies", "Edwards", "Evans", "Fletcher", "Green", "Hall", "Harris", "Hughes",
    "Hussain", "Jackson", "James", "Johnson", "Jones", "Khan", "King", "Lewis", "Martin",
    "Mitchell", "Moore", "Morgan", "Murphy", "Nowak", "O'Brien", "O'Connor", "Parker", "Patel",
    "Phillips", "Roberts", "Robinson", "Scott", "Shah", "Singh", "Smith", "Taylor", "Thomas",
    "Thompson", "Turner", "Walker", "Ward", "Watson", "White", "Williams", "Wilson", "Wood",
    "Wright", "Young",
)
# fmt: on
# fmt: off
STREET_SUFFIXES = (
    "Road", "Lane", "Avenue", "Street", "Close", "Way", "Drive", "Grove", "Crescent", "Gardens",
    "Hill", "Walk",
)
# fmt: on
# fmt: off
WARD_NAMES = (
    "Abbey", "Bridge", "Castle", "Central", "Church", "Cliftonville", "Coldharbour", "Eastgate",
    "Fairfield", "Greenhill", "Harbour", "Heath", "Highfield", "Kingsway", "Market", "Meadows",
    "Mill Hill", "Moor", "Northgate", "Old Town", "Park", "Priory", "Riverside", "St James's",
    "St Mary's", "Southgate", "Station", "Town", "Valley", "Westgate", "Woodhouse",
)
# fmt: on
# fmt: off
CONSTITUENCY_SUFFIXES = (
    "Central", "North", "South", "East", "West",
)
# fmt: on
# fmt: off
SEN_NEEDS = (
    "ASD - Autistic Spectrum Disorder", "SLD - Severe Learning Difficulty",
    "MLD - Moderate Learning Difficulty", "PMLD - Profound and Multiple Learning Difficulty",
    "SEMH - Social, Emotional and Mental Health", "SLCN - Speech, language and Communication",
    "SpLD - Specific Learning Difficulty", "HI - Hearing Impairment", "VI - Visual Impairment",
    "PD - Physical Disability",
)
# fmt: on


@dataclass(frozen=True)
class FixedSchool:
    """A row the demo relies on: proximity demos, awkward names, St Mary's in many LAs."""

    la: str
    name: str
    profile: str
    etype: str
    religion: str = ""
    outward: str = ""  # the postcode must be in this outward code


# fmt: off
FIXED_SCHOOLS: tuple[FixedSchool, ...] = (
    FixedSchool("213", "St Mary’s Church of England Primary School", "primary",
                "Voluntary controlled school", "CE"),
    FixedSchool("383", "St Mary’s Church of England Primary School", "primary",
                "Academy converter", "CE"),
    FixedSchool("908", "St Mary's CofE Primary School", "primary", "Voluntary controlled school",
                "CE"),
    FixedSchool("330", "St Mary's Catholic Primary School", "primary", "Voluntary aided school",
                "RC", "B1"),
    FixedSchool("352", "St Mary’s Catholic High School", "secondary", "Voluntary aided school",
                "RC"),
    FixedSchool("886", "St Mary's Catholic Primary School", "primary", "Academy converter", "RC"),
    FixedSchool("202", "St. John's Church of England Primary School", "primary",
                "Voluntary aided school", "CE"),
    FixedSchool("330", "King Edward VI Oakfield Grammar School", "grammar", "Academy converter"),
    FixedSchool("341", "King Edward VI Academy", "secondary", "Academy sponsor led"),
    FixedSchool("213", "Holy Cross & St Luke's Catholic Primary School, Pimlico", "primary",
                "Voluntary aided school", "RC"),
    FixedSchool(
        "212",
        "The Blessed Cardinal Newman Roman Catholic Voluntary Aided Primary "
        "School and Nursery with Enhanced Resource Provision",
        "primary",
        "Voluntary aided school",
        "RC",
    ),
    FixedSchool("213", "Parliament Square Primary Academy", "primary", "Free schools",
                outward="SW1A"),
    FixedSchool("213", "Whitehall Gardens Nursery School", "nursery",
                "Local authority nursery school", outward="SW1A"),
    FixedSchool("330", "Brindley Basin Primary School", "primary", "Community school",
                outward="B1"),
    FixedSchool("330", "Canal Quarter Free School", "secondary", "Free schools", outward="B1"),
    FixedSchool("936", "Walton-on-the-Hill Church of England Primary School", "primary",
                "Voluntary controlled school", "CE"),
    FixedSchool("888", "Thornton-le-Moor Primary School", "primary", "Community school"),
)
# fmt: on


# ---------------------------------------------------------------------------------------
# Code-Point Open
# ---------------------------------------------------------------------------------------


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


def load_codepoint(source: Path) -> CodePoint:
    """Read every Code-Point area file, keeping the postcodes of the demo LAs."""
    la_by_key = {(la.cp_column, la.cp_code): la.code for la in LOCAL_AUTHORITIES}
    by_la: dict[str, list[Postcode]] = {la.code: [] for la in LOCAL_AUTHORITIES}
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
    for la in LOCAL_AUTHORITIES:
        if not by_la[la.code]:
            raise SystemExit(f"no Code-Point postcodes for {la.name} ({la.cp_code})")
    return CodePoint(by_la, outward_counts, area_files)


# ---------------------------------------------------------------------------------------
# Schools
# ---------------------------------------------------------------------------------------


@dataclass
class School:
    """One synthetic establishment; GIAS and every other file are projections of it."""

    urn: int
    la: LocalAuthority
    estab_number: int
    name: str
    etype: EstablishmentType
    phase: int
    low_age: int
    high_age: int
    status: tuple[int, str]
    pc: Postcode
    gender: str = "Mixed"
    religion: str = ""  # "", "CE", "RC"
    selective: bool = False
    open_date: dt.date | None = None
    close_date: dt.date | None = None
    reason_opened: str = "na"
    reason_closed: str = "na"
    capacity: int | None = None
    pupils: int | None = None
    fsm_percent: float | None = None
    trust: tuple[int, str] | None = None
    easting: int | None = None
    northing: int | None = None
    ukprn: int | None = None
    uprn: str = ""
    street: str = ""
    locality: str = ""
    town: str = ""
    county: str = ""
    phone: str = ""

    @property
    def full_address(self) -> str:
        parts = (self.street, self.locality, self.town, self.pc.postcode)
        return ", ".join(p for p in parts if p)

    @property
    def is_open(self) -> bool:
        return self.status in (STATUS_OPEN, STATUS_PROPOSED_TO_CLOSE)

    @property
    def is_state(self) -> bool:
        """State-funded: LA maintained, academies and free schools."""
        return self.etype.kind in ("maintained", "academy", "free")

    @property
    def is_independent(self) -> bool:
        """Independent schools, and non-maintained special schools (charities)."""
        return self.etype.kind in ("independent", "special_indep")

    @property
    def sixth_form(self) -> bool:
        if self.phase == 6:
            return True
        return self.high_age >= 18 and self.low_age <= 14 and not self.etype.alternative

    @property
    def laestab(self) -> str:
        return f"{self.la.code}{self.estab_number:04d}"

    def open_on(self, day: dt.date) -> bool:
        """Was the school open on ``day`` (so it has results for that year)?"""
        if self.status == STATUS_PROPOSED_TO_OPEN:
            return False
        return self.open_date is None or self.open_date <= day


def substream(name: str) -> random.Random:
    """An independent, reproducible random stream per dataset, derived from the seed.

    Seeding with a str is stable across runs and platforms (it is hashed with SHA-512,
    not with the per-process randomised hash()).
    """
    return random.Random(f"{SEED}/{name}")


def stable_pick(options: Sequence[str], key: str) -> str:
    """Pick deterministically from ``options`` by a CRC of ``key`` (same key, same pick)."""
    return options[zlib.crc32(key.encode("utf-8")) % len(options)]


def weighted(rng: random.Random, table: Sequence[tuple[str, float]]) -> str:
    names = [name for name, _ in table]
    weights = [weight for _, weight in table]
    return rng.choices(names, weights=weights)[0]


def apportion(total: int, weights: Sequence[int]) -> list[int]:
    """Split ``total`` in proportion to ``weights`` (largest remainder: exact and stable)."""
    wsum = sum(weights)
    quotas = [total * w / wsum for w in weights]
    counts = [math.floor(q) for q in quotas]
    by_remainder = sorted(range(len(weights)), key=lambda i: (-(quotas[i] - counts[i]), i))
    for i in by_remainder[: total - sum(counts)]:
        counts[i] += 1
    return counts


def random_date(rng: random.Random, start: dt.date, end: dt.date) -> dt.date:
    return start + dt.timedelta(days=rng.randint(0, (end - start).days))


def first_of_month(rng: random.Random, start_year: int, end_year: int) -> dt.date:
    return dt.date(rng.randint(start_year, end_year), rng.randint(1, 12), 1)


def curly(rng: random.Random, name: str) -> str:
    """GIAS holds both apostrophes: keep ASCII mostly, use U+2019 (cp1252 0x92) sometimes."""
    return name.replace("'", "\u2019") if "'" in name and rng.random() < 0.2 else name


# Profile -> weight, (phase, low, high) options, type table.
# fmt: off
PROFILE_WEIGHTS: list[tuple[str, float]] = [
    ("primary", 59.0), ("infant", 4.5), ("junior", 4.0), ("middle_primary", 0.8),
    ("middle_secondary", 0.7), ("secondary", 12.0), ("grammar", 0.0), ("all_through", 1.8),
    ("nursery", 1.5), ("sixteen_plus", 2.2), ("special", 5.5), ("pru", 1.6), ("independent", 5.2),
    ("independent_special", 1.2),
]
# fmt: on
# fmt: off
PRIMARY_TYPES = [
    ("Community school", 30.0), ("Voluntary aided school", 10.0),
    ("Voluntary controlled school", 8.0), ("Foundation school", 3.0), ("Academy converter", 31.0),
    ("Academy sponsor led", 13.0), ("Free schools", 3.0),
]
# fmt: on
# fmt: off
SECONDARY_TYPES = [
    ("Academy converter", 45.0), ("Academy sponsor led", 22.0), ("Free schools", 8.0),
    ("Community school", 9.0), ("Voluntary aided school", 8.0), ("Foundation school", 5.0),
    ("University technical college", 1.5), ("Studio schools", 1.0),
]
# fmt: on
# fmt: off
SPECIAL_TYPES = [
    ("Community special school", 45.0), ("Foundation special school", 6.0),
    ("Academy special converter", 26.0), ("Academy special sponsor led", 8.0),
    ("Free schools special", 12.0), ("Non-maintained special school", 3.0),
]
# fmt: on
# fmt: off
PRU_TYPES = [
    ("Pupil referral unit", 55.0), ("Academy alternative provision converter", 30.0),
    ("Free schools alternative provision", 15.0),
]
# fmt: on
# fmt: off
SIXTEEN_TYPES = [
    ("Further education", 50.0), ("Academy 16-19 converter", 25.0),
    ("Free schools 16 to 19", 25.0),
]
# fmt: on


@dataclass
class Draft:
    """A school's defining choices before identifiers and a place are given."""

    profile: str
    etype: EstablishmentType
    phase: int
    low: int
    high: int
    religion: str
    gender: str
    selective: bool
    name: str = ""


def draft_school(rng: random.Random, la: LocalAuthority, profile: str) -> Draft:
    """Choose type, phase, ages, religion and gender coherently for a profile."""
    religion, gender, selective = "", "Mixed", False
    if profile in ("primary", "infant", "junior", "middle_primary"):
        etype = TYPES[weighted(rng, PRIMARY_TYPES)]
        if profile == "middle_primary":
            phase, low, high = 3, rng.choice((8, 9)), 12
        elif profile == "infant":
            phase, low, high = 2, rng.choice((3, 4, 4)), 7
        elif profile == "junior":
            phase, low, high = 2, 7, 11
        else:
            phase, low, high = 2, rng.choice((3, 3, 4, 4, 4)), 11
        if etype.name == "Voluntary aided school":
            religion = "RC" if rng.random() < 0.45 else "CE"
        elif etype.name == "Voluntary controlled school":
            religion = "CE"
        elif etype.kind == "academy" and rng.random() < 0.25:
            religion = "CE" if rng.random() < 0.7 else "RC"
    elif profile in ("secondary", "grammar", "middle_secondary", "all_through"):
        etype = TYPES[weighted(rng, SECONDARY_TYPES)]
        if profile == "middle_secondary":
            etype = TYPES[rng.choice(("Community school", "Academy converter"))]
            phase, low, high = 5, rng.choice((9, 10)), 13
        elif profile == "all_through":
            etype = TYPES[
                weighted(
                    rng,
                    [
                        ("Academy converter", 40.0),
                        ("Free schools", 35.0),
                        ("Academy sponsor led", 15.0),
                        ("Community school", 10.0),
                    ],
                )
            ]
            phase, low, high = 7, rng.choice((3, 4, 4)), rng.choice((16, 18, 18, 19))
        elif etype.name in ("University technical college", "Studio schools"):
            phase, low, high = 4, 14, 19
        else:
            phase, low, high = 4, 11, rng.choice((16, 16, 18, 18, 18, 19))
        if profile == "grammar" or (
            profile == "secondary"
            and etype.kind in ("maintained", "academy")
            and rng.random() < la.selective_share
        ):
            selective = True
            etype = TYPES[
                rng.choice(
                    (
                        "Academy converter",
                        "Academy converter",
                        "Foundation school",
                        "Voluntary aided school",
                    )
                )
            ]
            high = 18
        if etype.name == "Voluntary aided school":
            religion = "RC" if rng.random() < 0.7 else "CE"
        elif etype.kind == "academy" and rng.random() < 0.15:
            religion = "RC" if rng.random() < 0.6 else "CE"
        roll = rng.random()
        gender = "Girls" if roll < 0.07 else ("Boys" if roll < 0.12 else "Mixed")
        if selective and rng.random() < 0.6:
            gender = rng.choice(("Boys", "Girls"))
    elif profile == "nursery":
        etype, phase, low, high = TYPES["Local authority nursery school"], 1, rng.choice((2, 3)), 5
    elif profile == "sixteen_plus":
        etype = TYPES[weighted(rng, SIXTEEN_TYPES)]
        phase, low = 6, 16
        high = 99 if etype.kind == "fe" else 19
    elif profile == "special":
        etype = TYPES[weighted(rng, SPECIAL_TYPES)]
        phase, low, high = 0, rng.choice((2, 3, 4, 5, 11)), rng.choice((11, 16, 19, 19))
        if low >= high - 3:
            low = 4
    elif profile == "pru":
        etype = TYPES[weighted(rng, PRU_TYPES)]
        phase, low, high = 0, rng.choice((5, 11, 11, 14)), 16
    elif profile == "independent":
        etype, phase = TYPES["Other independent school"], 0
        low, high = rng.choice(
            ((3, 11), (2, 13), (4, 18), (3, 18), (11, 18), (7, 18), (11, 16), (13, 18), (4, 16))
        )
        religion = "CE" if rng.random() < 0.08 else ""
        roll = rng.random()
        gender = "Girls" if roll < 0.14 else ("Boys" if roll < 0.25 else "Mixed")
    elif profile == "independent_special":
        etype, phase = TYPES["Other independent special school"], 0
        low, high = rng.choice(((5, 16), (7, 19), (11, 18), (8, 19), (4, 19)))
    else:  # pragma: no cover - the profile table is closed
        raise ValueError(profile)
    return Draft(profile, etype, phase, low, high, religion, gender, selective)


def school_name(rng: random.Random, la: LocalAuthority, town: str, d: Draft) -> str:
    """An invented but plausible name for the drafted school."""
    stem = rng.choice(STEMS)
    if d.religion == "CE":
        saint = rng.choice(CE_SAINTS) if rng.random() < 0.7 else stem
    elif d.religion == "RC":
        saint = rng.choice(RC_SAINTS)
    else:
        saint = ""
    t = d.etype
    if d.profile in ("primary", "infant", "junior", "middle_primary"):
        if d.profile == "middle_primary":
            return f"{saint or stem} {'CofE ' if d.religion == 'CE' else ''}Middle School"
        kind = {"infant": "Infant", "junior": "Junior"}.get(d.profile, "Primary")
        if d.profile == "infant" and d.low <= 3 and rng.random() < 0.5:
            kind = "Infant and Nursery"
        tail = "Academy" if t.kind == "academy" and rng.random() < 0.45 else "School"
        if d.religion == "CE":
            church = rng.choice(("Church of England", "CofE", "C of E", "CE"))
            return f"{saint} {church} {kind} {tail}"
        if d.religion == "RC":
            faith = rng.choice(("Catholic", "Catholic", "RC", "Roman Catholic"))
            return f"{saint} {faith} {kind} {tail}"
        if t.kind == "free":
            return f"{stem} {rng.choice(('Primary Academy', 'Free School', 'Primary School'))}"
        flavour = rng.choice(("", "", "", "Community ", "" if "Park" in stem else "Park "))
        return f"{stem} {flavour}{kind} {tail}"
    if d.profile in ("secondary", "grammar", "middle_secondary", "all_through"):
        if d.profile == "middle_secondary":
            return f"{stem} Middle School"
        if t.name == "University technical college":
            return f"{town} University Technical College"
        if t.name == "Studio schools":
            return f"{stem} Studio School"
        if d.selective:
            sex = {"Boys": " for Boys", "Girls": " for Girls"}.get(d.gender, "")
            return f"{rng.choice((stem, town))} Grammar School{sex}"
        if d.religion == "RC":
            return f"{saint} Catholic {rng.choice(('High School', 'College', 'School', 'Academy'))}"
        if d.religion == "CE":
            return f"{saint} Church of England {rng.choice(('High School', 'Academy'))}"
        if d.gender == "Girls":
            return f"{stem} School for Girls"
        if d.gender == "Boys":
            return f"{stem} Boys' School"
        if d.profile == "all_through":
            return f"{stem} {rng.choice(('All-Through School', 'Academy', 'School'))}"
        if t.kind in ("academy", "free"):
            return rng.choice(
                (
                    f"{stem} Academy",
                    f"The {stem} Academy",
                    f"{stem} Community Academy",
                    f"{town} {stem} Academy",
                )
            )
        return f"{stem} {rng.choice(('High School', 'School', 'Community College'))}"
    if d.profile == "nursery":
        return f"{stem} {rng.choice(('Nursery School', 'Nursery School', 'Children’s Centre and Nursery School'))}"
    if d.profile == "sixteen_plus":
        if t.kind == "fe":
            return rng.choice(
                (
                    f"{town} College",
                    f"{stem} College",
                    f"{la.name.split(',')[0]} College of Further Education",
                )
            )
        return f"{stem} Sixth Form {rng.choice(('College', 'Centre', 'Academy'))}"
    if d.profile == "special":
        return f"{stem} {rng.choice(('School', 'Special School', 'Academy', 'Centre'))}"
    if d.profile == "pru":
        return rng.choice(
            (
                f"{stem} Pupil Referral Unit",
                f"{stem} Short Stay School",
                f"{stem} Alternative Provision Academy",
                f"The {stem} Centre",
            )
        )
    if d.profile == "independent":
        if d.high <= 13:
            return (
                f"{stem} {rng.choice(('Preparatory School', 'House School', 'Montessori School'))}"
            )
        if d.gender == "Girls":
            return f"{stem} Girls' School"
        return rng.choice(
            (
                f"The {stem} School",
                f"{stem} College",
                f"{stem} Hall School",
                f"{stem} House School",
                f"{stem} Independent School",
            )
        )
    return f"{stem} {rng.choice(('School', 'College', 'Learning Centre'))}"


def district_of(pc: Postcode, la: LocalAuthority) -> tuple[str, str, str]:
    """(district code, district name, post town) of a postcode in this LA."""
    name, town = COUNTY_DISTRICTS.get(pc.district, (la.name, la.town or la.name))
    return pc.district, name, OUTWARD_TOWNS.get(pc.outward, town)


class Builder:
    """Turns drafts into schools: allocates URNs, numbers, postcodes and trusts."""

    def __init__(self, rng: random.Random, codepoint: CodePoint) -> None:
        self.rng = rng
        self.cp = codepoint
        self.used_urns: set[int] = set()  # membership only; never iterated
        self.used_postcodes: set[str] = set()
        self.next_number: dict[tuple[str, int], int] = {}
        self.names_in_la: set[tuple[str, str]] = set()
        self.next_ukprn = 10_090_000
        self.next_uprn = 100_070_000_000
        self.trusts = self._make_trusts()
        # Westminster postcodes within 2 miles of SW1A 1AA, for the proximity demos.
        self.near_pool = [
            p
            for p in codepoint.by_la["213"]
            if math.dist((p.easting, p.northing), SW1A_1AA) <= WESTMINSTER_RADIUS_M
        ]

    def _make_trusts(self) -> dict[str, list[tuple[int, str]]]:
        """Give each region a few invented trusts; academies join one in their region."""
        trusts: dict[str, list[tuple[int, str]]] = {gor: [] for gor in sorted(GOR_NAMES)}
        codes = self.rng.sample(range(2000, 17999), len(TRUST_WORDS))
        for i, (code, name) in enumerate(zip(codes, TRUST_WORDS, strict=True)):
            regions = sorted(GOR_NAMES)
            trusts[regions[i % len(regions)]].append((code, name))
        return trusts

    def urn(self, lo: int, hi: int) -> int:
        while True:
            candidate = self.rng.randint(lo, hi)
            if candidate not in self.used_urns:
                self.used_urns.add(candidate)
                return candidate

    def estab_number(self, la: LocalAuthority, etype: EstablishmentType, phase: int) -> int:
        """DfE-style establishment number: the range says what kind of school it is."""
        if etype.kind == "independent":
            base = 6000
        elif etype.special:
            base = 7000
        elif etype.kind == "fe":
            base = 8000
        elif etype.alternative or phase == 1:
            base = 1000
        elif phase in (4, 5, 6, 7):
            base = 5400 if etype.name == "Foundation school" else 4000
        elif etype.name in ("Voluntary aided school", "Voluntary controlled school"):
            base = 3000
        elif etype.name == "Foundation school":
            base = 5200
        else:
            base = 2000
        key = (la.code, base)
        number = self.next_number.get(key, base) + self.rng.randint(1, 6)
        self.next_number[key] = number
        return number

    def postcode(self, la: LocalAuthority, outward: str = "", near: bool = False) -> Postcode:
        """A random quality-10 postcode of the LA, not yet used by another school."""
        pool = self.cp.by_la[la.code]
        if outward:
            pool = [p for p in pool if p.outward == outward]
        if near:
            pool = self.near_pool
        for _ in range(200):
            pc = self.rng.choice(pool)
            if pc.postcode not in self.used_postcodes:
                self.used_postcodes.add(pc.postcode)
                return pc
        raise SystemExit(f"ran out of postcodes for {la.name} {outward}")

    def unique_name(self, la: LocalAuthority, town: str, draft: Draft) -> str:
        for _ in range(30):
            name = curly(self.rng, school_name(self.rng, la, town, draft))
            if (la.code, name) not in self.names_in_la:
                break
        self.names_in_la.add((la.code, name))
        return name

    def build(
        self, la: LocalAuthority, draft: Draft, status: tuple[int, str], pc: Postcode
    ) -> School:
        rng = self.rng
        t = draft.etype
        if status == STATUS_PROPOSED_TO_OPEN:
            urn = self.urn(*URN_RANGES[0])
        elif t.kind in ("academy", "free"):
            urn = self.urn(*URN_RANGES[1])
        else:
            urn = self.urn(*URN_RANGES[2])
        _, _, town = district_of(pc, la)
        name = draft.name or self.unique_name(la, town, draft)
        school = School(
            urn=urn,
            la=la,
            estab_number=self.estab_number(la, t, draft.phase),
            name=name,
            etype=t,
            phase=draft.phase,
            low_age=draft.low,
            high_age=draft.high,
            status=status,
            pc=pc,
            gender=draft.gender,
            religion=draft.religion,
            selective=draft.selective,
        )
        self._dates(school)
        self._size(school)
        self._place(school)
        self._address(school, town)
        if t.kind in ("academy", "free") or (t.name == "Foundation school" and rng.random() < 0.3):
            region = self.trusts[la.gor]
            school.trust = rng.choice(region)
        if status != STATUS_PROPOSED_TO_OPEN and rng.random() < 0.97:
            school.ukprn = self.next_ukprn
            self.next_ukprn += rng.randint(1, 40)
        if rng.random() < 0.95:
            school.uprn = str(self.next_uprn)
            self.next_uprn += rng.randint(1, 50_000)
        return school

    def _dates(self, s: School) -> None:
        """Open dates for new schools and academies; close dates follow the status."""
        rng = self.rng
        t = s.etype
        if t.kind == "academy":
            s.open_date = first_of_month(rng, 2011, 2025)
            s.reason_opened = "sponsor" if "sponsor" in t.name else "converter"
        elif t.kind == "free":
            s.open_date = dt.date(rng.randint(2012, 2025), 9, 1)
            s.reason_opened = "free"
        elif t.kind == "independent" or rng.random() < 0.15:
            s.open_date = rng.choice(
                (dt.date(1900, 1, 1), random_date(rng, dt.date(1950, 1, 1), dt.date(2010, 12, 31)))
            )
            s.reason_opened = "na" if t.kind != "independent" else "new"
        if s.status == STATUS_PROPOSED_TO_OPEN:
            s.open_date = rng.choice(
                (dt.date(2027, 1, 1), dt.date(2027, 4, 1), dt.date(2027, 9, 1), dt.date(2028, 9, 1))
            )
            s.reason_opened = "free" if t.kind == "free" else "new"
        elif s.status == STATUS_PROPOSED_TO_CLOSE:
            s.close_date = rng.choice(
                (dt.date(2026, 12, 31), dt.date(2027, 3, 31), dt.date(2027, 8, 31))
            )
            s.reason_closed = "academy" if t.kind == "maintained" else "closure"
        elif s.status == STATUS_CLOSED and s.close_date is None:
            # A school closes after it opened: at least a year later, and before the extract.
            if s.open_date is not None and s.open_date > dt.date(2024, 8, 31):
                s.open_date = dt.date(rng.randint(2011, 2020), 9, 1)
            earliest = max(
                dt.date(1995, 1, 1), (s.open_date or dt.date(1900, 1, 1)) + dt.timedelta(days=365)
            )
            s.close_date = random_date(rng, earliest, dt.date(2026, 8, 31))
            s.reason_closed = "closure"

    def _size(self, s: School) -> None:
        """Capacity from forms of entry and year groups; roll and FSM around it."""
        rng = self.rng
        years = max(1, min(s.high_age, 18) - max(s.low_age, 4))
        if s.phase in (2, 3):
            forms_of_entry = rng.choice((0.5, 1, 1, 1.5, 2, 2, 3))
            s.capacity = int(forms_of_entry * 30 * years) + (26 if s.low_age <= 3 else 0)
        elif s.phase == 7:
            s.capacity = rng.choice((1, 2, 2, 3)) * 30 * 7 + rng.choice((4, 6, 8)) * 30 * 5
            s.capacity += rng.randrange(100, 300, 10) if s.high_age >= 18 else 0
        elif s.phase in (4, 5):
            fe = rng.choice((4, 5, 6, 6, 7, 8, 8, 9, 10, 12))
            main = fe * 30 * min(years, 5)
            s.capacity = main + (rng.randrange(150, 360, 10) if s.high_age >= 18 else 0)
        elif s.phase == 1:
            s.capacity = rng.randrange(40, 130, 2)
        elif s.phase == 6:
            s.capacity = None if s.etype.kind == "fe" else rng.randrange(400, 1800, 10)
        elif s.etype.alternative:
            s.capacity = rng.randrange(20, 90, 5)
        elif s.etype.special:
            s.capacity = rng.randrange(40, 260, 5)
        elif s.high_age <= 13:  # independent prep and pre-prep schools
            s.capacity = rng.randrange(40, 480, 5)
        else:
            s.capacity = rng.randrange(60, 1400, 5)
        blank_census = (
            s.status in (STATUS_PROPOSED_TO_OPEN, STATUS_CLOSED)
            or s.etype.kind == "fe"
            or rng.random() < 0.03
        )
        if s.capacity and not blank_census:
            s.pupils = max(8, round(s.capacity * rng.uniform(0.72, 1.06)))
        elif s.etype.kind == "fe" and not blank_census:
            s.pupils = None
        if s.pupils is not None and not s.is_independent and rng.random() > 0.02:
            base = 30.0 if s.la.gor in ("H", "A", "B") else 22.0
            s.fsm_percent = round(min(80.0, max(0.5, rng.gauss(base, 11.0))), 1)
        if s.pupils is not None and s.capacity is not None and s.pupils > s.capacity * 1.2:
            s.pupils = s.capacity

    def _address(self, s: School, town: str) -> None:
        """Invented street and locality; real post town, postcode and county."""
        rng = self.rng
        s.street = f"{rng.choice(STEMS)} {rng.choice(STREET_SUFFIXES)}"
        if rng.random() < 0.3:
            s.street = f"{rng.randint(1, 240)} {s.street}"
        s.locality = rng.choice(STEMS) if rng.random() < 0.35 else ""
        s.town = town
        s.county = s.la.county if s.la.county and rng.random() < 0.8 else ""
        if s.status != STATUS_PROPOSED_TO_OPEN:
            s.phone = phone_number(rng, s.la)

    def _place(self, s: School) -> None:
        """Easting/Northing = the postcode's, a few metres off; ~1% unknown."""
        if self.rng.random() < 0.01:
            return
        s.easting = s.pc.easting + self.rng.randint(-25, 25)
        s.northing = s.pc.northing + self.rng.randint(-25, 25)


def make_schools(codepoint: CodePoint) -> list[School]:
    """All demo establishments, sorted by URN like a GIAS download."""
    rng = random.Random(SEED)
    builder = Builder(rng, codepoint)
    las = {la.code: la for la in LOCAL_AUTHORITIES}
    schools: list[School] = []

    def add(la: LocalAuthority, draft: Draft, status: tuple[int, str], pc: Postcode) -> School:
        school = builder.build(la, draft, status, pc)
        schools.append(school)
        return school

    # 1. The fixed rows the demo relies on.
    for fixed in FIXED_SCHOOLS:
        la = las[fixed.la]
        draft = draft_school(rng, la, fixed.profile)
        draft.etype, draft.religion, draft.name = TYPES[fixed.etype], fixed.religion, fixed.name
        builder.names_in_la.add((fixed.la, fixed.name))
        near = fixed.la == "213" and not fixed.outward
        add(la, draft, STATUS_OPEN, builder.postcode(la, outward=fixed.outward, near=near))

    # 2. Open schools, apportioned to LAs by weight; Westminster all near SW1A 1AA.
    fixed_per_la = Counter(fixed.la for fixed in FIXED_SCHOOLS)
    others = [la for la in LOCAL_AUTHORITIES if la.code != "213"]
    remaining = (
        N_OPEN - N_WESTMINSTER_OPEN - sum(n for code, n in fixed_per_la.items() if code != "213")
    )
    counts = dict(
        zip(
            [la.code for la in others],
            apportion(remaining, [la.weight for la in others]),
            strict=True,
        )
    )
    counts["213"] = N_WESTMINSTER_OPEN - fixed_per_la["213"]
    for la in LOCAL_AUTHORITIES:
        for _ in range(counts[la.code]):
            draft = draft_school(rng, la, weighted(rng, PROFILE_WEIGHTS))
            pc = builder.postcode(la, near=la.code == "213")
            add(la, draft, STATUS_OPEN, pc)

    # 3. Open, but proposed to close: mostly maintained schools about to become academies.
    la_weights = [(la.code, float(max(la.weight, 20))) for la in LOCAL_AUTHORITIES]
    for _ in range(N_PROPOSED_TO_CLOSE):
        la = las[weighted(rng, la_weights)]
        draft = draft_school(rng, la, weighted(rng, PROFILE_WEIGHTS))
        add(la, draft, STATUS_PROPOSED_TO_CLOSE, builder.postcode(la, near=la.code == "213"))

    # 4. Closed predecessors of open converter academies: same name and site, a maintained
    #    type, closed the day before the academy opened.
    converters = [
        s
        for s in schools
        if s.etype.name == "Academy converter"
        and s.status == STATUS_OPEN
        and s.open_date is not None
    ]
    for academy in rng.sample(converters, min(N_CLOSED_FOR_ACADEMY, len(converters))):
        assert academy.open_date is not None
        draft = Draft(
            "predecessor",
            TYPES[
                rng.choice(
                    (
                        "Community school",
                        "Community school",
                        "Voluntary controlled school",
                        "Foundation school",
                    )
                )
            ],
            academy.phase,
            academy.low_age,
            academy.high_age,
            academy.religion,
            academy.gender,
            academy.selective,
            name=academy.name,
        )
        old = builder.build(academy.la, draft, STATUS_CLOSED, academy.pc)
        old.close_date = academy.open_date - dt.timedelta(days=1)
        old.reason_closed = "academy"
        old.open_date = None
        old.reason_opened = "na"
        old.easting, old.northing = academy.easting, academy.northing
        schools.append(old)

    # 5. Other closures (amalgamations, falling rolls), and 6. schools proposed to open.
    for _ in range(N_CLOSED_OTHER):
        la = las[weighted(rng, la_weights)]
        draft = draft_school(rng, la, weighted(rng, PROFILE_WEIGHTS))
        add(la, draft, STATUS_CLOSED, builder.postcode(la, near=la.code == "213"))
    for _ in range(N_PROPOSED_TO_OPEN):
        la = las[weighted(rng, la_weights)]
        profile = weighted(
            rng,
            [
                ("primary", 35.0),
                ("secondary", 25.0),
                ("special", 30.0),
                ("pru", 5.0),
                ("all_through", 5.0),
            ],
        )
        draft = draft_school(rng, la, profile)
        draft.selective = False
        if draft.etype.kind in ("maintained", "academy"):
            draft.etype = TYPES[
                "Free schools special"
                if draft.etype.special
                else "Free schools alternative provision"
                if draft.etype.alternative
                else "Free schools"
            ]
        add(la, draft, STATUS_PROPOSED_TO_OPEN, builder.postcode(la, near=la.code == "213"))

    schools.sort(key=lambda s: s.urn)
    return schools


# ---------------------------------------------------------------------------------------
# Output helpers
# ---------------------------------------------------------------------------------------


def gzip_bytes(data: bytes) -> bytes:
    """gzip with no name and mtime 0 in the header, so equal input gives equal bytes."""
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        gz.write(data)
    return buf.getvalue()


@dataclass
class Output:
    """One written file and what the manifest says about it."""

    path: Path
    rows: int
    meta: dict[str, object]


def write_gz(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip_bytes(data))


def ees_csv(header: Sequence[str], rows: Iterable[Sequence[object]]) -> bytes:
    """Explore-education-statistics style: UTF-8, every field quoted, LF line endings."""
    buf = io.StringIO()
    writer = csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue().encode("utf-8")


def gias_date(day: dt.date | None) -> str:
    return day.strftime("%d-%m-%Y") if day else ""


def ofsted_date(day: dt.date) -> str:
    return day.strftime("%d/%m/%Y")


def fmt1(x: float) -> str:
    """One decimal place, without a trailing ".0" (DfE style: 46, 46.5)."""
    text = f"{x:.1f}"
    return text.removesuffix(".0")


def clip(x: float, lo: float, hi: float) -> float:
    return max(lo, min(hi, x))


# ---------------------------------------------------------------------------------------
# 1. GIAS
# ---------------------------------------------------------------------------------------

# 2024's 140-column header (as in gias_subset.csv) less the five columns GIAS dropped in
# 2025 gives the 135-column layout of DATA.md's appendix.
# fmt: off
GIAS_2024_COLUMNS = (
    "URN", "LA (code)", "LA (name)", "EstablishmentNumber", "EstablishmentName",
    "TypeOfEstablishment (code)", "TypeOfEstablishment (name)", "EstablishmentTypeGroup (code)",
    "EstablishmentTypeGroup (name)", "EstablishmentStatus (code)", "EstablishmentStatus (name)",
    "ReasonEstablishmentOpened (code)", "ReasonEstablishmentOpened (name)", "OpenDate",
    "ReasonEstablishmentClosed (code)", "ReasonEstablishmentClosed (name)", "CloseDate",
    "PhaseOfEducation (code)", "PhaseOfEducation (name)", "StatutoryLowAge", "StatutoryHighAge",
    "Boarders (code)", "Boarders (name)", "NurseryProvision (name)", "OfficialSixthForm (code)",
    "OfficialSixthForm (name)", "Gender (code)", "Gender (name)", "ReligiousCharacter (code)",
    "ReligiousCharacter (name)", "ReligiousEthos (name)", "Diocese (code)", "Diocese (name)",
    "AdmissionsPolicy (code)", "AdmissionsPolicy (name)", "SchoolCapacity",
    "SpecialClasses (code)", "SpecialClasses (name)", "CensusDate", "NumberOfPupils",
    "NumberOfBoys", "NumberOfGirls", "PercentageFSM", "TrustSchoolFlag (code)",
    "TrustSchoolFlag (name)", "Trusts (code)", "Trusts (name)", "SchoolSponsorFlag (name)",
    "SchoolSponsors (name)", "FederationFlag (name)", "Federations (code)", "Federations (name)",
    "UKPRN", "FEHEIdentifier", "FurtherEducationType (name)", "OfstedLastInsp",
    "OfstedSpecialMeasures (code)", "OfstedSpecialMeasures (name)", "LastChangedDate", "Street",
    "Locality", "Address3", "Town", "County (name)", "Postcode", "SchoolWebsite", "TelephoneNum",
    "HeadTitle (name)", "HeadFirstName", "HeadLastName", "HeadPreferredJobTitle",
    "BSOInspectorateName (name)", "InspectorateReport", "DateOfLastInspectionVisit",
    "NextInspectionVisit", "TeenMoth (name)", "TeenMothPlaces", "CCF (name)", "SENPRU (name)",
    "EBD (name)", "PlacesPRU", "FTProv (name)", "EdByOther (name)", "Section41Approved (name)",
    "SEN1 (name)", "SEN2 (name)", "SEN3 (name)", "SEN4 (name)", "SEN5 (name)", "SEN6 (name)",
    "SEN7 (name)", "SEN8 (name)", "SEN9 (name)", "SEN10 (name)", "SEN11 (name)", "SEN12 (name)",
    "SEN13 (name)", "TypeOfResourcedProvision (name)", "ResourcedProvisionOnRoll",
    "ResourcedProvisionCapacity", "SenUnitOnRoll", "SenUnitCapacity", "GOR (code)", "GOR (name)",
    "DistrictAdministrative (code)", "DistrictAdministrative (name)", "AdministrativeWard (code)",
    "AdministrativeWard (name)", "ParliamentaryConstituency (code)",
    "ParliamentaryConstituency (name)", "UrbanRural (code)", "UrbanRural (name)",
    "GSSLACode (name)", "Easting", "Northing", "MSOA (name)", "LSOA (name)",
    "InspectorateName (name)", "SENStat", "SENNoStat", "BoardingEstablishment (name)",
    "PropsName", "PreviousLA (code)", "PreviousLA (name)", "PreviousEstablishmentNumber",
    "OfstedRating (name)", "RSCRegion (name)", "Country (name)", "UPRN", "SiteName",
    "QABName (code)", "QABName (name)", "EstablishmentAccredited (code)",
    "EstablishmentAccredited (name)", "QABReport", "CHNumber", "MSOA (code)", "LSOA (code)",
    "FSM", "AccreditationExpiryDate",
)
# fmt: on
GIAS_DROPPED_2025 = (
    "OfstedLastInsp",
    "OfstedSpecialMeasures (code)",
    "OfstedSpecialMeasures (name)",
    "OfstedRating (name)",
    "RSCRegion (name)",
)
GIAS_COLUMNS = [c for c in GIAS_2024_COLUMNS if c not in GIAS_DROPPED_2025]
# A real GIAS download quotes every field except these integer columns (see README).
GIAS_UNQUOTED = frozenset(
    (
        "URN",
        "StatutoryLowAge",
        "StatutoryHighAge",
        "SchoolCapacity",
        "UKPRN",
        "Easting",
        "Northing",
        "SENStat",
        "SENNoStat",
    )
)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower().replace("’", "").replace("'", ""))


def phone_number(rng: random.Random, la: LocalAuthority) -> str:
    prefix, digits = PHONE_RANGES[la.phone]
    return prefix + f"{rng.randrange(10**digits):0{digits}d}"


def constituency(s: School, district_name: str) -> tuple[str, str]:
    """Synthetic constituency: stable per outward code; E1409xxxx codes are not real."""
    suffix = stable_pick(CONSTITUENCY_SUFFIXES, s.pc.outward)
    name = f"{district_name.split(',')[0]} {suffix}"
    return f"E1409{zlib.crc32(name.encode()) % 10000:04d}", name


def gias_record(rng: random.Random, s: School) -> dict[str, str]:
    """Every GIAS column for one school, as the text GIAS would write."""
    t, la = s.etype, s.la
    district_code, district_name, _ = district_of(s.pc, la)
    rel_code, rel_name, diocese_code, diocese_name = (
        "00",
        "Does not apply",
        "0000",
        "Not applicable",
    )
    if s.religion == "CE":
        rel_code, rel_name = "02", "Church of England"
        diocese_code, diocese_name = CE_DIOCESES[la.ce], f"Diocese of {la.ce}"
    elif s.religion == "RC":
        rel_code, rel_name = "03", "Roman Catholic"
        prefix = "Archdiocese" if la.rc in RC_ARCHDIOCESES else "Diocese"
        diocese_code, diocese_name = RC_DIOCESES[la.rc], f"{prefix} of {la.rc}"
    elif t.kind != "maintained":
        rel_code, rel_name = "06", "None"
    ethos = "Does not apply"
    if t.kind == "independent":
        ethos = rng.choice(("None", "Inter- / non- denominational", "Christian"))

    if s.phase in (4, 5, 7) and t.kind in ("maintained", "academy", "free"):
        adm_code, adm_name = ("2", "Selective") if s.selective else ("1", "Non-selective")
    else:
        adm_code, adm_name = "0", "Not applicable"

    if t.kind == "fe" or t.special or t.alternative or s.phase == 1:
        sixth = ("0", "Not applicable")
    elif s.sixth_form:
        sixth = ("1", "Has a sixth form")
    else:
        sixth = ("2", "Does not have a sixth form")
    if s.phase == 1:
        nursery = "Not applicable"
    elif s.low_age <= 3 and s.phase in (2, 7, 0):
        nursery = "Has Nursery Classes"
    else:
        nursery = "No Nursery Classes"

    gender_code = {"Boys": "1", "Girls": "2", "Mixed": "3"}[s.gender]
    boys = girls = ""
    if s.pupils is not None:
        share = {"Boys": 1.0, "Girls": 0.0}.get(s.gender, rng.uniform(0.46, 0.54))
        boys_n = round(s.pupils * share)
        boys, girls = str(boys_n), str(s.pupils - boys_n)
    census = GIAS_CENSUS_DATE if s.pupils is not None else ""

    trust_flag = ("0", "Not applicable")
    trust_code = trust_name = sponsor = ""
    if s.trust:
        trust_code, trust_name = str(s.trust[0]), s.trust[1]
        if t.kind in ("academy", "free"):
            trust_flag = (
                ("3", "Supported by a multi-academy trust")
                if rng.random() < 0.88
                else ("5", "Supported by a single-academy trust")
            )
        else:
            trust_flag = ("1", "Supported by a trust")
        if "sponsor" in t.name:
            sponsor = trust_name
    federation = ("Not applicable", "", "")
    if t.kind == "maintained":
        federation = ("Not under a federation", "", "")
        if rng.random() < 0.08:
            fed = f"The {rng.choice(STEMS)} Federation"
            federation = ("Supported by a federation", str(rng.randint(1000, 9999)), fed)

    website = ""
    if rng.random() < 0.9:
        if t.kind == "maintained":
            website = f"www.{slug(s.name)[:30]}.{slug(la.name.split(',')[0])}.sch.uk"
        elif t.kind == "independent":
            website = f"https://www.{slug(s.name)[:30]}.co.uk"
        else:
            website = f"https://www.{slug(s.name)[:30]}.org.uk"
    head = ("", "", "", "")
    if s.status != STATUS_CLOSED:
        title = rng.choice(("Mr", "Mrs", "Ms", "Miss", "Dr"))
        first = rng.choice(
            MALE_NAMES
            if title == "Mr"
            else FEMALE_NAMES
            if title != "Dr"
            else MALE_NAMES + FEMALE_NAMES
        )
        head = (
            title,
            first,
            rng.choice(LAST_NAMES),
            rng.choice(("Principal", "Headteacher"))
            if t.kind in ("academy", "free")
            else rng.choice(
                ("Headteacher", "Headteacher", "Head of School", "Executive Headteacher")
            ),
        )

    sen = [""] * 13
    if t.special:
        for i, need in enumerate(rng.sample(SEN_NEEDS, rng.randint(1, 4))):
            sen[i] = need
    resourced = "Not applicable" if t.kind == "maintained" and not t.special else ""
    if not t.special and s.phase in (2, 4) and rng.random() < 0.05:
        resourced = rng.choice(("Resourced provision", "SEN unit"))

    pcon_code, pcon_name = constituency(s, district_name)
    urban = weighted(rng, URBAN_PROFILES[la.urban])
    ward_name = f"{stable_pick(WARD_NAMES, s.pc.ward)}"
    msoa_n = zlib.crc32(s.pc.ward.encode()) % 60 + 1
    msoa_name = f"{district_name.split(',')[0]} {msoa_n:03d}"
    lsoa_name = msoa_name + "ABCDE"[zlib.crc32(s.pc.postcode.encode()) % 5]

    indep = t.kind == "independent"
    inspectorate = rng.choice(("ISI", "Ofsted", "Ofsted")) if indep else ""
    sen_stat = str(rng.randint(0, 40)) if indep else ""
    sen_nostat = str(rng.randint(5, 120)) if indep else ""
    boarding = ""
    boarders = ("1", "No boarders")
    if indep:
        has_boarders = rng.random() < 0.12
        boarding = "Has boarders" if has_boarders else "Does not have boarders"
        if has_boarders:
            boarders = ("2", "Boarding school")
    props = f"{s.name.split(' School')[0]} Ltd" if indep and rng.random() < 0.7 else ""
    fsm_count = ""
    if s.fsm_percent is not None and s.pupils is not None:
        fsm_count = str(round(s.pupils * s.fsm_percent / 100))

    opened = REASON_OPENED[s.reason_opened]
    closed = REASON_CLOSED[s.reason_closed]
    record = {
        "URN": str(s.urn),
        "LA (code)": la.code,
        "LA (name)": la.name,
        "EstablishmentNumber": str(s.estab_number),
        "EstablishmentName": s.name,
        "TypeOfEstablishment (code)": f"{t.code:02d}",
        "TypeOfEstablishment (name)": t.name,
        "EstablishmentTypeGroup (code)": str(t.group),
        "EstablishmentTypeGroup (name)": GROUP_NAMES[t.group],
        "EstablishmentStatus (code)": str(s.status[0]),
        "EstablishmentStatus (name)": s.status[1],
        "ReasonEstablishmentOpened (code)": opened[0],
        "ReasonEstablishmentOpened (name)": opened[1],
        "OpenDate": gias_date(s.open_date),
        "ReasonEstablishmentClosed (code)": closed[0],
        "ReasonEstablishmentClosed (name)": closed[1],
        "CloseDate": gias_date(s.close_date),
        "PhaseOfEducation (code)": str(s.phase),
        "PhaseOfEducation (name)": PHASES[s.phase],
        "StatutoryLowAge": str(s.low_age),
        "StatutoryHighAge": str(s.high_age),
        "Boarders (code)": boarders[0],
        "Boarders (name)": boarders[1],
        "NurseryProvision (name)": nursery,
        "OfficialSixthForm (code)": sixth[0],
        "OfficialSixthForm (name)": sixth[1],
        "Gender (code)": gender_code,
        "Gender (name)": s.gender,
        "ReligiousCharacter (code)": rel_code,
        "ReligiousCharacter (name)": rel_name,
        "ReligiousEthos (name)": ethos,
        "Diocese (code)": diocese_code,
        "Diocese (name)": diocese_name,
        "AdmissionsPolicy (code)": adm_code,
        "AdmissionsPolicy (name)": adm_name,
        "SchoolCapacity": str(s.capacity) if s.capacity else "",
        "SpecialClasses (code)": "1" if t.special else "2",
        "SpecialClasses (name)": "Has Special Classes" if t.special else "No Special Classes",
        "CensusDate": census,
        "NumberOfPupils": "" if s.pupils is None else str(s.pupils),
        "NumberOfBoys": boys,
        "NumberOfGirls": girls,
        "PercentageFSM": "" if s.fsm_percent is None else f"{s.fsm_percent:.1f}",
        "TrustSchoolFlag (code)": trust_flag[0],
        "TrustSchoolFlag (name)": trust_flag[1],
        "Trusts (code)": trust_code,
        "Trusts (name)": trust_name,
        "SchoolSponsorFlag (name)": "Linked to a sponsor" if sponsor else "Not applicable",
        "SchoolSponsors (name)": sponsor,
        "FederationFlag (name)": federation[0],
        "Federations (code)": federation[1],
        "Federations (name)": federation[2],
        "UKPRN": "" if s.ukprn is None else str(s.ukprn),
        "FEHEIdentifier": "",
        "FurtherEducationType (name)": (
            "General Further Education College" if t.kind == "fe" else "Not applicable"
        ),
        "LastChangedDate": gias_date(
            random_date(rng, dt.date(2025, 9, 1), EXTRACT_DATE - dt.timedelta(days=1))
        ),
        "Street": s.street,
        "Locality": s.locality,
        "Address3": "",
        "Town": s.town,
        "County (name)": s.county,
        "Postcode": s.pc.postcode,
        "SchoolWebsite": website,
        "TelephoneNum": s.phone,
        "HeadTitle (name)": head[0],
        "HeadFirstName": head[1],
        "HeadLastName": head[2],
        "HeadPreferredJobTitle": head[3],
        "BSOInspectorateName (name)": "Not applicable",
        "InspectorateReport": "",
        "DateOfLastInspectionVisit": "",
        "NextInspectionVisit": "",
        "TeenMoth (name)": "Not applicable",
        "TeenMothPlaces": "",
        "CCF (name)": "Not applicable",
        "SENPRU (name)": "Not applicable",
        "EBD (name)": "Not applicable",
        "PlacesPRU": str(s.capacity) if t.name == "Pupil referral unit" and s.capacity else "",
        "FTProv (name)": "",
        "EdByOther (name)": "Not applicable",
        "Section41Approved (name)": (
            "Approved"
            if t.name == "Other independent special school"
            else "Not approved"
            if indep
            else "Not applicable"
        ),
        **{f"SEN{i + 1} (name)": need for i, need in enumerate(sen)},
        "TypeOfResourcedProvision (name)": resourced,
        "ResourcedProvisionOnRoll": "",
        "ResourcedProvisionCapacity": "",
        "SenUnitOnRoll": "",
        "SenUnitCapacity": "",
        "GOR (code)": la.gor,
        "GOR (name)": GOR_NAMES[la.gor],
        "DistrictAdministrative (code)": district_code,
        "DistrictAdministrative (name)": district_name,
        "AdministrativeWard (code)": s.pc.ward,
        "AdministrativeWard (name)": ward_name,
        "ParliamentaryConstituency (code)": pcon_code,
        "ParliamentaryConstituency (name)": pcon_name,
        "UrbanRural (code)": urban,
        "UrbanRural (name)": URBAN_RURAL[urban],
        "GSSLACode (name)": la.gss,
        "Easting": "" if s.easting is None else str(s.easting),
        "Northing": "" if s.northing is None else str(s.northing),
        "MSOA (name)": msoa_name,
        "LSOA (name)": lsoa_name,
        "InspectorateName (name)": inspectorate,
        "SENStat": sen_stat,
        "SENNoStat": sen_nostat,
        "BoardingEstablishment (name)": boarding,
        "PropsName": props,
        "PreviousLA (code)": "999",
        "PreviousLA (name)": "",
        "PreviousEstablishmentNumber": "",
        "Country (name)": "",
        "UPRN": s.uprn,
        "SiteName": "",
        "QABName (code)": "0",
        "QABName (name)": "Not applicable",
        "EstablishmentAccredited (code)": "0",
        "EstablishmentAccredited (name)": "Not applicable",
        "QABReport": "",
        "CHNumber": "",
        "MSOA (code)": "",
        "LSOA (code)": "",
        "FSM": fsm_count,
        "AccreditationExpiryDate": "",
    }
    missing = [c for c in GIAS_COLUMNS if c not in record]
    if missing or len(record) != len(GIAS_COLUMNS):
        raise AssertionError(f"GIAS record columns out of step: {missing}")
    return record


def gias_line(values: Iterable[tuple[str, str]]) -> str:
    out = []
    for column, value in values:
        if column in GIAS_UNQUOTED:
            out.append(value)
        else:
            out.append('"' + value.replace('"', '""') + '"')
    return ",".join(out)


def write_gias(out: Path, schools: Sequence[School]) -> Output:
    """GIAS edubasealldata: cp1252, CRLF, text quoted, integer columns bare."""
    rng = substream("gias")
    lines = [",".join(f'"{c}"' for c in GIAS_COLUMNS)]
    for s in schools:
        record = gias_record(rng, s)
        lines.append(gias_line((c, record[c]) for c in GIAS_COLUMNS))
    # strict: an unencodable character must fail here, not be replaced silently.
    data = ("\r\n".join(lines) + "\r\n").encode("cp1252")
    path = out / "gias_demo.csv.gz"
    write_gz(path, data)
    return Output(
        path,
        len(schools),
        {
            "dataset": "Get Information about Schools: establishment fields (edubasealldata)",
            "format": "gias_establishments",
            "publisher": "Department for Education (Get Information about Schools)",
            "period": [EXTRACT_DATE.isoformat()],
            "encoding": "cp1252",
            "line_endings": "CRLF",
            "columns": len(GIAS_COLUMNS),
            "layout": "GIAS 2025 (135 columns)",
            "real_file_name_pattern": "edubasealldataYYYYMMDD.csv",
        },
    )


# ---------------------------------------------------------------------------------------
# 2. Code-Point subset
# ---------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------
# 3-6. Performance tables
# ---------------------------------------------------------------------------------------

# fmt: off
KS4_INFO_HEADER = (
    "time_period", "time_identifier", "geographic_level", "country_code", "country_name",
    "school_laestab", "school_urn", "school_name", "old_la_code", "new_la_code", "la_name",
    "version", "establishment_type_group", "full_address", "telnum", "pcon_code", "pcon_name",
    "contflag", "iclose", "reldenom", "admpol_pt", "egender", "feeder", "agerange",
    "allks_pupil_count", "allks_boys_count", "allks_girls_count", "endks4_pupil_count",
    "ks2_scaledscore_average", "sen_with_ehcp_pupil_count", "sen_with_ehcp_pupil_percent",
    "sen_pupil_count", "sen_pupil_percent", "sen_no_ehcp_pupil_count",
    "sen_no_ehcp_pupil_percent", "attainment8_diffn", "progress8_diffn", "progress8_banding",
)
# fmt: on
# The real DfE file leaves these three integer flags unquoted; everything else is quoted.
KS4_INFO_UNQUOTED = frozenset(("contflag", "iclose", "feeder"))

YEAR_STARTS = {
    "202223": dt.date(2022, 9, 1),
    "202324": dt.date(2023, 9, 1),
    "202425": dt.date(2024, 9, 1),
    "202526": dt.date(2025, 9, 1),
}


def has_ks4(s: School) -> bool:
    """Schools that enter pupils at the end of KS4 (age 16)."""
    if not s.is_open or s.etype.kind == "fe" or s.phase == 6:
        return False
    if s.phase in (4, 5, 7):
        return True
    return s.phase == 0 and s.low_age <= 14 and s.high_age >= 16


def has_ks2(s: School) -> bool:
    return s.is_open and s.phase in (2, 3) and s.high_age >= 11 and s.etype.kind != "independent"


def ees_symbol(rng: random.Random, rare: float = 0.004) -> str | None:
    """Now and then a value is unavailable (x) or not available (:)."""
    roll = rng.random()
    if roll < rare:
        return "x"
    if roll < 2 * rare:
        return ":"
    return None


def end_ks4_cohort(s: School) -> int:
    """Pupils at the end of KS4 in 2024/25; its own stream so every file agrees."""
    rng = random.Random(f"{SEED}/ks4_cohort/{s.urn}")
    if s.phase == 5:
        return 0
    if s.etype.special or s.etype.alternative:
        return rng.randint(1, 25)
    pupils = s.pupils or rng.randint(300, 1200)
    years: float = 5 if s.phase != 7 else 12
    if s.sixth_form:
        years += 1.5
    if s.is_independent:
        years = max(3, s.high_age - s.low_age)
    return max(1, round(pupils / years * rng.uniform(0.85, 1.05)))


def quality(s: School) -> float:
    """A school's persistent quality (z-score), so Ofsted, admissions and results agree."""
    return random.Random(f"{SEED}/quality/{s.urn}").gauss(0.0, 1.0)


def attainment_effect(s: School) -> float:
    """Quality plus intake: selection, disadvantage and special needs move raw results."""
    effect = quality(s)
    if s.selective:
        effect += 1.6
    if s.is_independent:
        effect += 0.8
    if s.fsm_percent is not None:
        effect -= (s.fsm_percent - 24.0) / 30.0
    if s.etype.special or s.etype.alternative:
        effect -= 2.5
    return effect


def write_ks4_info(out: Path, schools: Sequence[School]) -> Output:
    rng = substream("ks4_info")
    lines = [",".join(f'"{c}"' for c in KS4_INFO_HEADER)]
    count = 0
    for s in schools:
        if not has_ks4(s):
            continue
        t, la = s.etype, s.la
        cohort = end_ks4_cohort(s)
        indep_like = s.is_independent
        suppress_a8 = cohort < 6
        if indep_like or s.phase == 5 or (t.special and rng.random() < 0.3):
            a8 = "z"  # not applicable: independent, no KS4 pupils, or no comparable data
        elif suppress_a8:
            a8 = "c"
        else:
            effect = attainment_effect(s)
            a8 = ees_symbol(rng) or fmt1(clip(rng.gauss(-15 + 3 * effect, 9), -55, 36))
            if a8 not in ("x", ":") and rng.random() < 0.003:
                a8 = "low"
        district_name = district_of(s.pc, la)[1]
        pcon_code, _ = constituency(s, district_name)
        if s.religion == "CE":
            reldenom = "Church of England"
        elif s.religion == "RC":
            reldenom = "Roman Catholic"
        else:
            reldenom = "Does not apply" if t.kind == "maintained" else "None"
        if s.is_independent or t.special or t.alternative:
            admpol = "Admission type unclassified"
        elif s.selective:
            admpol = "selective schools"
        elif la.selective_share >= 0.25:
            admpol = "non-selective schools in highly selective areas"
        else:
            admpol = "non-selective schools in other areas"
        pupils = s.pupils
        if pupils is None:
            allks = boys = girls = "z"
        else:
            share = {"Boys": 1.0, "Girls": 0.0}.get(s.gender, rng.uniform(0.46, 0.54))
            b = round(pupils * share)
            allks = str(pupils)
            boys = "z" if s.gender == "Girls" else str(b)
            girls = "z" if s.gender == "Boys" else str(pupils - b)
        sen_values = ["z"] * 6 if indep_like or s.phase == 5 else ["c"] * 6
        if not indep_like and cohort >= 6:
            ehcp = round(cohort * clip(rng.gauss(0.04, 0.02), 0, 1))
            if t.special:
                ehcp = cohort
            sen_all = max(ehcp, round(cohort * clip(rng.gauss(0.16, 0.05), 0, 1)))
            no_ehcp = sen_all - ehcp
            sen_values = [
                str(ehcp),
                fmt1(100 * ehcp / cohort),
                str(sen_all),
                fmt1(100 * sen_all / cohort),
                str(no_ehcp),
                fmt1(100 * no_ehcp / cohort),
            ]
        if s.phase == 5:
            ks2 = "z"
        elif cohort < 6 and not indep_like:
            ks2 = "c"
        elif not indep_like and rng.random() < 0.09:
            ks2 = fmt1(round(clip(rng.gauss(103, 3), 92, 112) * 2) / 2)
        else:
            ks2 = "z"
        values = {
            "time_period": "202425",
            "time_identifier": "Academic year",
            "geographic_level": "School",
            "country_code": "E92000001",
            "country_name": "England",
            "school_laestab": s.laestab,
            "school_urn": str(s.urn),
            "school_name": s.name,
            "old_la_code": la.code,
            "new_la_code": la.gss,
            "la_name": la.name,
            "version": "Provisional",
            "establishment_type_group": t.ks4_group,
            "full_address": s.full_address,
            "telnum": s.phone or "z",
            "pcon_code": pcon_code,
            "pcon_name": "Unknown",
            "contflag": "0",
            "iclose": "1" if s.status == STATUS_PROPOSED_TO_CLOSE else "0",
            "reldenom": reldenom,
            "admpol_pt": admpol,
            "egender": s.gender,
            "feeder": "1" if s.phase == 5 else "0",
            "agerange": f"{s.low_age} to {s.high_age}",
            "allks_pupil_count": allks,
            "allks_boys_count": boys,
            "allks_girls_count": girls,
            "endks4_pupil_count": str(cohort),
            "ks2_scaledscore_average": ks2,
            "sen_with_ehcp_pupil_count": sen_values[0],
            "sen_with_ehcp_pupil_percent": sen_values[1],
            "sen_pupil_count": sen_values[2],
            "sen_pupil_percent": sen_values[3],
            "sen_no_ehcp_pupil_count": sen_values[4],
            "sen_no_ehcp_pupil_percent": sen_values[5],
            "attainment8_diffn": a8,
            # No KS2 baseline for the 2024/25 cohort: Progress 8 is not published.
            "progress8_diffn": "z",
            "progress8_banding": "z",
        }
        lines.append(
            ",".join(
                values[c] if c in KS4_INFO_UNQUOTED else '"' + values[c].replace('"', '""') + '"'
                for c in KS4_INFO_HEADER
            )
        )
        count += 1
    path = out / "ks4_info_demo.csv.gz"
    write_gz(path, ("\n".join(lines) + "\n").encode("utf-8"))
    return Output(
        path,
        count,
        {
            "dataset": "Key stage 4 performance: information about schools (provisional)",
            "format": "ks4_information",
            "publisher": "Department for Education (explore education statistics)",
            "period": ["202425"],
            "encoding": "utf-8",
            "line_endings": "LF",
            "real_file_name_pattern": "202425_information_about_schools_provisional.csv",
        },
    )


def percent(value: float) -> str:
    """A percentage as DfE prints it, with 'low' for a true value that rounds to zero."""
    value = clip(value, 0.0, 100.0)
    if 0.0 < value < 0.05:
        return "low"
    return fmt1(value)


def write_ks4_results(out: Path, schools: Sequence[School]) -> Output:
    rng = substream("ks4_results")
    header = (
        "time_period",
        "school_urn",
        "school_name",
        "la_name",
        "endks4_pupil_count",
        "attainment8_average",
        "progress8_average",
        "progress8_lower_95_ci",
        "progress8_upper_95_ci",
        "english_maths_grade5_percent",
        "ebacc_entry_percent",
    )
    rows: list[list[str]] = []
    for period in ("202324", "202425"):
        for s in schools:
            if not has_ks4(s) or s.phase == 5 or not s.open_on(YEAR_STARTS[period]):
                continue
            cohort = end_ks4_cohort(s)
            if period != "202425":
                cohort = max(1, round(cohort * rng.uniform(0.9, 1.1)))
            effect = attainment_effect(s)
            row = [period, str(s.urn), s.name, s.la.name, str(cohort)]
            if cohort < 6:
                rows.append([*row, "c", "c", "c", "c", "c", "c"])
                continue
            if s.is_independent and rng.random() < 0.4:
                rows.append([*row, "z", "z", "z", "z", "z", "z"])
                continue
            a8 = clip(rng.gauss(46 + 6.5 * effect, 4), 10, 80)
            if period == "202425" or s.is_independent:
                # 2024/25 pupils sat no KS2 tests (2020 cancelled): Progress 8 not published.
                p8 = ["z", "z", "z"]
            else:
                score = clip(rng.gauss(0.45 * effect, 0.35), -3.5, 2.5)
                half = 1.96 * 1.26 / math.sqrt(cohort)
                p8 = [f"{score:.2f}", f"{score - half:.2f}", f"{score + half:.2f}"]
            em5 = percent(rng.gauss(2.1 * (a8 - 46) + 46, 6))
            ebacc = percent(rng.gauss(40 + 8 * effect, 14))
            if s.etype.special or s.etype.alternative:
                ebacc = percent(rng.uniform(0, 0.04) if rng.random() < 0.08 else rng.uniform(0, 12))
            values = [fmt1(a8), *p8, em5, ebacc]
            symbol = ees_symbol(rng)
            if symbol:
                values = [symbol] * len(values)
            rows.append([*row, *values])
    path = out / "ks4_results_demo.csv.gz"
    write_gz(path, ees_csv(header, rows))
    return Output(
        path,
        len(rows),
        {
            "dataset": "Key stage 4 performance: school-level results",
            "format": "ks4_results",
            "publisher": "Department for Education (explore education statistics)",
            "period": ["202324", "202425"],
            "encoding": "utf-8",
            "line_endings": "LF",
        },
    )


EES_PLACE = (
    "time_period",
    "time_identifier",
    "geographic_level",
    "country_code",
    "country_name",
    "old_la_code",
    "new_la_code",
    "la_name",
    "school_laestab",
    "school_urn",
    "school_name",
)


def ees_place(period: str, s: School) -> list[str]:
    """The leading columns of an EES school-level row (EES_PLACE)."""
    return [
        period,
        "Academic year",
        "School",
        "E92000001",
        "England",
        s.la.code,
        s.la.gss,
        s.la.name,
        s.laestab,
        str(s.urn),
        s.name,
    ]


# DfE's `ks2_school_attainment_data.csv`: one row per school, subject and pupil group (long).
KS2_SUBJECTS = ("Reading, writing and maths", "Reading", "Maths")


def write_ks2_results(out: Path, schools: Sequence[School]) -> Output:
    rng = substream("ks2_results")
    header = (
        *EES_PLACE,
        "subject",
        "breakdown_topic",
        "breakdown",
        "expected_standard_pupil_percent",
        "higher_standard_pupil_percent",
        "average_scaled_score",
    )
    rows: list[list[str]] = []
    for period in ("202324", "202425"):
        for s in schools:
            if not has_ks2(s) or not s.open_on(YEAR_STARTS[period]):
                continue
            pupils = s.pupils or rng.randint(90, 420)
            years = max(1, s.high_age - max(s.low_age, 4))
            cohort = max(1, round(pupils / years * rng.uniform(0.85, 1.1)))
            place = ees_place(period, s)
            if cohort < 6:
                for subject in KS2_SUBJECTS:
                    rows.append([*place, subject, "All pupils", "Total", "c", "c", "c"])
                continue
            effect = attainment_effect(s)
            expected = rng.gauss(61 + 9 * effect, 8)
            higher = clip(rng.gauss(8 + 3.5 * effect, 3.5), 0, 60)
            if higher < 0.5 and rng.random() < 0.1:
                higher = rng.uniform(0.0, 0.04)  # a real value that rounds to nothing
            reading = clip(rng.gauss(74 + 7 * effect, 7), 0, 100)
            maths = clip(rng.gauss(73 + 7 * effect, 7), 0, 100)
            values = {
                "Reading, writing and maths": [percent(expected), percent(higher), "z"],
                "Reading": [
                    percent(reading),
                    percent(clip(rng.gauss(28 + 5 * effect, 6), 0, 80)),
                    str(round(clip(rng.gauss(105 + 2 * effect, 1.5), 94, 115))),
                ],
                "Maths": [
                    percent(maths),
                    percent(clip(rng.gauss(24 + 5 * effect, 6), 0, 80)),
                    str(round(clip(rng.gauss(104 + 2 * effect, 1.5), 94, 115))),
                ],
            }
            symbol = ees_symbol(rng)
            for subject in KS2_SUBJECTS:
                cells = [symbol] * 3 if symbol else values[subject]
                rows.append([*place, subject, "All pupils", "Total", *cells])
            if period == "202425" and not symbol:
                # The file's 3-year averages sit beside the year's figure: not the school's
                # figure for the year, and skipped by the importer.
                three = [percent(expected + rng.gauss(0, 2)), percent(higher), "z"]
                rows.append([*place, KS2_SUBJECTS[0], "All pupils", "3 year average", *three])
    path = out / "ks2_results_demo.csv.gz"
    write_gz(path, ees_csv(header, rows))
    return Output(
        path,
        len(rows),
        {
            "dataset": "Key stage 2 attainment: school-level results (by subject)",
            "format": "ks2_results",
            "publisher": "Department for Education (explore education statistics)",
            "period": ["202324", "202425"],
            "real_file_name_pattern": "ks2_school_attainment_data.csv",
            "encoding": "utf-8",
            "line_endings": "LF",
        },
    )


def aps_grade(points: float) -> str:
    """DfE's grade for an average point score per A level entry (A*=60 ... E=10)."""
    if points >= 60:
        return "A*"
    if points < 10:
        return "E-"
    base = int(points // 10) * 10
    letter = {50: "A", 40: "B", 30: "C", 20: "D", 10: "E"}[base]
    third = (points - base) / 10
    return letter + ("-" if third < 1 / 3 else "" if third < 2 / 3 else "+")


def sixth_form_students(rng: random.Random, s: School) -> int:
    if s.etype.kind == "fe":
        return rng.randint(400, 2500)
    if s.phase == 6:
        return max(6, round((s.pupils or rng.randint(300, 1200)) * rng.uniform(0.8, 0.95)))
    if s.etype.special:
        return rng.randint(1, 15)
    return max(1, round((s.pupils or 900) * rng.uniform(0.08, 0.2)))


def ks5_row(
    place: list[str], students: int, cohort: str, group: str, entrants: int, points: float
) -> list[str]:
    if entrants < 6:
        return [*place, cohort, group, str(students), str(entrants), "c", "c"]
    grade = aps_grade(points)
    return [*place, cohort, group, str(students), str(entrants), f"{points:.2f}", grade]


def write_ks5(out: Path, schools: Sequence[School]) -> tuple[Output, Output]:
    """16-18 results as DfE's institution file: a row per school, qualification type
    (`exam_cohort`) and disadvantage status; and the institution destinations file."""
    rng = substream("ks5")
    header = (
        *EES_PLACE,
        "exam_cohort",
        "disadvantage_status",
        "end1618_student_count",
        "aps_per_entry_student_count",
        "aps_per_entry",
        "aps_per_entry_grade",
    )
    rows: list[list[str]] = []
    eligible = [s for s in schools if s.is_open and s.sixth_form]
    for period in ("202324", "202425"):
        for s in eligible:
            if not s.open_on(YEAR_STARTS[period]):
                continue
            students = sixth_form_students(rng, s)
            place = ees_place(period, s)
            a_level = max(0, round(students * rng.uniform(0.55, 0.9)))
            applied = round(students * rng.uniform(0.0, 0.35))

            row = partial(ks5_row, place, students)

            effect = attainment_effect(s)
            aps = clip(rng.gauss(33 + 4 * effect, 3), 8, 58)
            if s.etype.special and rng.random() < 0.5:
                # No A level entries: other qualifications only.
                rows.append([*place, "A level", "Total", str(students), "0", "z", "z"])
            else:
                symbol = ees_symbol(rng)
                if symbol:
                    rows.append([*place, "A level", "Total", str(students), "z", symbol, symbol])
                else:
                    rows.append(row("A level", "Total", a_level, aps))
                    disadvantaged = round(a_level * rng.uniform(0.05, 0.25))
                    rows.append(row("A level", "Disadvantaged", disadvantaged, aps - 4))
            # Academic includes A levels: a different figure, never the A level one.
            rows.append(row("Academic", "Total", a_level + round(a_level * 0.03), aps + 0.4))
            if applied:
                rows.append(row("Applied general", "Total", applied, clip(rng.gauss(30, 4), 8, 50)))
    path = out / "ks5_results_demo.csv.gz"
    write_gz(path, ees_csv(header, rows))
    results = Output(
        path,
        len(rows),
        {
            "dataset": "A level and other 16 to 18 results: institution performance",
            "format": "ks5_results",
            "publisher": "Department for Education (explore education statistics)",
            "period": ["202324", "202425"],
            "real_file_name_pattern": "institution_performance_202225.csv",
            "encoding": "utf-8",
            "line_endings": "LF",
        },
    )

    drng = substream("ks5_destinations")
    dheader = (
        *EES_PLACE,
        "institution_group",
        "institution_type",
        "cohort_level_group",
        "cohort_level",
        "breakdown_topic",
        "breakdown",
        "data_type",
        "version",
        "cohort",
        "overall",
        "education",
        "he",
        "fe",
        "other_edu",
        "appren",
        "all_work",
        "all_notsust",
        "all_unknown",
    )
    drows: list[list[str]] = []
    for s in eligible:
        if not s.open_on(YEAR_STARTS["202223"]):
            continue
        cohort = max(1, round(sixth_form_students(drng, s) * drng.uniform(0.4, 0.55)))
        place = [
            *ees_place("202223", s),
            "State-funded mainstream schools" if s.is_state else "Independent schools",
            s.etype.ks4_group,
            "Total",
            "Total",
            "Total",
            "Total",
        ]
        if cohort < 6:
            for kind in ("Number of students", "Percentage"):
                drows.append([*place, kind, "Final", str(cohort), *["c"] * 9])
            continue
        if s.is_independent:
            for kind in ("Number of students", "Percentage"):
                drows.append([*place, kind, "Final", str(cohort), *["z"] * 9])
            continue
        effect = attainment_effect(s)
        sustained = clip(drng.gauss(88 + 2 * effect, 4), 40, 100)
        appr = clip(drng.gauss(6 - effect, 3), 0, 30)
        if appr < 0.5 and drng.random() < 0.5:
            appr = drng.uniform(0, 0.04)
        edu_share = clip(drng.gauss(0.78 + 0.05 * effect, 0.08), 0.3, 1.0)
        edu = max(0.0, sustained - appr) * edu_share
        emp = max(0.0, sustained - appr - edu)
        he = edu * clip(drng.gauss(0.8, 0.08), 0.3, 1.0)
        fe = edu - he
        unknown = clip(drng.gauss(3, 1.5), 0, 100 - sustained)
        shares = [sustained, edu, he, fe, 0.0, appr, emp, 100 - sustained - unknown, unknown]
        symbol = ees_symbol(drng)
        counts = [str(round(cohort * share / 100)) for share in shares]
        drows.append(
            [
                *place,
                "Number of students",
                "Final",
                str(cohort),
                *([symbol] * 9 if symbol else counts),
            ]
        )
        values = [percent(share) for share in shares]
        drows.append(
            [*place, "Percentage", "Final", str(cohort), *([symbol] * 9 if symbol else values)]
        )
    dpath = out / "ks5_destinations_demo.csv.gz"
    write_gz(dpath, ees_csv(dheader, drows))
    destinations = Output(
        dpath,
        len(drows),
        {
            "dataset": "16-18 destination measures: institution level (2022/23 cohort)",
            "format": "ks5_destinations",
            "publisher": "Department for Education (explore education statistics)",
            "period": ["202223"],
            "encoding": "utf-8",
            "line_endings": "LF",
        },
    )
    return results, destinations


# ---------------------------------------------------------------------------------------
# 7. Ofsted
# ---------------------------------------------------------------------------------------

OFSTED_COMMON = (
    "URN",
    "School name",
    "Ofsted phase",
    "Type of education",
    "Local authority",
    "Inspection number",
    "Inspection type",
    "Inspection start date",
    "Publication date",
)
GRADED_HEADER = (
    *OFSTED_COMMON,
    "Overall effectiveness",
    "Quality of education",
    "Behaviour and attitudes",
    "Personal development",
    "Effectiveness of leadership and management",
    "Safeguarding is effective?",
    "Early years provision (where applicable)",
    "Sixth form provision (where applicable)",
)
REPORT_CARD_HEADER = (
    *OFSTED_COMMON,
    "Inclusion",
    "Curriculum and teaching",
    "Achievement",
    "Attendance and behaviour",
    "Personal development and well-being",
    "Leadership and governance",
    "Early years",
    "Post-16",
    "Safeguarding",
)
REPORT_CARD_SCALE = (
    "Exceptional",
    "Strong standard",
    "Expected standard",
    "Needs attention",
    "Urgent improvement",
)


def ofsted_inspected(s: School) -> bool:
    """State-funded schools in Ofsted's schools MI (not FE colleges, not independents)."""
    return s.is_open and s.is_state and bool(s.etype.ofsted) and s.etype.kind != "fe"


def ofsted_phase(s: School) -> str:
    if s.etype.special:
        return "Special"
    if s.etype.alternative:
        return "PRU"
    return {1: "Nursery", 2: "Primary", 3: "Primary"}.get(s.phase, "Secondary")


def has_early_years(s: School) -> bool:
    return s.low_age <= 5 and s.phase in (1, 2, 7)


def write_ofsted(out: Path, schools: Sequence[School]) -> tuple[Output, Output]:
    rng = substream("ofsted")
    inspected = [s for s in schools if ofsted_inspected(s)]
    graded = sorted(rng.sample(inspected, round(0.70 * len(inspected))), key=lambda s: s.urn)
    graded_urns = {s.urn for s in graded}
    n_cards = round(0.15 * len(inspected))
    from_graded = rng.sample(graded, round(0.85 * n_cards))
    not_graded = [s for s in inspected if s.urn not in graded_urns]
    cards = sorted(
        from_graded + rng.sample(not_graded, n_cards - len(from_graded)), key=lambda s: s.urn
    )

    inspection_numbers = iter(rng.sample(range(10_000_000, 10_400_000), len(graded) + n_cards))
    rows: list[list[str]] = []
    for s in graded:
        start = random_date(rng, dt.date(2015, 9, 7), dt.date(2024, 7, 19))
        published = start + dt.timedelta(days=rng.randint(18, 45))
        effect = quality(s)
        # Roughly the last graded picture: ~20% outstanding, ~65% good, ~12% RI, ~3% inadequate.
        overall = int(clip(round(1.9 - 0.4 * effect + rng.gauss(0, 0.3)), 1, 3))
        if rng.random() < 0.03:
            overall = 4

        def sub(grade: int = overall) -> str:
            return str(int(clip(grade + rng.choice((-1, 0, 0, 0, 0, 1)), 1, 4)))

        early = sub() if has_early_years(s) else ""
        sixth = sub() if s.sixth_form else ""
        if early and rng.random() < 0.02:
            early = "9"  # judgement not made
        safeguarding = "No" if overall == 4 and rng.random() < 0.6 else "Yes"
        rows.append(
            [
                str(s.urn),
                s.name,
                ofsted_phase(s),
                s.etype.ofsted,
                s.la.name,
                str(next(inspection_numbers)),
                "S5 Inspection",
                ofsted_date(start),
                ofsted_date(published),
                str(overall),
                sub(),
                sub(),
                sub(),
                sub(),
                safeguarding,
                early,
                sixth,
            ]
        )
    graded_path = out / "ofsted_graded_demo.csv.gz"
    write_gz(graded_path, ees_csv(GRADED_HEADER, rows))

    card_rows: list[list[str]] = []
    for s in cards:
        start = random_date(rng, dt.date(2025, 11, 10), dt.date(2026, 6, 30))
        published = start + dt.timedelta(days=rng.randint(14, 35))
        effect = quality(s)
        centre = clip(1.8 - 0.45 * effect, 0, 4)  # "Expected standard" is the mode

        def area(centre: float = centre) -> str:
            return REPORT_CARD_SCALE[int(clip(round(centre + rng.gauss(0, 0.55)), 0, 4))]

        early = area() if has_early_years(s) else ""
        post16 = area() if s.sixth_form else ""
        safeguarding = "Not met" if rng.random() < 0.02 else "Met"
        card_rows.append(
            [
                str(s.urn),
                s.name,
                ofsted_phase(s),
                s.etype.ofsted,
                s.la.name,
                str(next(inspection_numbers)),
                "Full inspection",
                ofsted_date(start),
                ofsted_date(published),
                area(),
                area(),
                area(),
                area(),
                area(),
                area(),
                early,
                post16,
                safeguarding,
            ]
        )
    card_path = out / "ofsted_demo.csv.gz"
    write_gz(card_path, ees_csv(REPORT_CARD_HEADER, card_rows))
    common = {
        "publisher": "Ofsted",
        "encoding": "utf-8",
        "line_endings": "LF",
        "note": "Layout modelled on Ofsted's published state-funded schools "
        "management information (MI); values are synthetic.",
    }
    return (
        Output(
            card_path,
            len(card_rows),
            {
                **common,
                "format": "ofsted_report_card",
                "dataset": "Ofsted state-funded schools inspections: report cards "
                "(inspections from 10 November 2025)",
                "period": ["2025-11-10/2026-06-30"],
            },
        ),
        Output(
            graded_path,
            len(rows),
            {
                **common,
                "format": "ofsted_graded",
                "dataset": "Ofsted state-funded schools inspections: latest graded inspection "
                "(framework to August 2024)",
                "period": ["2015-09-01/2024-08-31"],
            },
        ),
    )


# ---------------------------------------------------------------------------------------
# 8. Admissions and 9. finance
# ---------------------------------------------------------------------------------------


# DfE's school-level applications and offers (`AppsandOffers_YYYY_SchoolLevel.csv`), header
# as published: one row per school and application round, so an all-through school has a
# Primary (Reception) and a Secondary (Year 7) row.
ADMISSIONS_HEADER = (
    "time_period",
    "time_identifier",
    "geographic_level",
    "country_code",
    "country_name",
    "region_code",
    "region_name",
    "old_la_code",
    "new_la_code",
    "la_name",
    "school_phase",
    "school_laestab_as_used",
    "number_preferences_la",
    "school_name",
    "total_number_places_offered",
    "number_preferred_offers",
    "number_1st_preference_offers",
    "number_2nd_preference_offers",
    "number_3rd_preference_offers",
    "times_put_as_any_preferred_school",
    "times_put_as_1st_preference",
    "times_put_as_2nd_preference",
    "times_put_as_3rd_preference",
    "proportion_1stprefs_v_1stprefoffers",
    "proportion_1stprefs_v_totaloffers",
    "all_applications_from_another_LA",
    "offers_to_applicants_from_another_LA",
    "establishment_type",
    "denomination",
    "FSM_eligible_percent",
    "admissions_policy",
    "urban_rural",
    "allthrough_school",
    "parliamentary_constituency_code",
    "parliamentary_constituency_name",
    "school_urn",
    "entry_year",
)
REGION_NAMES = {
    "A": ("E12000001", "North East"),
    "B": ("E12000002", "North West"),
    "D": ("E12000003", "Yorkshire and The Humber"),
    "E": ("E12000004", "East Midlands"),
    "F": ("E12000005", "West Midlands"),
    "G": ("E12000006", "East of England"),
    "H": ("E12000007", "London"),
    "J": ("E12000008", "South East"),
    "K": ("E12000009", "South West"),
}


def write_admissions(out: Path, schools: Sequence[School]) -> Output:
    rng = substream("admissions")
    rows: list[list[str]] = []
    for period in ("202425", "202526"):
        for s in schools:
            mainstream = s.phase in (2, 3, 4, 5, 7) and not s.etype.special
            if not (s.is_open and s.is_state and mainstream and s.open_on(YEAR_STARTS[period])):
                continue
            rounds: list[tuple[str, str]] = []
            if s.phase in (2, 3, 7):
                rounds.append(("Primary", "R" if s.low_age <= 4 else "3"))
            if s.phase in (4, 5, 7):
                late = s.etype.name in ("University technical college", "Studio schools")
                rounds.append(("Secondary", "10" if late else "7"))
            region_code, region_name = REGION_NAMES[s.la.gor]
            for phase, entry_year in rounds:
                secondary = phase == "Secondary"
                capacity = s.capacity or 210
                years = (
                    max(1, min(s.high_age, 16) - 10)
                    if secondary
                    else max(1, min(s.high_age, 11) - 4)
                )
                pan = max(5, round(capacity / years / (2 if s.phase == 7 else 1) / 5) * 5)
                popularity = math.exp(0.35 * quality(s) + rng.gauss(0, 0.25))
                first = max(0, round(pan * rng.uniform(0.45, 1.3) * popularity))
                second = round(first * rng.uniform(0.3, 0.7))
                third = round(first * rng.uniform(0.2, 0.5))
                named = first + second + third + round(pan * rng.uniform(0.0, 1.5) * popularity)
                first_offers = min(first, round(pan * rng.uniform(0.75, 1.0)))
                second_offers = min(second, max(0, round((pan - first_offers) * 0.6)))
                third_offers = min(third, max(0, round((pan - first_offers - second_offers) * 0.5)))
                preferred = first_offers + second_offers + third_offers
                places = min(pan, preferred + round(pan * rng.uniform(0.0, 0.1)))
                rows.append(
                    [
                        period,
                        "Academic year",
                        "School",
                        "E92000001",
                        "England",
                        region_code,
                        region_name,
                        s.la.code,
                        s.la.gss,
                        s.la.name,
                        phase,
                        s.laestab,
                        "6" if s.la.gor == "H" else "3",
                        s.name,
                        str(places),
                        str(preferred),
                        str(first_offers),
                        str(second_offers),
                        str(third_offers),
                        str(named),
                        str(first),
                        str(second),
                        str(third),
                        f"{first / first_offers:.4f}" if first_offers else "z",
                        f"{first / places:.4f}" if places else "z",
                        str(round(named * rng.uniform(0.0, 0.15))),
                        str(round(preferred * rng.uniform(0.0, 0.1))),
                        s.etype.name,
                        {"CE": "Church of England", "RC": "Roman Catholic"}.get(s.religion, "None"),
                        fmt1(s.fsm_percent) if s.fsm_percent is not None else "z",
                        ("Selective" if s.selective else "Non-selective")
                        if secondary
                        else "Not applicable",
                        "Urban",
                        "Yes" if s.phase == 7 else "No",
                        "",
                        "",
                        str(s.urn),
                        entry_year,
                    ]
                )
    path = out / "admissions_demo.csv.gz"
    write_gz(path, ees_csv(ADMISSIONS_HEADER, rows))
    return Output(
        path,
        len(rows),
        {
            "dataset": "Secondary and primary school applications and offers: school level",
            "format": "admissions",
            "publisher": "Department for Education (explore education statistics)",
            "period": ["202425", "202526"],
            "real_file_name_pattern": "AppsandOffers_YYYY_SchoolLevel.csv",
            "encoding": "utf-8",
            "line_endings": "LF",
        },
    )


def write_finance(out: Path, schools: Sequence[School]) -> Output:
    rng = substream("finance")
    header = (
        "time_period",
        "school_urn",
        "school_name",
        "la_name",
        "pupils_fte",
        "total_income",
        "total_expenditure",
        "income_per_pupil",
        "expenditure_per_pupil",
        "staff_costs_percent",
        "in_year_balance",
        "revenue_reserve",
    )
    rows: list[list[str]] = []
    for period, uplift in (("202324", 0.965), ("202425", 1.0)):
        for s in schools:
            if not (
                s.is_open and s.is_state and s.etype.kind != "fe" and s.open_on(YEAR_STARTS[period])
            ):
                continue
            row = [period, str(s.urn), s.name, s.la.name]
            if s.pupils is None or rng.random() < 0.006:
                rows.append([*row, "x", "x", "x", "x", "x", "x", "x", "x"])
                continue
            fte = s.pupils * (rng.uniform(0.55, 0.7) if s.phase == 1 else rng.uniform(0.97, 1.0))
            if s.etype.special:
                per_pupil = rng.gauss(26000, 4500)
            elif s.etype.alternative:
                per_pupil = rng.gauss(21000, 4000)
            elif s.phase == 1:
                per_pupil = rng.gauss(10500, 1500)
            elif s.phase in (4, 5, 6, 7):
                per_pupil = rng.gauss(7900, 600)
            else:
                per_pupil = rng.gauss(6900, 550)
            per_pupil *= uplift * (1.12 if s.la.gor == "H" else 1.0)
            per_pupil *= 1 + ((s.fsm_percent or 20) - 20) / 250
            income = per_pupil * fte
            spend = income * rng.uniform(0.965, 1.035)
            reserve: str
            if s.trust and reserves_pooled(s.trust[0]):
                reserve = "z"
            else:
                reserve = str(round(income * clip(rng.gauss(0.07, 0.06), -0.08, 0.3)))
            rows.append(
                [
                    *row,
                    fmt1(fte),
                    str(round(income)),
                    str(round(spend)),
                    str(round(income / fte)),
                    str(round(spend / fte)),
                    fmt1(clip(rng.gauss(76, 4), 60, 90)),
                    str(round(income - spend)),
                    reserve,
                ]
            )
    path = out / "finance_demo.csv.gz"
    write_gz(path, ees_csv(header, rows))
    return Output(
        path,
        len(rows),
        {
            "dataset": "School financial benchmarking: income, expenditure and balances "
            "(modelled on CFR and AAR returns)",
            "format": "finance",
            "publisher": "Department for Education (Consistent Financial Reporting and Academy "
            "Accounts Return)",
            "period": ["202324", "202425"],
            "encoding": "utf-8",
            "line_endings": "LF",
        },
    )


def reserves_pooled(trust_code: int) -> bool:
    """Some trusts hold reserves centrally, so their academies report none of their own."""
    return random.Random(f"{SEED}/pool/{trust_code}").random() < 0.3


# ---------------------------------------------------------------------------------------
# 10. Manifest
# ---------------------------------------------------------------------------------------

SYNTHETIC_ATTRIBUTION = (
    "SYNTHETIC DEMO DATA — not real schools. Generated by tools/generate_demo.py in the "
    "published file format of {publisher}; it contains no real school data. Open Government "
    "Licence v3.0."
)


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_manifest(out: Path, outputs: Sequence[Output]) -> Path:
    datasets = []
    for o in outputs:
        meta = dict(o.meta)
        synthetic = bool(meta.pop("synthetic", True))
        publisher = str(meta["publisher"])
        entry: dict[str, object] = {
            "file": o.path.relative_to(out).as_posix() + ("/" if o.path.is_dir() else ""),
            "rows": o.rows,
            "licence": OGL,
            "synthetic": synthetic,
            "label": LABEL
            if synthetic
            else "Real OS Code-Point Open rows (a subset bundled with the synthetic demo)",
            "extract_date": EXTRACT_DATE.isoformat(),
            "attribution": meta.pop("attribution", None)
            or SYNTHETIC_ATTRIBUTION.format(publisher=publisher),
            "compression": "gzip",
            **meta,
        }
        files = meta.get("files")
        if isinstance(files, list):
            entry["sha256"] = {str(f): sha256_of(out / str(f)) for f in files}
        else:
            entry["sha256"] = sha256_of(o.path)
        datasets.append(entry)
    manifest = {
        "label": LABEL,
        "generator": "tools/generate_demo.py",
        "seed": SEED,
        "extract_date": EXTRACT_DATE.isoformat(),
        "licence": OGL,
        "datasets": datasets,
    }
    path = out / "manifest.json"
    text = json.dumps(manifest, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------
# Full scale (benchmarks only): `--full-scale` writes one national-size GIAS file
# ---------------------------------------------------------------------------------------

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


def write_gias_csv(path: Path, schools: Sequence[School]) -> None:
    """The whole file as GIAS publishes it: cp1252, CRLF, text quoted, integers bare."""
    rng = substream("gias")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        fh.write((",".join(f'"{c}"' for c in GIAS_COLUMNS) + "\r\n").encode("cp1252"))
        for s in schools:
            record = gias_record(rng, s)
            fh.write((gias_line((c, record[c]) for c in GIAS_COLUMNS) + "\r\n").encode("cp1252"))


def generate_full_scale(codepoint_dir: Path, out: Path, log: Callable[[str], None] = print) -> Path:
    """A national-size synthetic GIAS file (edubasealldataYYYYMMDD.csv) for benchmarks."""
    module = globals()
    saved = {name: module[name] for name in (*FULL_SCALE_COUNTS, "URN_RANGES", "LOCAL_AUTHORITIES")}
    try:
        log(f"counting English authorities in {codepoint_dir}")
        module["LOCAL_AUTHORITIES"] = full_scale_authorities(codepoint_dir)
        module.update(FULL_SCALE_COUNTS)
        module["URN_RANGES"] = FULL_SCALE_URN_RANGES
        log(f"{len(LOCAL_AUTHORITIES)} local authorities; reading Code-Point Open")
        schools = make_schools(load_codepoint(codepoint_dir))
        path = out / f"edubasealldata{EXTRACT_DATE:%Y%m%d}.csv"
        write_gias_csv(path, schools)
    finally:
        module.update(saved)
    open_count = sum(1 for s in schools if s.is_open)
    log(f"{len(schools)} synthetic establishments ({open_count} open) -> {path}")
    return path


# ---------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------


def generate(codepoint_dir: Path, out: Path, log: Callable[[str], None] = print) -> list[Output]:
    out.mkdir(parents=True, exist_ok=True)
    log(f"reading Code-Point Open from {codepoint_dir}")
    cp = load_codepoint(codepoint_dir)
    schools = make_schools(cp)
    log(f"{len(schools)} synthetic establishments")
    outputs = [
        write_gias(out, schools),
        write_codepoint(out, cp, schools),
        write_ks4_info(out, schools),
        write_ks4_results(out, schools),
        write_ks2_results(out, schools),
        *write_ks5(out, schools),
        *write_ofsted(out, schools),
        write_admissions(out, schools),
        write_finance(out, schools),
    ]
    write_manifest(out, outputs)
    for o in outputs:
        log(f"  {o.path.relative_to(out).as_posix():<32} {o.rows:>8} rows")
    return outputs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--codepoint",
        type=Path,
        required=True,
        help="directory of Code-Point Open <area>.csv.gz files",
    )
    parser.add_argument("--out", type=Path, required=True, help="output directory")
    parser.add_argument(
        "--full-scale",
        action="store_true",
        help="benchmarks: write only a national-size GIAS file (~65,000 establishments, "
        "~27,000 open) as <out>/edubasealldataYYYYMMDD.csv instead of the bundled demo",
    )
    args = parser.parse_args(argv)
    if args.full_scale:
        generate_full_scale(args.codepoint, args.out)
    else:
        generate(args.codepoint, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
