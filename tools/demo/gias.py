"""GIAS `edubasealldata`: every column of the 2025 layout for each school, cp1252, CRLF, text
quoted and integer columns bare."""

from __future__ import annotations

import datetime as dt
import random
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path

from tools.demo.columns import GIAS
from tools.demo.columns import GIAS_READ as READ
from tools.demo.config import EXTRACT_DATE, GIAS_CENSUS_DATE
from tools.demo.draws import random_date, stable_pick, substream, weighted
from tools.demo.gias_layout import GIAS_COLUMNS, GIAS_UNQUOTED
from tools.demo.kinds import GROUP_NAMES, PHASES, REASON_CLOSED, REASON_OPENED, STATUS_CLOSED
from tools.demo.names import FEMALE_NAMES, LAST_NAMES, MALE_NAMES, SEN_NEEDS, STEMS, WARD_NAMES
from tools.demo.output import Output, gias_date, slug, write_gz
from tools.demo.places import (
    CE_DIOCESES,
    GOR_NAMES,
    RC_ARCHDIOCESES,
    RC_DIOCESES,
    URBAN_PROFILES,
    URBAN_RURAL,
    constituency,
    district_of,
)
from tools.demo.school import School

_UNREAD = set(READ.COLUMNS_READ) - set(GIAS_COLUMNS) - {READ.OFSTED_RATING, READ.OFSTED_DATE}
assert not _UNREAD, f"the importer reads GIAS columns this layout lacks: {sorted(_UNREAD)}"


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
        READ.URN: str(s.urn),
        GIAS["la_code"]: la.code,
        GIAS["la_name"]: la.name,
        GIAS["establishment_number"]: str(s.estab_number),
        READ.NAME: s.name,
        "TypeOfEstablishment (code)": f"{t.code:02d}",
        GIAS["type_name"]: t.name,
        "EstablishmentTypeGroup (code)": str(t.group),
        GIAS["type_group"]: GROUP_NAMES[t.group],
        "EstablishmentStatus (code)": str(s.status[0]),
        READ.STATUS: s.status[1],
        "ReasonEstablishmentOpened (code)": opened[0],
        "ReasonEstablishmentOpened (name)": opened[1],
        READ.OPEN_DATE: gias_date(s.open_date),
        "ReasonEstablishmentClosed (code)": closed[0],
        "ReasonEstablishmentClosed (name)": closed[1],
        "CloseDate": gias_date(s.close_date),
        "PhaseOfEducation (code)": str(s.phase),
        READ.PHASE: PHASES[s.phase],
        GIAS["statutory_low_age"]: str(s.low_age),
        GIAS["statutory_high_age"]: str(s.high_age),
        "Boarders (code)": boarders[0],
        GIAS["boarders"]: boarders[1],
        GIAS["nursery_provision"]: nursery,
        "OfficialSixthForm (code)": sixth[0],
        GIAS["official_sixth_form"]: sixth[1],
        "Gender (code)": gender_code,
        GIAS["gender"]: s.gender,
        "ReligiousCharacter (code)": rel_code,
        GIAS["religious_character"]: rel_name,
        "ReligiousEthos (name)": ethos,
        "Diocese (code)": diocese_code,
        "Diocese (name)": diocese_name,
        "AdmissionsPolicy (code)": adm_code,
        GIAS["admissions_policy"]: adm_name,
        GIAS["capacity"]: str(s.capacity) if s.capacity else "",
        "SpecialClasses (code)": "1" if t.special else "2",
        "SpecialClasses (name)": "Has Special Classes" if t.special else "No Special Classes",
        "CensusDate": census,
        GIAS["pupils"]: "" if s.pupils is None else str(s.pupils),
        "NumberOfBoys": boys,
        "NumberOfGirls": girls,
        GIAS["percentage_fsm"]: "" if s.fsm_percent is None else f"{s.fsm_percent:.1f}",
        "TrustSchoolFlag (code)": trust_flag[0],
        "TrustSchoolFlag (name)": trust_flag[1],
        "Trusts (code)": trust_code,
        GIAS["trust_name"]: trust_name,
        "SchoolSponsorFlag (name)": "Linked to a sponsor" if sponsor else "Not applicable",
        "SchoolSponsors (name)": sponsor,
        "FederationFlag (name)": federation[0],
        "Federations (code)": federation[1],
        "Federations (name)": federation[2],
        GIAS["ukprn"]: "" if s.ukprn is None else str(s.ukprn),
        "FEHEIdentifier": "",
        "FurtherEducationType (name)": (
            "General Further Education College" if t.kind == "fe" else "Not applicable"
        ),
        "LastChangedDate": gias_date(
            random_date(rng, dt.date(2025, 9, 1), EXTRACT_DATE - dt.timedelta(days=1))
        ),
        GIAS["street"]: s.street,
        GIAS["locality"]: s.locality,
        GIAS["address3"]: "",
        GIAS["town"]: s.town,
        GIAS["county"]: s.county,
        GIAS["postcode"]: s.pc.postcode,
        GIAS["website"]: website,
        GIAS["telephone"]: s.phone,
        READ.HEAD_NAME[0]: head[0],
        READ.HEAD_NAME[1]: head[1],
        READ.HEAD_NAME[2]: head[2],
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
        GIAS["region"]: GOR_NAMES[la.gor],
        "DistrictAdministrative (code)": district_code,
        GIAS["district"]: district_name,
        "AdministrativeWard (code)": s.pc.ward,
        GIAS["ward"]: ward_name,
        "ParliamentaryConstituency (code)": pcon_code,
        GIAS["parliamentary_constituency"]: pcon_name,
        "UrbanRural (code)": urban,
        GIAS["urban_rural"]: URBAN_RURAL[urban],
        "GSSLACode (name)": la.gss,
        READ.EASTING: "" if s.easting is None else str(s.easting),
        READ.NORTHING: "" if s.northing is None else str(s.northing),
        "MSOA (name)": msoa_name,
        "LSOA (name)": lsoa_name,
        READ.INSPECTORATE: inspectorate,
        "SENStat": sen_stat,
        "SENNoStat": sen_nostat,
        "BoardingEstablishment (name)": boarding,
        "PropsName": props,
        "PreviousLA (code)": "999",
        "PreviousLA (name)": "",
        "PreviousEstablishmentNumber": "",
        "Country (name)": "",
        GIAS["uprn"]: s.uprn,
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


def write_gias_csv(path: Path, schools: Sequence[School]) -> None:
    """The whole file as GIAS publishes it: cp1252, CRLF, text quoted, integers bare."""
    rng = substream("gias")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        fh.write((",".join(f'"{c}"' for c in GIAS_COLUMNS) + "\r\n").encode("cp1252"))
        for s in schools:
            record = gias_record(rng, s)
            fh.write((gias_line((c, record[c]) for c in GIAS_COLUMNS) + "\r\n").encode("cp1252"))
