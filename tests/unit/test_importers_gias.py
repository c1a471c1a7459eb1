"""GIAS establishments: both layouts, cp1252, every valid URN yielded, honest blanks."""

from __future__ import annotations

import datetime as dt
import inspect
import re
from pathlib import Path

import pytest

from schooldata.adapters.importers.gias import parse_gias, parse_gias_date, parse_servable_gias
from schooldata.domain.errors import ImportRejected
from schooldata.domain.geo import Location, distance_miles
from schooldata.domain.ofsted import HistoricGrade
from schooldata.domain.phase import GiasPhase, Phase
from schooldata.domain.school import School, is_servable_status
from schooldata.domain.urn import Urn
from schooldata.ports.imports import RejectLog

FIXTURES = Path(__file__).parent.parent / "fixtures" / "importers"
GIAS_2025 = FIXTURES / "edubasealldata20250401.csv"  # cp1252, CRLF, 135 columns
GIAS_2024 = FIXTURES / "edubasealldata20240115.csv"  # UTF-8 with BOM, unquoted, 140 columns


def parse(path: Path, **kwargs: int) -> tuple[dict[int, School], RejectLog]:
    log = RejectLog()
    schools = {s.urn.value: s for s in parse_gias(path, log, **kwargs)}
    return schools, log


def test_the_fixture_is_the_2025_layout_in_cp1252() -> None:
    raw = GIAS_2025.read_bytes()
    assert b"\x92" in raw
    assert raw.split(b"\r\n", 1)[0].count(b",") == 134


def test_every_row_with_a_valid_urn_is_yielded_whatever_its_status() -> None:
    schools, log = parse(GIAS_2025)
    assert sorted(schools) == [100001, 100002, 100003, 100006, 100007]
    assert schools[100003].status == "Closed"
    assert schools[100006].status == "Open, but proposed to close"
    assert log.rows_read == 7
    assert log.skipped == 1  # the closed school: kept, but not servable


@pytest.mark.parametrize("path", [GIAS_2025, GIAS_2024])
def test_the_registrys_servable_only_parse_yields_the_open_schools_and_counts_the_rest(
    path: Path,
) -> None:
    everything, full_log = parse(path)
    log = RejectLog()
    servable = {int(s.urn.value): s for s in parse_servable_gias(path, log)}
    assert servable == {u: s for u, s in everything.items() if is_servable_status(s.status)}
    assert log.skipped == full_log.skipped
    assert log.rejects == full_log.rejects
    assert log.rows_read == full_log.rows_read


def test_bad_urns_and_blank_names_are_rejected_with_line_and_reason() -> None:
    _, log = parse(GIAS_2025)
    assert log.rejects == [
        (5, "URN must be exactly six digits; got '12345'."),
        (6, "URN 100005: EstablishmentName is blank"),
    ]


def test_a_0x92_name_decodes_to_a_typographic_apostrophe_and_is_trimmed() -> None:
    schools, _ = parse(GIAS_2025)
    assert schools[100001].name == "St Mary’s Church of England Primary School"


def test_columns_map_onto_the_school() -> None:
    school = parse(GIAS_2025)[0][100001]
    assert school.urn == Urn(100001)
    assert (school.la_code, school.la_name, school.establishment_number) == (
        "213",
        "Westminster",
        "3001",
    )
    assert school.type_name == "Voluntary aided school"
    assert school.type_group == "Local authority maintained schools"
    assert school.gias_phase is GiasPhase.PRIMARY
    assert school.phase is Phase.PRIMARY
    assert (school.statutory_low_age, school.statutory_high_age) == (4, 11)
    assert (school.capacity, school.pupils, school.percentage_fsm) == (420, 398, 12.5)
    assert school.gender == "Mixed"
    assert school.religious_character == "Church of England"
    assert school.admissions_policy is None  # GIAS "Not applicable": a placeholder, not a policy
    assert school.boarders == "No boarders"
    assert school.nursery_provision == "No Nursery Classes"
    assert school.official_sixth_form == "Does not have a sixth form"
    assert (school.street, school.town, school.postcode) == (
        "1 Buckingham Gate",
        "London",
        "SW1A 1AA",
    )
    assert school.website == "www.stmarys.example.sch.uk"
    assert school.telephone == "2079460000"
    assert (school.region, school.district, school.ward) == ("London", "Westminster", "St James's")
    assert school.parliamentary_constituency == "Cities of London and Westminster"
    assert school.urban_rural == "(England/Wales) Urban major conurbation"
    assert (school.ukprn, school.uprn) == ("10012345", "100023336956")
    assert school.open_date == dt.date(2010, 9, 1)
    assert school.head_name == "Mrs Jane Smith"
    assert school.ofsted is None  # the 2025 layout has no Ofsted grade


SHARED_GIAS = Path(__file__).resolve().parents[3] / "shared" / "data" / "gias" / "gias_subset.csv"


@pytest.mark.skipif(not SHARED_GIAS.is_file(), reason="the shared real GIAS rows are absent")
def test_gias_placeholders_are_null_never_served_as_values() -> None:
    # Real rows (DfE's own fixture): URN 150516 is a British school overseas in Dubai, whose
    # LA (name) is "Does not apply", LA (code) 0 and GOR (name) "Not Applicable".
    schools, _ = parse(SHARED_GIAS)
    overseas = schools[150516]
    assert (overseas.la_name, overseas.la_code, overseas.region) == (None, None, None)
    assert overseas.town == "Dubai"
    nursery = schools[100004]  # ReligiousCharacter "Does not apply", policy "Not applicable"
    assert (nursery.religious_character, nursery.admissions_policy) == (None, None)
    assert (nursery.official_sixth_form, nursery.nursery_provision) == (None, None)
    assert schools[101173].religious_character == "None"  # an answer, kept
    assert schools[126370].la_name == "Wiltshire"


def test_blank_cells_are_none_never_zero_or_empty() -> None:
    school = parse(GIAS_2025)[0][100002]
    assert school.capacity is None
    assert school.pupils is None
    assert school.percentage_fsm is None
    assert school.postcode is None
    assert school.locality is None
    assert school.website is None
    assert school.open_date is None
    assert school.head_name is None
    assert school.trust_name == "Example Learning Trust"


def test_locations_come_from_the_grid_and_never_from_blank_or_zero() -> None:
    schools, _ = parse(GIAS_2025)
    palace = schools[100001].location
    assert palace is not None
    assert distance_miles(palace, Location(51.50101, -0.14156)) * 1609.344 < 50
    assert schools[100002].location is None  # blank easting/northing
    assert schools[100006].location is None  # 0/0


def test_only_a_non_ofsted_inspectorate_is_kept() -> None:
    schools, _ = parse(GIAS_2025)
    assert schools[100001].inspectorate_name is None  # "Ofsted"
    assert schools[100007].inspectorate_name == "ISI"
    assert schools[100007].head_name == "Brown"  # "Not applicable" title dropped


def test_the_unrecorded_1900_open_date_is_none() -> None:
    assert parse(GIAS_2025)[0][100003].open_date is None


def test_the_2024_layout_with_a_bom_and_ofsted_grades() -> None:
    schools, log = parse(GIAS_2024)
    assert schools[100101].name == "École Française de Londres"
    assert schools[100101].ofsted == HistoricGrade(2, dt.date(2019, 3, 14))
    assert schools[100101].open_date == dt.date(2005, 9, 1)
    assert schools[100101].phase is Phase.ALL_THROUGH
    assert schools[100102].ofsted == HistoricGrade(1, None)
    assert schools[100102].phase is Phase.SECONDARY  # middle deemed secondary
    assert schools[100103].ofsted is None  # an inspection date without a grade is no grade
    assert log.skipped == 1  # "Proposed to open" is not served
    assert log.rejects == []


@pytest.mark.parametrize("batch_size", [1, 2, 5000])
def test_batch_size_changes_nothing(batch_size: int) -> None:
    assert parse(GIAS_2025, batch_size=batch_size)[0] == parse(GIAS_2025)[0]


def test_parsing_is_lazy() -> None:
    log = RejectLog()
    schools = parse_gias(GIAS_2025, log, batch_size=1)
    assert inspect.isgenerator(schools)
    assert log.rows_read == 0
    next(schools)
    assert log.rows_read == 1


def test_progress_is_reported() -> None:
    seen: list[int] = []
    list(parse_gias(GIAS_2025, RejectLog(), progress=seen.append))
    assert seen[-1] == 7


@pytest.mark.parametrize("missing", ["URN", "EstablishmentName", "EstablishmentStatus (name)"])
def test_a_file_without_a_key_column_is_refused_before_anything_is_read(
    tmp_path: Path, missing: str
) -> None:
    header = ["URN", "EstablishmentName", "EstablishmentStatus (name)", "Easting"]
    path = tmp_path / "edubasealldata20250101.csv"
    keep = [name for name in header if name != missing]
    path.write_text(",".join(keep) + "\n" + ",".join("100001" for _ in keep) + "\n")
    with pytest.raises(ImportRejected, match=f"missing column.*{re.escape(missing)}"):
        parse_gias(path, RejectLog())  # refused on the call, not on the first next()


def test_a_row_with_the_wrong_number_of_fields_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "g.csv"
    path.write_text("URN,EstablishmentName,EstablishmentStatus (name)\n100001,A,Open\n100002,B\n")
    log = RejectLog()
    assert [s.urn.value for s in parse_gias(path, log)] == [100001]
    assert log.rejects == [(3, "has 2 fields; the header has 3")]


def test_a_minimal_file_gives_minimal_schools(tmp_path: Path) -> None:
    path = tmp_path / "g.csv"
    path.write_text("URN,EstablishmentName,EstablishmentStatus (name)\n100001,A,Open\n")
    (school,) = parse_gias(path, RejectLog())
    assert school == School(urn=Urn(100001), name="A", status="Open")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("01-09-2010", dt.date(2010, 9, 1)),
        ("1/9/2010", dt.date(2010, 9, 1)),
        ("", None),
        (None, None),
        ("31-02-2020", None),
        ("2010-09-01", None),
        ("01-01-1900", None),
    ],
)
def test_gias_dates(raw: str | None, expected: dt.date | None) -> None:
    assert parse_gias_date(raw) == expected
