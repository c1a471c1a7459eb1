"""Results, compare and rankings once several years and several files are held.

A publisher's file is one year; years accumulate. What is current is always the newest period
of the school's topic: an older figure is history with its own period, never the current value
(Progress 8 in 2024/25, 16-18 destinations other than the 2022/23 cohort).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from tests.support.operations import Operations

from schooldata.application.import_dataset import DatasetKind
from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap_memory
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.measure import Measure, parse_ees, reported
from schooldata.domain.phase import GiasPhase
from schooldata.domain.plans import PlanCatalogue
from schooldata.domain.results import MeasureRecord
from schooldata.domain.school import School
from schooldata.domain.urn import Urn
from schooldata.entrypoints.wire import school_topics
from schooldata.ports.imports import RejectLog

SECONDARY, SIXTH_FORM = 100201, 100202


def dataset(name: str) -> DatasetRecord:
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


def load(
    app: Application, name: str, rows: list[tuple[int, str, str, Measure, int | None]]
) -> None:
    records = [MeasureRecord(Urn(u), name, p, code, m, c) for u, p, code, m, c in rows]
    app.import_dataset.execute(
        kind=DatasetKind.MEASURES, items=records, log=RejectLog(), record=dataset(name)
    )


@pytest.fixture
def app() -> Application:
    application = bootstrap_memory()
    schools = [
        School(urn=Urn(SECONDARY), name="Hillside Academy", gias_phase=GiasPhase.SECONDARY),
        School(urn=Urn(SIXTH_FORM), name="Sixth Form College", gias_phase=GiasPhase.SIXTEEN_PLUS),
    ]
    application.import_dataset.execute(
        kind=DatasetKind.SCHOOLS,
        items=schools,
        log=RejectLog(),
        record=dataset("gias_establishments"),
    )
    # Two annual KS4 files, imported one after the other: 2023/24 (with Progress 8), then
    # 2024/25 (Attainment 8 only: no KS2 baseline, no Progress 8 column).
    load(
        application,
        "ks4_results",
        [
            (SECONDARY, "2023/24", "ks4_attainment8_average", reported(44.0), 150),
            (SECONDARY, "2023/24", "ks4_progress8_average", reported(0.31), 150),
        ],
    )
    load(
        application,
        "ks4_results",
        [(SECONDARY, "2024/25", "ks4_attainment8_average", reported(46.5), 160)],
    )
    return application


def series(answer: dict[str, Any], topic: str, code: str) -> dict[str, Any]:
    (found,) = [s for s in answer[topic]["measures"] if s["code"] == code]
    return found


def test_last_years_results_stay_as_the_trend_after_this_years_file(app: Application) -> None:
    answer = school_topics(app.school_data.results(str(SECONDARY)))
    attainment8 = series(answer, "ks4", "ks4_attainment8_average")
    assert attainment8["latest"] == {
        "value": 46.5,
        "status": "reported",
        "period": "2024/25",
        "cohort": 160,
    }
    assert [p["value"] for p in attainment8["trend"]] == [44.0, 46.5]


def test_an_older_progress8_is_history_never_the_current_value(app: Application) -> None:
    answer = school_topics(app.school_data.results(str(SECONDARY)))
    progress8 = series(answer, "ks4", "ks4_progress8_average")
    assert progress8["latest"]["period"] == "2024/25"
    assert progress8["latest"]["value"] is None
    assert progress8["latest"]["reason"] == "no_ks2_baseline"
    assert progress8["trend"][0] == {
        "value": 0.31,
        "status": "reported",
        "period": "2023/24",
        "cohort": 150,
    }


def test_compare_shows_the_newest_periods_progress8_as_null_not_last_years(
    app: Application,
) -> None:
    other = School(urn=Urn(100203), name="Other", gias_phase=GiasPhase.SECONDARY)
    app.import_dataset.execute(
        kind=DatasetKind.SCHOOLS,
        items=[app.get_school.execute(str(SECONDARY)), other],
        log=RejectLog(),
        record=dataset("gias_establishments"),
        allow_shrink=True,  # the sixth form college goes: this test is not about that
    )
    plan = PlanCatalogue().get("enterprise")
    comparison = Operations.of(app).call(
        "compareSchools", {"urns": [str(SECONDARY), "100203"]}, plan
    )
    period, progress8 = comparison.measures[Urn(SECONDARY)]["ks4_progress8_average"]
    assert (period, progress8.value, progress8.reason) == ("2024/25", None, "no_ks2_baseline")
    period, attainment8 = comparison.measures[Urn(SECONDARY)]["ks4_attainment8_average"]
    assert (period, attainment8.value) == ("2024/25", 46.5)


def test_a_reported_figure_wins_over_a_suppression_from_another_file_for_the_same_year(
    app: Application,
) -> None:
    # The KS4 information file suppressed the pupil count; the results file published it.
    load(
        app,
        "ks4_information",
        [(SECONDARY, "2024/25", "ks4_end_pupil_count", parse_ees("c"), None)],
    )
    load(
        app,
        "ks4_results",
        [
            (SECONDARY, "2024/25", "ks4_attainment8_average", reported(46.5), 160),
            (SECONDARY, "2024/25", "ks4_end_pupil_count", reported(160), 160),
        ],
    )
    answer = school_topics(app.school_data.results(str(SECONDARY)))
    count = series(answer, "ks4", "ks4_end_pupil_count")
    assert count["latest"]["value"] == 160.0


def test_an_older_destinations_cohort_is_history_never_labelled_the_current_cohort(
    app: Application,
) -> None:
    load(
        app,
        "ks5_destinations",
        [(SIXTH_FORM, "2020/21", "ks5_sustained_destination_percent", reported(88.0), 120)],
    )
    answer = school_topics(app.school_data.results(str(SIXTH_FORM)))
    sustained = series(answer, "16_18_destinations", "ks5_sustained_destination_percent")
    assert answer["16_18_destinations"]["periods"] == ["2020/21", "2022/23"]
    assert sustained["latest"]["period"] == "2022/23"
    assert sustained["latest"]["value"] is None  # no 2022/23 figure: shown missing
    assert sustained["trend"][0]["period"] == "2020/21"
    assert sustained["trend"][0]["value"] == 88.0


def test_rankings_of_a_year_use_that_years_figures(app: Application) -> None:
    plan = PlanCatalogue().get("enterprise")
    ranking = Operations.of(app).call(
        "getRankings", {"metric": "ks4_progress8_average", "phase": "secondary"}, plan
    )
    # 2024/25 has no Progress 8: nobody is ranked on last year's figure as if it were current.
    assert ranking.total == 0
    assert ranking.period == "2024/25"
