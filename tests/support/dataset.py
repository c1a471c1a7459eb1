"""A small, hand-built dataset with real places: the shared fixture of the REST/MCP/CLI tests."""

from __future__ import annotations

import datetime as dt

from schooldata.adapters.memory.store import InMemoryStore
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.geo import Location
from schooldata.domain.measure import reported, suppressed
from schooldata.domain.ofsted import HistoricGrade
from schooldata.domain.phase import GiasPhase
from schooldata.domain.results import MeasureRecord
from schooldata.domain.school import School
from schooldata.domain.urn import Urn

POSTCODES: dict[str, Location] = {
    "SW1A1AA": Location(51.501009, -0.141588),
    "SW1A2AA": Location(51.503540, -0.127695),
    "SW1P3BU": Location(51.495870, -0.131140),
    "WC2N5DU": Location(51.507350, -0.127580),
    "NW11AA": Location(51.534170, -0.138510),
    "B11AA": Location(52.480700, -1.901000),
    "B11BB": Location(52.478300, -1.908800),
    "B24QA": Location(52.481400, -1.893800),
}

_CAMDEN = ("202", "Camden")
_WESTMINSTER = ("213", "Westminster")
_BIRMINGHAM = ("330", "Birmingham")
_PRIMARY, _SECONDARY = GiasPhase.PRIMARY, GiasPhase.SECONDARY


def _school(
    urn: int,
    name: str,
    la: tuple[str, str],
    phase: GiasPhase | None,
    type_name: str,
    location: tuple[float, float] | None,
    **extra: object,
) -> School:
    return School(
        urn=Urn(urn),
        name=name,
        la_code=la[0],
        la_name=la[1],
        gias_phase=phase,
        type_name=type_name,
        location=Location(*location) if location else None,
        town="London" if la[1] != "Birmingham" else "Birmingham",
        postcode=str(extra.pop("postcode", "SW1A 1AA" if la[1] != "Birmingham" else "B1 1AA")),
        gender=str(extra.pop("gender", "Mixed")),
        head_name="Mrs Private Person",
        **extra,  # type: ignore[arg-type]
    )


SCHOOLS: tuple[School, ...] = (
    _school(
        100001,
        "St Mary’s Church of England Primary School",
        _WESTMINSTER,
        _PRIMARY,
        "Voluntary aided school",
        (51.4990, -0.1380),
        ofsted=HistoricGrade(2, dt.date(2019, 3, 5)),
    ),
    _school(
        100002,
        "St. Mary's Roman Catholic High School",
        _CAMDEN,
        _SECONDARY,
        "Academy converter",
        (51.5390, -0.1420),
        gender="Girls",
        ofsted=HistoricGrade(1, dt.date(2016, 6, 1)),
    ),
    _school(
        100003,
        "Westminster City School",
        _WESTMINSTER,
        _SECONDARY,
        "Voluntary aided school",
        (51.4980, -0.1350),
        gender="Boys",
    ),
    _school(
        100004,
        "Millbank Academy",
        _WESTMINSTER,
        _PRIMARY,
        "Academy sponsor led",
        (51.4920, -0.1300),
    ),
    _school(
        100005,
        "Camden School for Girls",
        _CAMDEN,
        _SECONDARY,
        "Voluntary aided school",
        (51.5480, -0.1330),
        gender="Girls",
    ),
    _school(
        100006,
        "Primrose Hill Primary School",
        _CAMDEN,
        _PRIMARY,
        "Community school",
        (51.5410, -0.1500),
    ),
    _school(
        100007,
        "Westminster Under School",
        _WESTMINSTER,
        None,
        "Other independent school",
        (51.4950, -0.1310),
        inspectorate_name="Independent Schools Inspectorate",
    ),
    _school(
        100008,
        "Soho Parish Church of England Primary School",
        _WESTMINSTER,
        _PRIMARY,
        "Voluntary aided school",
        (51.5120, -0.1350),
    ),
    _school(100009, "Regent High School", _CAMDEN, _SECONDARY, "Community school", None),
    _school(
        100010,
        "Kings Cross Nursery School",
        _CAMDEN,
        GiasPhase.NURSERY,
        "Local authority nursery school",
        (51.5300, -0.1230),
    ),
    _school(
        100011,
        "St Mary & St John CE School",
        _CAMDEN,
        GiasPhase.ALL_THROUGH,
        "Voluntary aided school",
        (51.5560, -0.1680),
    ),
    _school(
        100012,
        "Westminster Kingsway Sixth Form",
        _WESTMINSTER,
        GiasPhase.SIXTEEN_PLUS,
        "Further education",
        (51.5250, -0.1200),
    ),
    _school(
        100013,
        "Pimlico Middle School",
        _WESTMINSTER,
        GiasPhase.MIDDLE_DEEMED_PRIMARY,
        "Community school",
        (51.4890, -0.1390),
    ),
    _school(
        100014,
        "Birmingham Ormiston Academy",
        _BIRMINGHAM,
        _SECONDARY,
        "Free schools",
        (52.4830, -1.8890),
        postcode="B4 7QD",
    ),
    _school(
        100015,
        "St Mary’s Catholic Primary School",
        _BIRMINGHAM,
        _PRIMARY,
        "Voluntary aided school",
        (52.4700, -1.9000),
        postcode="B1 1BB",
    ),
    _school(
        100016,
        "Colmore Junior School",
        _BIRMINGHAM,
        _PRIMARY,
        "Community school",
        (52.4500, -1.8900),
    ),
    _school(
        100017,
        "King Edward VI Camp Hill School",
        _BIRMINGHAM,
        _SECONDARY,
        "Academy converter",
        (52.4330, -1.8800),
        gender="Boys",
    ),
    _school(
        100018,
        "Nechells Primary E-ACT Academy",
        _BIRMINGHAM,
        _PRIMARY,
        "Academy sponsor led",
        (52.4950, -1.8750),
    ),
    _school(
        100019,
        "Closed Example School",
        _WESTMINSTER,
        _PRIMARY,
        "Community school",
        (51.5000, -0.1400),
        status="Closed",
    ),
    _school(
        100020,
        "Proposed Example School",
        _WESTMINSTER,
        _PRIMARY,
        "Community school",
        (51.5000, -0.1400),
        status="Proposed to open",
    ),
    _school(
        100021,
        "Harris Academy Westminster",
        _WESTMINSTER,
        _SECONDARY,
        "Academy converter",
        (51.5010, -0.1420),
        status="Open, but proposed to close",
    ),
)

OPEN_URNS = tuple(
    s.urn.value for s in SCHOOLS if s.status != "Closed" and "Proposed to" not in s.status
)


def _measures() -> list[MeasureRecord]:
    records = []
    secondary = [100002, 100003, 100005, 100014, 100017, 100021]
    for i, urn in enumerate(secondary):
        records.append(
            MeasureRecord(
                Urn(urn),
                "ks4_results",
                "2024/25",
                "ks4_attainment8_average",
                reported(40.0 + 3 * i),
                cohort=120,
            )
        )
    records.append(
        MeasureRecord(
            Urn(100009),
            "ks4_results",
            "2024/25",
            "ks4_attainment8_average",
            suppressed("small_cohort"),
            cohort=4,
        )
    )
    return records


def build_store(now: dt.datetime | None = None) -> InMemoryStore:
    """The fixture dataset imported the way real data is: one transaction, then rescored,
    as the first data version (what the register lists of every school kept beside it)."""
    from schooldata.application.rescore import compute_scores
    from schooldata.domain.links import Establishment

    stamp = now or dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)
    store = InMemoryStore()
    with store.transaction() as tx:
        tx.replace_schools(schools=SCHOOLS)
        tx.replace_establishments(
            establishments=[
                Establishment(urn=s.urn, name=s.name, status=s.status, opened=s.open_date)
                for s in SCHOOLS
            ]
        )
        tx.replace_postcodes(postcodes=POSTCODES.items(), source="codepoint_open")
        tx.replace_measures(dataset="ks4_results", records=_measures())
        tx.set_scores(
            scores=compute_scores(
                tx.served_schools(), tx.measures(codes={"ks4_attainment8_average"})
            )
        )
        tx.record_dataset(
            record=DatasetRecord(
                name="gias_establishments",
                title="Get Information about Schools: establishments (test fixture)",
                publisher="Department for Education",
                licence="Open Government Licence v3.0",
                attribution="Contains public sector information licensed under the Open Government Licence v3.0.",
                url="https://get-information-schools.service.gov.uk/Downloads",
                extract_date=dt.date(2026, 10, 31),
                imported_at=stamp,
                row_count=len(SCHOOLS),
                synthetic=True,
            )
        )
        tx.record_version(
            made_at=stamp,
            datasets=("gias_establishments",),
            changes=(),
            retain_since=stamp - dt.timedelta(days=400),
        )
    return store
