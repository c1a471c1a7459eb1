"""Stores for the integration suite: the same fixtures over memory, SQLite and PostgreSQL.

PostgreSQL comes from SCHOOLDATA_TEST_POSTGRES_URL; each store gets its own schema (dropped
afterwards), so runs and pytest-xdist workers never collide. Unreachable -> skipped, unless
SCHOOLDATA_REQUIRE_SERVICES=1 (CI), where a missing service is a failure.
"""

from __future__ import annotations

import datetime as dt
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url
from tests.support.postgres import end_connections_of

from schooldata.adapters.memory.store import InMemoryStore
from schooldata.adapters.sql import SqlStore
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.geo import Location
from schooldata.domain.links import EstablishmentLink
from schooldata.domain.measure import missing, reported, suppressed
from schooldata.domain.ofsted import (
    GradedInspection,
    HistoricGrade,
    InspectionRecord,
    ReportCard,
    ReportCardScale,
)
from schooldata.domain.phase import GiasPhase
from schooldata.domain.postcode import without_spaces
from schooldata.domain.results import MeasureRecord
from schooldata.domain.school import School, is_servable_status
from schooldata.domain.urn import Urn

POSTGRES_URL = os.environ.get(
    "SCHOOLDATA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
BACKENDS = [
    pytest.param("memory"),
    pytest.param("sqlite"),
    pytest.param("postgres", marks=pytest.mark.postgres),
]
SQL_BACKENDS = BACKENDS[1:]

Store = InMemoryStore | SqlStore


# ------------------------------------------------------------------------------ backends


@pytest.fixture(scope="session")
def postgres_admin() -> Iterator[Engine]:
    """An autocommit engine on the test database, or a skip (a failure in CI)."""
    engine = create_engine(
        POSTGRES_URL, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 3}
    )
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as exc:
        engine.dispose()
        where = make_url(POSTGRES_URL).render_as_string(hide_password=True)
        message = f"PostgreSQL not reachable at {where}: {type(exc).__name__}"
        if os.environ.get("SCHOOLDATA_REQUIRE_SERVICES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    yield engine
    engine.dispose()


@contextmanager
def postgres_schema(admin: Engine) -> Iterator[str]:
    """A URL whose connections use a fresh schema of their own; the schema is dropped after."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    schema = f"sd_{worker}_{uuid.uuid4().hex[:12]}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    # Each connection names its schema, so whatever a test leaves open is ended with it.
    url = make_url(POSTGRES_URL).update_query_dict(
        {"options": f"-csearch_path={schema}", "application_name": schema}
    )
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            end_connections_of(conn, schema)
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))


@contextmanager
def open_store(backend: str, request: pytest.FixtureRequest, directory: Path) -> Iterator[Store]:
    """An empty store of the given backend, migrated to head."""
    if backend == "memory":
        yield InMemoryStore()
        return
    if backend == "sqlite":
        with open_sql_store(f"sqlite:///{directory / 'schooldata.db'}") as store:
            yield store
        return
    admin: Engine = request.getfixturevalue("postgres_admin")
    with postgres_schema(admin) as url, open_sql_store(url) as store:
        yield store


@contextmanager
def open_sql_store(url: str) -> Iterator[SqlStore]:
    store = SqlStore(url)
    store.upgrade()
    try:
        yield store
    finally:
        store.close()


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """An empty store, one per test: memory, SQLite (a file under tmp_path) or PostgreSQL."""
    with open_store(request.param, request, tmp_path) as opened:
        yield opened


@pytest.fixture(params=SQL_BACKENDS)
def sql_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqlStore]:
    with open_store(request.param, request, tmp_path) as opened:
        assert isinstance(opened, SqlStore)
        yield opened


@pytest.fixture(params=SQL_BACKENDS)
def sql_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database (SQLite file or PostgreSQL schema), not yet migrated."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    with postgres_schema(request.getfixturevalue("postgres_admin")) as url:
        yield url


@pytest.fixture(scope="module", params=BACKENDS)
def loaded_store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Store]:
    """A store holding the fixture dataset, shared by a module's read-only tests."""
    with open_store(request.param, request, tmp_path_factory.mktemp("store")) as opened:
        load(opened)
        yield opened


@pytest.fixture(scope="module")
def reference() -> InMemoryStore:
    """The in-memory store holding the fixture dataset: the answer every store must give."""
    store = InMemoryStore()
    load(store)
    return store


@pytest.fixture(scope="session")
def all_schools() -> list[School]:
    """The fixture establishments, servable or not, as an importer would hand them over."""
    return fixture_schools()


@pytest.fixture(scope="session")
def served_urns() -> set[Urn]:
    return servable_urns()


@pytest.fixture(scope="session")
def all_postcodes() -> dict[str, list[tuple[str, Location]]]:
    """Postcodes by source, compact, as the postcode importers hand them over."""
    return fixture_postcodes()


def load(store: Store) -> None:
    with store.transaction() as tx:
        tx.replace_schools(schools=fixture_schools())
        for source, rows in fixture_postcodes().items():
            tx.replace_postcodes(postcodes=rows, source=source)
        tx.replace_links(links=fixture_links())
        tx.replace_measures(dataset="ks2_2024", records=fixture_measures())
        tx.replace_inspections(dataset="ofsted_mi", records=fixture_inspections())
        tx.record_dataset(record=fixture_dataset())


# ------------------------------------------------------------------------------ the dataset

# (code, name, centre) of each local authority in the fixture.
AUTHORITIES: dict[str, tuple[str, tuple[float, float]]] = {
    "Camden": ("202", (51.5390, -0.1426)),
    "Westminster": ("213", (51.4975, -0.1357)),
    "Islington": ("206", (51.5465, -0.1058)),
    "Hackney": ("204", (51.5450, -0.0553)),
    "Southwark": ("210", (51.5035, -0.0804)),
    "Hammersmith and Fulham": ("205", (51.4927, -0.2339)),
    "Birmingham": ("330", (52.4862, -1.8904)),
    "Solihull": ("334", (52.4118, -1.7776)),
    "Sandwell": ("333", (52.5050, -2.0100)),
}
SHARED_SITE = Location(51.5412, -0.1390)  # two schools on one site: equal distances tie

P, S, N, F, A, NA = (
    GiasPhase.PRIMARY,
    GiasPhase.SECONDARY,
    GiasPhase.NURSERY,
    GiasPhase.SIXTEEN_PLUS,
    GiasPhase.ALL_THROUGH,
    GiasPhase.NOT_APPLICABLE,
)
VA, VC, CS, FD = (
    "Voluntary aided school",
    "Voluntary controlled school",
    "Community school",
    "Foundation school",
)
AC, AS, FR, IND, SP = (
    "Academy converter",
    "Academy sponsor led",
    "Free schools",
    "Other independent school",
    "Community special school",
)

# urn, name, authority, type, phase, extra fields. Locations are spread around each
# authority's centre (see _place) unless given; `location=None` means unknown.
_SCHOOLS: list[tuple[int, str, str | None, str, GiasPhase, dict[str, Any]]] = [
    (100001, "St Mary’s Church of England Primary School", "Camden", VA, P,
     {"ofsted": (2, dt.date(2019, 5, 14)), "svc_score": 71.3, "religious_character": "Church of England"}),
    (100002, "St. Mary's RC High", "Camden", VA, S, {"location": SHARED_SITE, "svc_score": 64.0}),
    (100003, "Oakfield Academy", "Camden", AC, S, {"location": SHARED_SITE, "svc_score": 64.0}),
    (100004, "Oakfield Primary School", "Camden", CS, P, {"ofsted": (1, dt.date(2022, 1, 20))}),
    (100005, "Camden School for Girls", "Camden", FD, S, {"gender": "Girls", "ofsted": (1, dt.date(2018, 3, 1))}),
    (100006, "Hampstead Parochial Church of England Primary School", "Camden", VA, P, {}),
    (100007, "Primrose Hill Primary School", "Camden", CS, P, {"svc_score": 88.5}),
    (100008, "Regent High School", "Camden", CS, S, {"ofsted": (2, dt.date(2021, 11, 2))}),
    (100009, "St Marys Nursery School", "Camden", CS, N, {"location": None}),
    (100010, "Swiss Cottage School", "Camden", SP, NA, {}),
    (100011, "St Mary of the Angels RC Primary School", "Westminster", VA, P, {"svc_score": 52.0}),
    (100012, "Westminster City School", "Westminster", VA, S, {"gender": "Boys"}),
    (100013, "Grey Coat Hospital", "Westminster", VA, S, {"gender": "Girls", "svc_score": 91.2}),
    (100014, "St Marylebone CofE School", "Westminster", VA, S, {"gender": "Girls"}),
    (100015, "Pimlico Academy", "Westminster", AS, S, {"ofsted": (3, dt.date(2023, 6, 7))}),
    (100016, "Westminster Abbey Choir School", "Westminster", IND, P, {"gender": "Boys"}),
    (100017, "Churchill Gardens Primary Academy", "Westminster", AC, P, {"svc_score": 40.0}),
    (100018, "Hallfield Primary School", "Westminster", CS, P, {}),
    (100019, "King Solomon Academy", "Westminster", AS, A, {"svc_score": 97.5}),
    (100020, "Westminster Kingsway College", "Westminster", FD, F, {"status": "Closed"}),
    (100021, "St Mary Magdalene Academy", "Islington", AS, A, {"ofsted": (2, dt.date(2017, 9, 9))}),
    (100022, "Highbury Grove School", "Islington", AC, S, {}),
    (100023, "Camden Road Primary", "Islington", CS, P, {}),
    (100024, "Clerkenwell Parochial CofE Primary School", "Islington", VA, P,
     {"status": "Open, but proposed to close"}),
    (100025, "Islington Green School", "Islington", CS, S, {"status": "Closed"}),
    (100026, "Mossbourne Community Academy", "Hackney", AS, S, {"svc_score": 93.1}),
    (100027, "Our Lady’s Convent RC High School", "Hackney", VA, S, {"gender": "Girls"}),
    (100028, "Oakwood Primary", "Hackney", CS, P, {}),
    (100029, "St Saviour’s and St Olave’s Church of England School", "Southwark", VA, S,
     {"gender": "Girls"}),
    (100030, "Oakfield Academy", "Southwark", AC, S, {}),
    (100031, "Charles Dickens Primary School", "Southwark", CS, P, {"svc_score": 61.7}),
    (100032, "Harris Academy Bermondsey", "Southwark", AS, S, {"gender": "Girls"}),
    (100033, "St Mary’s Sixth Form College", "Southwark", FD, F, {}),
    (100034, "École Française Jacques Prévert", "Hammersmith and Fulham", IND, P, {}),
    (100035, "St Mary’s Catholic Primary School", "Birmingham", VA, P,
     {"ofsted": (2, dt.date(2016, 2, 2)), "svc_score": 58.4}),
    (100036, "St Mary's C of E Primary School, Handsworth", "Birmingham", VC, P, {}),
    (100037, "King Edward VI Camp Hill School for Boys", "Birmingham", FD, S,
     {"gender": "Boys", "svc_score": 99.1}),
    (100038, "King Edward VI High School for Girls", "Birmingham", IND, S, {"gender": "Girls"}),
    (100039, "Oaklands Primary School", "Birmingham", CS, P, {"svc_score": 33.3}),
    (100040, "Birmingham Ormiston Academy", "Birmingham", AS, F, {}),
    (100041, "Nishkam High School", "Birmingham", FR, A, {"ofsted": (1, dt.date(2015, 6, 30))}),
    (100042, "Bournville School", "Birmingham", FD, S, {}),
    (100043, "Small Heath Leadership Academy", "Birmingham", AS, S, {"ofsted": (4, dt.date(2019, 1, 8))}),
    (100044, "Selly Oak Nursery School", "Birmingham", CS, N, {}),
    (100045, "Four Dwellings Academy", "Birmingham", AS, S, {}),
    (100046, "Perry Beeches The Academy", "Birmingham", AS, S, {"status": "Closed"}),
    (100047, "Kings Norton Girls' School", "Birmingham", AC, S, {"gender": "Girls"}),
    (100048, "Summerfield Primary", "Birmingham", CS, P, {"location": None}),
    (100049, "Ark Victoria Academy", "Birmingham", AS, A, {}),
    (100050, "St Peter’s Catholic School", "Solihull", VA, S, {}),
    (100051, "Light Hall School", "Solihull", AC, S, {"svc_score": 70.0}),
    (100052, "Oak Cottage Primary School", "Solihull", CS, P, {}),
    (100053, "Sandwell Academy", "Sandwell", AS, S, {}),
    (100054, "St Michael’s Church of England High School", "Sandwell", VA, S, {}),
    (100055, "Holly Lodge High School", "Sandwell", FD, S, {"svc_score": 47.9}),
    (100056, "Westminster Tutors", None, IND, NA, {"location": None}),
    (100057, "St Mary & St John CE Primary", "Birmingham", VA, P, {}),
    (100058, "Saint Mary’s Primary", "Solihull", VA, P, {}),
    (100059, "St. Mary's RC High", "Birmingham", VA, S, {}),
    (100060, "Oakfield Academy", "Sandwell", AC, S, {"location": None}),
    (100061, "Hampden Gurney CofE Primary School", "Westminster", VA, P, {"svc_score": 52.0}),
    (100062, "Thomas Jones Primary School", "Camden", CS, P, {"status": "Proposed to open"}),
]  # fmt: skip


def _place(urn: int, authority: str) -> Location:
    """A deterministic spot within about two miles of the authority's centre."""
    lat, lon = AUTHORITIES[authority][1]
    return Location(lat + ((urn * 37) % 100 - 50) / 2000, lon + ((urn * 53) % 100 - 50) / 1500)


def _school(
    urn: int, name: str, authority: str | None, kind: str, phase: GiasPhase, extra: dict[str, Any]
) -> School:
    fields = dict(extra)
    if "location" not in fields:
        fields["location"] = None if authority is None else _place(urn, authority)
    if "ofsted" in fields:
        fields["ofsted"] = HistoricGrade(*fields["ofsted"])
    if "svc_score" not in fields:
        fields["score_suppressed_reason"] = "no_comparable_evidence"
    code = None if authority is None else AUTHORITIES[authority][0]
    return School(
        urn=Urn(urn),
        name=name,
        la_code=code,
        la_name=authority,
        establishment_number=f"{urn % 10000:04d}",
        type_name=kind,
        gias_phase=phase,
        **fields,
    )


def _complete_school() -> School:
    """Every field set, so the round trip through each store is checked field by field."""
    return School(
        urn=Urn(100063),
        name="Fitzjohn’s Primary School",
        status="Open",
        la_code="202",
        la_name="Camden",
        establishment_number="2345",
        type_name=CS,
        type_group="Local authority maintained schools",
        gias_phase=P,
        statutory_low_age=3,
        statutory_high_age=11,
        gender="Mixed",
        religious_character="Does not apply",
        admissions_policy="Not applicable",
        boarders="No boarders",
        nursery_provision="Has Nursery Classes",
        official_sixth_form="Does not have a sixth form",
        capacity=420,
        pupils=401,
        percentage_fsm=12.75,
        trust_name="Not applicable",
        street="86a Fitzjohn’s Avenue",
        locality="Hampstead",
        address3="Flat 1",
        town="London",
        county="Greater London",
        postcode="NW3 6NP",
        website="https://www.fitzjohns.camden.sch.uk",
        telephone="02074357404",
        region="London",
        district="Camden",
        ward="Frognal",
        parliamentary_constituency="Hampstead and Highgate",
        urban_rural="(England/Wales) Urban major conurbation",
        ukprn="10079999",
        uprn="5063999",
        open_date=dt.date(1954, 9, 1),
        location=Location(51.55123456789012, -0.17987654321098765),
        ofsted=HistoricGrade(2, dt.date(2023, 10, 4)),
        head_name="A Head",
        inspectorate_name="Ofsted",
        svc_score=81.4,
        score_suppressed_reason=None,
    )


def fixture_schools() -> list[School]:
    """63 establishments; 4 are not servable (closed or not yet open) and are never stored."""
    return [_school(*row) for row in _SCHOOLS] + [_complete_school()]


def servable_urns() -> set[Urn]:
    return {s.urn for s in fixture_schools() if is_servable_status(s.status)}


_POSTCODES: dict[str, list[tuple[str, float, float]]] = {
    "codepoint_open": [
        ("NW1 7AA", 51.5390, -0.1440),
        ("NW1 8NP", 51.5420, -0.1460),
        ("NW3 5UH", 51.5460, -0.1650),
        ("NW3 6NP", 51.5512, -0.1799),
        ("SW1P 3PB", 51.4960, -0.1310),
        ("SW1A 1AA", 51.5010, -0.1416),
        ("SW1V 3AT", 51.4890, -0.1400),
        ("N1 2XQ", 51.5380, -0.0990),
        ("E8 1HP", 51.5450, -0.0550),
        ("SE1 2JH", 51.5000, -0.0800),
        ("B1 1BB", 52.4800, -1.9020),
        ("B15 2TT", 52.4510, -1.9300),
        ("B15 3AA", 52.4600, -1.9250),
        ("B30 2HS", 52.4150, -1.9400),
        ("B91 3QW", 52.4120, -1.7780),
        ("B71 4LE", 52.5250, -1.9950),
    ],
    # A second source overlapping the first: it sorts last, so it wins NW1 7AA and B15 2TT.
    "onspd": [
        ("NW1 7AA", 51.5391, -0.1441),
        ("NW1 0JH", 51.5350, -0.1380),
        ("B15 2TT", 52.4512, -1.9301),
        ("B15 2TT", 52.4513, -1.9302),  # repeated within one file: the last occurrence wins
    ],
}


def fixture_postcodes() -> dict[str, list[tuple[str, Location]]]:
    return {
        source: [(without_spaces(pc).upper(), Location(lat, lon)) for pc, lat, lon in rows]
        for source, rows in _POSTCODES.items()
    }


def fixture_links() -> list[EstablishmentLink]:
    return [
        EstablishmentLink(Urn(100030), Urn(100025), "Islington Green School", "Predecessor",
                          dt.date(2010, 9, 1)),
        EstablishmentLink(Urn(100030), Urn(100046), None, "Merged - expansion", None),
        EstablishmentLink(Urn(100049), Urn(100046), "Perry Beeches The Academy", "Predecessor",
                          dt.date(2018, 1, 1)),
    ]  # fmt: skip


def fixture_measures() -> list[MeasureRecord]:
    code = "ks2_rwm_expected_percent"
    return [
        MeasureRecord(Urn(100001), "ks2_2024", "2023/24", code, reported(71.0), 30),
        MeasureRecord(Urn(100001), "ks2_2024", "2022/23", code, reported(65.5), 28),
        MeasureRecord(Urn(100004), "ks2_2024", "2023/24", code, suppressed("small_cohort"), 6),
        MeasureRecord(Urn(100007), "ks2_2024", "2023/24", code, reported(88.0), None),
        MeasureRecord(Urn(100007), "ks2_2024", "2023/24", "ks2_reading_average", missing()),
        MeasureRecord(Urn(100035), "ks2_2024_revised", "2023/24", code, reported(58.0, "low_reliability"), 45),
    ]  # fmt: skip


def fixture_inspections() -> list[InspectionRecord]:
    card = ReportCard(
        inspection_date=dt.date(2025, 11, 20),
        publication_date=dt.date(2025, 12, 15),
        inspection_type="Full inspection",
        areas={
            "inclusion": ReportCardScale.STRONG_STANDARD,
            "achievement": ReportCardScale.EXPECTED_STANDARD,
            "early_years": None,
        },
        safeguarding_met=True,
    )
    graded = GradedInspection(
        inspection_date=dt.date(2019, 5, 14),
        publication_date=None,
        inspection_type="Section 5",
        overall_effectiveness=2,
        sub_grades={"quality_of_education": 2, "sixth_form": None},
        safeguarding_effective=None,
    )
    return [
        InspectionRecord(Urn(100001), card, "10300001"),
        InspectionRecord(Urn(100001), graded, None),
        InspectionRecord(Urn(100035), graded, "10200002"),
    ]


def fixture_dataset() -> DatasetRecord:
    return DatasetRecord(
        name="gias_establishments",
        title="Get Information about Schools: establishments",
        publisher="Department for Education",
        licence="OGL-UK-3.0",
        attribution="Contains public sector information licensed under the OGL v3.0.",
        url="https://get-information-schools.service.gov.uk/Downloads",
        extract_date=dt.date(2025, 11, 20),
        imported_at=dt.datetime(2025, 11, 21, 6, 30, 15, 123456, tzinfo=dt.UTC),
        period="2025/26",
        cadence="daily",
        coverage="England",
        row_count=63,
        synthetic=False,
    )
