"""The shared test dataset with every kind of record an answer can carry: inspections under
each framework, links, measures of every topic (with trends, notes and each status) and
several dataset records and data versions, and the releases of results years (some known,
some not), so every branch of every output shape is rendered somewhere."""

from __future__ import annotations

import datetime as dt

from tests.support.dataset import build_store

from schooldata.adapters.memory.store import InMemoryStore
from schooldata.domain.changes import ChangeKind, SchoolChange, Whereabouts
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.links import EstablishmentLink
from schooldata.domain.measure import Measure, missing, not_applicable, reported, suppressed
from schooldata.domain.ofsted import (
    GradedInspection,
    InspectionRecord,
    ReportCard,
    ReportCardScale,
    UngradedInspection,
)
from schooldata.domain.phase import Phase
from schooldata.domain.releases import Release, ReleaseStatus
from schooldata.domain.results import MeasureRecord
from schooldata.domain.urn import Urn

STAMP = dt.datetime(2026, 11, 2, 8, 30, 15, 250000, tzinfo=dt.UTC)


def _inspections() -> list[InspectionRecord]:
    areas = {
        "inclusion": ReportCardScale.STRONG_STANDARD,
        "curriculum_and_teaching": ReportCardScale.EXPECTED_STANDARD,
        "achievement": ReportCardScale.EXCEPTIONAL,
        "early_years": None,
    }
    return [
        InspectionRecord(
            Urn(100001),
            GradedInspection(
                dt.date(2019, 3, 5),
                dt.date(2019, 4, 1),
                "S5",
                2,
                {"quality_of_education": 2, "sixth_form": None},
                True,
            ),
            "10000001",
        ),
        InspectionRecord(
            Urn(100001),
            UngradedInspection(dt.date(2023, 1, 10), None, "S8", "School remains Good"),
            "10000002",
        ),
        InspectionRecord(
            Urn(100001),
            ReportCard(dt.date(2025, 12, 1), dt.date(2026, 1, 5), "Report card", areas, True),
            "10000003",
        ),
        InspectionRecord(
            Urn(100002),
            ReportCard(dt.date(2026, 2, 3), None, None, {"inclusion": None}, None),
        ),
        InspectionRecord(
            Urn(100002),
            GradedInspection(dt.date(2024, 10, 1), None, None, None, {}, None),
            "10000004",
        ),
        InspectionRecord(
            Urn(100003),
            ReportCard(
                dt.date(2026, 3, 3),
                None,
                "Report card",
                {"inclusion": ReportCardScale.URGENT_IMPROVEMENT},
                False,
            ),
            "10000005",
        ),
        InspectionRecord(
            Urn(100019),
            GradedInspection(dt.date(2018, 5, 2), None, "S5", 3, {}, True),
            "10000006",
        ),
    ]


def _m(
    urn: int, dataset: str, period: str, code: str, measure: Measure, cohort: int | None = None
) -> MeasureRecord:
    return MeasureRecord(Urn(urn), dataset, period, code, measure, cohort)


def _measures() -> dict[str, list[MeasureRecord]]:
    return {
        "ks2_results": [
            _m(100001, "ks2_results", "2023/24", "ks2_rwm_expected_percent", reported(61), 30),
            _m(100001, "ks2_results", "2024/25", "ks2_rwm_expected_percent", reported(64.5), 31),
            _m(100001, "ks2_results", "2024/25", "ks2_rwm_higher_percent", suppressed("c")),
            _m(100004, "ks2_results", "2024/25", "ks2_rwm_expected_percent", reported(70.25)),
            _m(100006, "ks2_results", "2024/25", "ks2_rwm_expected_percent", reported(55)),
            _m(100019, "ks2_results", "2023/24", "ks2_rwm_expected_percent", reported(48), 28),
        ],
        "ks4_results_extra": [
            _m(100002, "ks4_results_extra", "2023/24", "ks4_progress8_average", reported(0.31)),
            _m(100002, "ks4_results_extra", "2024/25", "ks4_progress8_average", reported(0.12)),
            _m(100002, "ks4_results_extra", "2023/24", "ks4_attainment8_average", reported(41.5)),
        ],
        "ks5_results": [
            _m(100012, "ks5_results", "2024/25", "ks5_aps_per_entry", reported(38.2, "low_reliability")),
            _m(100012, "ks5_results", "2024/25", "ks5_aps_per_entry_academic", not_applicable()),
        ],
        "ks5_destinations": [
            _m(100012, "ks5_destinations", "2022/23", "ks5_sustained_destination_percent", reported(91), 200),
            _m(100012, "ks5_destinations", "2022/23", "ks5_apprenticeship_destination_percent", missing()),
        ],
        "admissions": [
            _m(100002, "admissions", "2025/26", "admissions_secondary_places_offered", reported(180)),
            _m(100002, "admissions", "2025/26", "admissions_secondary_applications", reported(912)),
            _m(100011, "admissions", "2025/26", "admissions_primary_places_offered", reported(60)),
            _m(100011, "admissions", "2025/26", "admissions_secondary_places_offered", suppressed("small_cohort")),
        ],
        "finance": [
            _m(100001, "finance", "2023/24", "finance_total_income", reported(1850000)),
            _m(100001, "finance", "2024/25", "finance_total_income", reported(1901234.5)),
            _m(100001, "finance", "2024/25", "finance_revenue_reserve", missing("not_published")),
        ],
    }  # fmt: skip


def _dataset(name: str, *, url: str | None, extract: dt.date | None) -> DatasetRecord:
    return DatasetRecord(
        name=name,
        title=f"{name} (test fixture)",
        publisher="Department for Education",
        licence="Open Government Licence v3.0",
        attribution="Contains public sector information licensed under the OGL v3.0.",
        url=url,
        extract_date=extract,
        imported_at=STAMP,
        row_count=7,
        period="2024/25",
    )


CONVERTED = dt.date(2021, 9, 1)


def _changes() -> list[SchoolChange]:
    """What the rich dataset's second version says it changed (one of each kind)."""
    camden = Whereabouts(la_code="202", la_name="Camden", phase=Phase.SECONDARY)
    westminster = Whereabouts(la_code="213", la_name="Westminster", phase=Phase.PRIMARY)
    return [
        SchoolChange(urn=Urn(100001), kind=ChangeKind.INSPECTION_ADDED,
                     inspection_date=dt.date(2025, 12, 1), where=westminster),
        SchoolChange(urn=Urn(100001), kind=ChangeKind.RESULTS_ADDED, key_stage="ks2",
                     year="2024/25", where=westminster),
        SchoolChange(urn=Urn(100002), kind=ChangeKind.UPDATED,
                     fields=("name", "ofsted_rating", "ofsted"), where=camden),
        SchoolChange(urn=Urn(100006), kind=ChangeKind.LINKED, linked_urn=Urn(100019),
                     link_type="Predecessor"),
        SchoolChange(urn=Urn(100019), kind=ChangeKind.CLOSED, where=westminster),
    ]  # fmt: skip


def build_rich_store() -> InMemoryStore:
    store = build_store()
    with store.transaction() as tx:
        tx.replace_inspections(dataset="ofsted_report_card", records=_inspections())
        tx.replace_links(
            links=[
                EstablishmentLink(
                    Urn(100002), Urn(100009), "Regent High School", "Successor", dt.date(2020, 9, 1)
                ),
                EstablishmentLink(Urn(100002), Urn(100046), None, "Merged - expansion", None),
                # A conversion: the closed 100019's history is 100006's predecessors'.
                EstablishmentLink(
                    Urn(100006), Urn(100019), "Closed Example School", "Predecessor", CONVERTED
                ),
                EstablishmentLink(
                    Urn(100019), Urn(100006), "Primrose Hill Primary School", "Successor", CONVERTED
                ),
            ]
        )
        for dataset, records in _measures().items():
            tx.replace_measures(dataset=dataset, records=records)
        tx.record_dataset(
            record=_dataset("ofsted_report_card", url="https://example.org/ofsted", extract=None)
        )
        tx.record_dataset(record=_dataset("ks2_results", url=None, extract=dt.date(2026, 9, 30)))
        tx.set_releases(
            dataset="ks2_results",
            releases=[
                Release(
                    dataset="ks2_results",
                    period="2024/25",
                    status=ReleaseStatus.REVISED,
                    released=dt.date(2026, 9, 30),
                ),
                Release(dataset="ks2_results", period="2023/24", status=ReleaseStatus.FINAL),
            ],
        )
        tx.record_version(
            made_at=STAMP,
            datasets=("ofsted_report_card", "ks2_results", "gias_links"),
            changes=_changes(),
            retain_since=STAMP - dt.timedelta(days=400),
        )
    return store
