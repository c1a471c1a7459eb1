"""Whole-dataset exports hold what the per-school answers hold, for every school in scope, in
URN order, streamed; the filters and the dataset are checked like the API's parameters."""

from __future__ import annotations

import datetime as dt

import attrs
import pytest

from schooldata.application.exports import (
    Dataset,
    InspectionRow,
    MeasureRow,
    Release,
    release_of,
)
from schooldata.application.import_dataset import DatasetKind
from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap_memory
from schooldata.domain.catalogue import Topic
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.errors import InvalidParameter
from schooldata.domain.measure import MeasureStatus, reported, suppressed
from schooldata.domain.ofsted import (
    GradedInspection,
    InspectionRecord,
    ReportCard,
    ReportCardScale,
    inspection_history,
)
from schooldata.domain.phase import GiasPhase
from schooldata.domain.releases import Release as DatasetRelease
from schooldata.domain.releases import ReleaseStatus
from schooldata.domain.results import MeasureRecord
from schooldata.domain.school import School
from schooldata.domain.urn import Urn
from schooldata.ports.imports import RejectLog

CAMDEN_SECONDARY, WESTMINSTER_PRIMARY, WESTMINSTER_SECONDARY, NOT_SERVED = (
    100301,
    100302,
    100303,
    100399,
)


def record(name: str) -> DatasetRecord:
    return DatasetRecord(
        name=name,
        title=name,
        publisher="Department for Education",
        licence="Open Government Licence v3.0",
        attribution="OGL",
        url=None,
        extract_date=None,
        imported_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
    )


def school(urn: int, name: str, phase: GiasPhase, la: str, code: str) -> School:
    return School(urn=Urn(urn), name=name, gias_phase=phase, la_name=la, la_code=code)


def measures(dataset: str, *rows: tuple[int, str, str, object]) -> list[MeasureRecord]:
    return [MeasureRecord(Urn(u), dataset, p, c, m, 120) for u, p, c, m in rows]  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def app() -> Application:
    application = bootstrap_memory()

    def load(kind: DatasetKind, items: list[object], name: str) -> None:
        application.import_dataset.execute(
            kind=kind, items=items, log=RejectLog(), record=record(name)
        )

    load(
        DatasetKind.SCHOOLS,
        [
            school(
                WESTMINSTER_SECONDARY, "Abbey School", GiasPhase.SECONDARY, "Westminster", "213"
            ),
            school(CAMDEN_SECONDARY, "Hill School", GiasPhase.SECONDARY, "Camden", "202"),
            school(WESTMINSTER_PRIMARY, "Park Primary", GiasPhase.PRIMARY, "Westminster", "213"),
        ],
        "gias_establishments",
    )
    load(
        DatasetKind.MEASURES,
        measures(
            "ks4_results",
            (CAMDEN_SECONDARY, "2023/24", "ks4_attainment8_average", reported(44.0)),
            (CAMDEN_SECONDARY, "2023/24", "ks4_progress8_average", reported(0.3)),
            (CAMDEN_SECONDARY, "2024/25", "ks4_attainment8_average", reported(46.5)),
            (
                WESTMINSTER_SECONDARY,
                "2024/25",
                "ks4_attainment8_average",
                suppressed("small_cohort"),
            ),
            (NOT_SERVED, "2024/25", "ks4_attainment8_average", reported(50.0)),
        ),  # type: ignore[arg-type]
        "ks4_results",
    )
    load(
        DatasetKind.MEASURES,
        measures(
            "admissions",
            (WESTMINSTER_PRIMARY, "2025/26", "admissions_primary_offers", reported(30.0)),
        ),  # type: ignore[arg-type]
        "admissions",
    )
    graded = GradedInspection(dt.date(2019, 5, 1), None, "S5", 2, {}, True)
    card = ReportCard(
        dt.date(2026, 1, 20), None, "S5", {"inclusion": ReportCardScale.STRONG_STANDARD}, True
    )
    load(
        DatasetKind.INSPECTIONS,
        [
            InspectionRecord(Urn(CAMDEN_SECONDARY), graded, "1"),
            InspectionRecord(Urn(CAMDEN_SECONDARY), card, "2"),
            InspectionRecord(Urn(WESTMINSTER_PRIMARY), graded, "3"),
            InspectionRecord(Urn(NOT_SERVED), card, "4"),
        ],  # type: ignore[list-item]
        "ofsted_graded",
    )
    return application


def rows(app: Application, dataset: str, **filters: str) -> list[object]:
    return list(app.exports.rows(app.exports.prepare(dataset, **filters)))


def test_the_register_is_every_open_school_in_urn_order(app: Application) -> None:
    schools = rows(app, "schools")
    assert [s.urn for s in schools] == [  # type: ignore[attr-defined]
        CAMDEN_SECONDARY,
        WESTMINSTER_PRIMARY,
        WESTMINSTER_SECONDARY,
    ]


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"local_authority": "camden"}, [CAMDEN_SECONDARY]),
        ({"local_authority": "213"}, [WESTMINSTER_PRIMARY, WESTMINSTER_SECONDARY]),
        ({"phase": "secondary"}, [CAMDEN_SECONDARY, WESTMINSTER_SECONDARY]),
        ({"local_authority": "Westminster", "phase": "primary"}, [WESTMINSTER_PRIMARY]),
        ({"local_authority": "Nowhere"}, []),
    ],
)
def test_filters_take_an_authority_by_name_or_code_and_a_phase(
    app: Application, filters: dict[str, str], expected: list[int]
) -> None:
    assert [s.urn for s in rows(app, "schools", **filters)] == expected  # type: ignore[attr-defined]
    assert app.exports.count(app.exports.prepare("schools", **filters)) == len(expected)


def test_results_are_each_schools_results_answer_row_by_row(app: Application) -> None:
    exported = rows(app, "results")
    assert all(isinstance(r, MeasureRow) for r in exported)
    for urn in (CAMDEN_SECONDARY, WESTMINSTER_SECONDARY):
        answer = app.school_data.results(str(urn))
        expected = [
            (topic.topic, point.period, series.code, point.measure, point.cohort)
            for topic in answer.topics
            for series in topic.series
            for point in series.trend
        ]
        mine = [
            (r.topic, r.period, r.code, r.measure, r.cohort)
            for r in exported
            if r.school.urn == urn  # type: ignore[attr-defined]
        ]
        assert mine == expected and mine
    assert {r.school.urn for r in exported} == {CAMDEN_SECONDARY, WESTMINSTER_SECONDARY}  # type: ignore[attr-defined]


def test_a_year_without_a_figure_is_a_null_row_with_its_reason_never_left_out(
    app: Application,
) -> None:
    progress8 = [
        r
        for r in rows(app, "results", local_authority="Camden")
        if r.code == "ks4_progress8_average"  # type: ignore[attr-defined]
    ]
    by_year = {r.period: r.measure for r in progress8}  # type: ignore[attr-defined]
    assert by_year["2023/24"].value == 0.3
    assert by_year["2024/25"].value is None and by_year["2024/25"].reason == "no_ks2_baseline"
    suppressed_row = next(
        r
        for r in rows(app, "results", local_authority="Westminster")
        if r.code == "ks4_attainment8_average"  # type: ignore[attr-defined]
    )
    assert suppressed_row.measure.status is MeasureStatus.SUPPRESSED  # type: ignore[attr-defined]


def test_release_status_is_unknown_until_the_data_carries_it(app: Application) -> None:
    assert {r.release for r in rows(app, "results")} == {Release()}  # type: ignore[attr-defined]
    assert release_of(None, {}) == Release(status=None, released_on=None)


def test_a_figure_carries_its_years_release_and_no_other_years() -> None:
    figure = MeasureRecord(
        urn=Urn(100001), dataset="ks4", period="2023/24", code="x", measure=reported(1.0)
    )
    final = DatasetRelease(
        dataset="ks4", period="2023/24", status=ReleaseStatus.FINAL, released=dt.date(2025, 2, 6)
    )
    other_year = attrs.evolve(final, period="2024/25")
    assert release_of(figure, {("ks4", "2023/24"): final}) == Release(
        status="final", released_on=dt.date(2025, 2, 6)
    )
    assert release_of(figure, {("ks4", "2024/25"): other_year}) == Release()


def test_admissions_and_finance_hold_only_their_topic(app: Application) -> None:
    admissions = rows(app, "admissions")
    assert [(r.school.urn, r.topic, r.code) for r in admissions] == [  # type: ignore[attr-defined]
        (WESTMINSTER_PRIMARY, Topic.ADMISSIONS, "admissions_primary_offers")
    ]
    assert rows(app, "finance") == []


def test_inspections_are_each_schools_history_newest_first(app: Application) -> None:
    exported = rows(app, "inspections")
    assert all(isinstance(r, InspectionRow) for r in exported)
    camden = [r.record for r in exported if r.school.urn == CAMDEN_SECONDARY]  # type: ignore[attr-defined]
    assert camden == inspection_history(
        app.ports.inspections.inspections_for(urn=Urn(CAMDEN_SECONDARY))
    )
    assert [r.framework for r in camden] == ["report_card", "graded"]
    assert NOT_SERVED not in {r.school.urn for r in exported}  # type: ignore[attr-defined]


def test_progress_counts_the_schools_done(app: Application) -> None:
    seen: list[int] = []
    request = app.exports.prepare("results")
    list(app.exports.rows(request, seen.append))
    assert seen == [1, 2, 3]


@pytest.mark.parametrize(
    ("dataset", "filters", "parameter"),
    [
        ("nosuch", {}, "dataset"),
        (3, {}, "dataset"),
        ("results", {"phase": "middle"}, "phase"),
        ("results", {"local_authority": 202}, "local_authority"),
    ],
)
def test_a_bad_dataset_or_filter_is_an_invalid_parameter(
    app: Application, dataset: object, filters: dict[str, object], parameter: str
) -> None:
    with pytest.raises(InvalidParameter) as refused:
        app.exports.prepare(dataset, **filters)
    assert refused.value.details["parameter"] == parameter


def test_dataset_names_are_read_in_any_case(app: Application) -> None:
    assert app.exports.prepare("Results").dataset is Dataset.RESULTS
