"""Real places: the local authorities the demo's schools are put in, their districts and post
towns, regions and dioceses, and the invented parts of an address that hang off them."""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tools.demo.draws import stable_pick
from tools.demo.names import CONSTITUENCY_SUFFIXES

if TYPE_CHECKING:
    from tools.demo.codepoint import Postcode
    from tools.demo.school import School

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


def district_of(pc: Postcode, la: LocalAuthority) -> tuple[str, str, str]:
    """(district code, district name, post town) of a postcode in this LA."""
    name, town = COUNTY_DISTRICTS.get(pc.district, (la.name, la.town or la.name))
    return pc.district, name, OUTWARD_TOWNS.get(pc.outward, town)


def phone_number(rng: random.Random, la: LocalAuthority) -> str:
    prefix, digits = PHONE_RANGES[la.phone]
    return prefix + f"{rng.randrange(10**digits):0{digits}d}"


def constituency(s: School, district_name: str) -> tuple[str, str]:
    """Synthetic constituency: stable per outward code; E1409xxxx codes are not real."""
    suffix = stable_pick(CONSTITUENCY_SUFFIXES, s.pc.outward)
    name = f"{district_name.split(',')[0]} {suffix}"
    return f"E1409{zlib.crc32(name.encode()) % 10000:04d}", name


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
