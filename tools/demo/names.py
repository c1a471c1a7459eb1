"""Invented names: the words school names are made of, the rows the demo relies on, and the
rule that makes a name."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tools.demo.places import LocalAuthority
    from tools.demo.school import Draft

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
    FixedSchool("352", "St Mary’s Catholic High School and Sixth Form Centre", "secondary",
                "Voluntary aided school", "RC"),
    FixedSchool("886", "St Mary's Catholic Primary School", "primary", "Academy converter", "RC"),
    FixedSchool("202", "St. John's Church of England Primary School", "primary",
                "Voluntary aided school", "CE"),
    FixedSchool("330", "King Edward VI Oakfield Grammar School", "grammar", "Academy converter"),
    FixedSchool("341", "King Edward VI Riverside Academy", "secondary", "Academy sponsor led"),
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


def curly(rng: random.Random, name: str) -> str:
    """GIAS holds both apostrophes: keep ASCII mostly, use U+2019 (cp1252 0x92) sometimes."""
    return name.replace("'", "\u2019") if "'" in name and rng.random() < 0.2 else name


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
