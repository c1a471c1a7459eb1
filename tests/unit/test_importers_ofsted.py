"""Ofsted MI files in each layout Ofsted has published: report cards, graded, latest inspections."""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path

import pytest
from tests.support import ofsted_mi

from schooldata.adapters.importers.ofsted import (
    DATASET_ALL,
    DATASET_GRADED,
    DATASET_LATEST,
    DATASET_REPORT_CARD,
    dataset_of,
    parse_ofsted,
)
from schooldata.domain.errors import ImportRejected
from schooldata.domain.ofsted import (
    GradedInspection,
    HistoricGrade,
    InspectionRecord,
    ReportCard,
    ReportCardScale,
    UngradedInspection,
    inspection_history,
    latest_graded_outcomes,
)
from schooldata.domain.urn import Urn
from schooldata.ports.imports import RejectLog

AREAS_2026 = {
    "Inclusion": "Strong standard",
    "Curriculum and teaching": "Expected standard",
    "Achievement": "Needs attention",
    "Attendance and behaviour": "Expected standard",
    "Personal development and wellbeing": "Exceptional",
    "Leadership and governance": "Strong standard",
    "Early years (where applicable)": "Not applicable",
    "Post-16 provision (where applicable)": "NULL",
    "Safeguarding standards": "Met",
}
OEIF = {
    "Inspection number of latest OEIF graded inspection": "10211111",
    "Inspection start date of latest OEIF graded inspection": "07/03/2022",
    "Publication date of latest OEIF graded inspection": "11/04/2022",
    "Latest OEIF overall effectiveness": "2",
    "Latest OEIF quality of education": "2",
    "Latest OEIF behaviour and attitudes": "1",
    "Latest OEIF personal development": "2",
    "Latest OEIF effectiveness of leadership and management": "2",
    "Latest OEIF early years provision (where applicable)": "9",
}


def write(path: Path, header: list[str], rows: list[dict[str, str]]) -> Path:
    with path.open("w", newline="", encoding="cp1252") as out:
        writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
        writer.writerow(header)
        writer.writerows(ofsted_mi.row(header, cells) for cells in rows)
    return path


def parse(path: Path) -> tuple[list[InspectionRecord], RejectLog]:
    log = RejectLog()
    return list(parse_ofsted(path, log)), log


def latest_file(tmp_path: Path, rows: list[dict[str, str]]) -> Path:
    name = (
        "Management_information_-_state-funded_schools_-_latest_inspections_as_at_31_Jan_2026.csv"
    )
    return write(tmp_path / name, ofsted_mi.LATEST, rows)


def test_the_latest_inspections_file_gives_a_report_card_and_the_historic_grade(
    tmp_path: Path,
) -> None:
    path = latest_file(
        tmp_path,
        [
            {
                "URN": "100001",
                "Inspection number of latest full inspection": "10400001",
                "Inspection type": "Full inspection",
                "Inspection start date": "20/01/2026",
                "Publication date": "25/02/2026",
                **AREAS_2026,
                **OEIF,
            }
        ],
    )
    assert dataset_of(path) == DATASET_LATEST
    records, log = parse(path)
    assert log.rejects == [] and log.skipped == 0
    report, graded = sorted(records, key=lambda r: r.framework, reverse=True)
    assert isinstance(report.inspection, ReportCard)
    assert report.inspection.inspection_date == dt.date(2026, 1, 20)
    assert report.inspection_number == "10400001"
    assert report.inspection.safeguarding_met is True
    areas = report.inspection.areas
    assert areas["inclusion"] is ReportCardScale.STRONG_STANDARD
    assert areas["personal_development_and_well_being"] is ReportCardScale.EXCEPTIONAL
    assert areas["early_years"] is None and areas["post_16"] is None
    assert isinstance(graded.inspection, GradedInspection)
    assert graded.inspection_number == "10211111"
    assert graded.inspection.inspection_date == dt.date(2022, 3, 7)
    assert graded.inspection.publication_date == dt.date(2022, 4, 11)
    assert graded.inspection.overall_effectiveness == 2
    assert graded.inspection.sub_grades["behaviour_and_attitudes"] == 1
    assert graded.inspection.sub_grades["early_years"] is None  # 9: no judgement
    # The historic grade comes from the graded inspection only, with its own date.
    historic = latest_graded_outcomes(records)[Urn(100001)]
    assert (historic.grade, historic.inspection_date) == (2, dt.date(2022, 3, 7))


def test_a_school_with_no_inspection_yet_is_skipped_not_rejected(tmp_path: Path) -> None:
    only_graded = {"URN": "100002", **OEIF}
    never = {"URN": "100003"}
    records, log = parse(latest_file(tmp_path, [only_graded, never]))
    assert [r.framework for r in records] == ["graded"]
    assert log.rejects == [] and log.skipped == 1 and log.rows_read == 2


def test_a_date_that_is_not_a_date_rejects_the_whole_row(tmp_path: Path) -> None:
    bad = {"URN": "100004", "Inspection start date": "31/13/2026", **AREAS_2026, **OEIF}
    records, log = parse(latest_file(tmp_path, [bad]))
    assert records == []
    assert log.rejects == [(2, "URN 100004: inspection start date '31/13/2026' is not a date")]


def test_the_first_report_card_layout_still_imports(tmp_path: Path) -> None:
    cells = {
        "URN": "100005",
        "Inspection number": "10400005",
        "Inspection start date": "01/12/2025",
        "Inclusion": "Urgent improvement",
        "Personal development and well-being": "Expected standard",
        "Early years": "Needs attention",
        "Safeguarding": "Not met",
    }
    path = write(tmp_path / "report_cards.csv", ofsted_mi.REPORT_CARD, [cells])
    assert dataset_of(path) == DATASET_REPORT_CARD
    (record,), _ = parse(path)
    assert isinstance(record.inspection, ReportCard)
    assert record.inspection.safeguarding_met is False
    assert record.inspection.areas["early_years"] is ReportCardScale.NEEDS_ATTENTION
    assert record.inspection.areas["achievement"] is None


def test_the_historic_graded_layout_treats_null_dates_as_no_inspection(tmp_path: Path) -> None:
    graded = {
        "URN": "100006",
        "Inspection number": "10100006",
        "Inspection start date": "14/05/2019",
        "Overall effectiveness": "3",
        "Safeguarding is effective?": "Yes",
    }
    path = write(tmp_path / "graded.csv", ofsted_mi.GRADED, [graded, {"URN": "100007"}])
    assert dataset_of(path) == DATASET_GRADED
    records, log = parse(path)
    (record,) = records
    assert isinstance(record.inspection, GradedInspection)
    assert record.inspection.overall_effectiveness == 3
    assert record.inspection.safeguarding_effective is True
    assert log.skipped == 1 and log.rejects == []


def test_a_file_without_either_framework_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "not_ofsted.csv"
    path.write_text("URN,School name,Inspection start date\n100001,A school,01/01/2026\n")
    with pytest.raises(
        ImportRejected, match=r"not_ofsted\.csv is not an Ofsted management-information file"
    ):
        parse(path)


def test_one_inspection_published_in_two_files_is_listed_once() -> None:
    def graded(number: str | None) -> InspectionRecord:
        inspection = GradedInspection(
            inspection_date=dt.date(2022, 3, 7),
            publication_date=None,
            inspection_type=None,
            overall_effectiveness=2,
            sub_grades={},
            safeguarding_effective=None,
        )
        return InspectionRecord(urn=Urn(100001), inspection=inspection, inspection_number=number)

    assert len(inspection_history([graded("10211111"), graded("10211111")])) == 1
    assert len(inspection_history([graded("10211111"), graded(None)])) == 1
    assert len(inspection_history([graded("10211111"), graded("10299999")])) == 2


# ---- graded inspections without an overall grade, and ungraded inspections -----------------

FIXTURES = Path(__file__).parent.parent / "fixtures" / "importers"
YEAR_TO_DATE = (
    FIXTURES / "Management_information_-_state-funded_schools_-_all_inspections_-_year_to_date"
    "_published_by_31_Aug_2025.csv"
)


def test_the_2024_25_year_to_date_file_is_accepted_as_the_all_inspections_dataset() -> None:
    assert dataset_of(YEAR_TO_DATE) == DATASET_ALL
    records, log = parse(YEAR_TO_DATE)
    assert log.rejects == [] and log.skipped == 0
    assert [r.framework for r in records] == ["graded", "ungraded", "ungraded"]


def test_a_graded_inspection_without_an_overall_grade_keeps_its_sub_judgements_and_no_grade() -> (
    None
):
    records, _ = parse(YEAR_TO_DATE)
    graded = records[0].inspection
    assert isinstance(graded, GradedInspection)
    assert graded.overall_effectiveness is None  # never invented from the sub-judgements
    assert graded.sub_grades["quality_of_education"] == 2
    assert graded.safeguarding_effective is True  # "Safeguarding is effective", no "?"
    assert graded.inspection_date == dt.date(2024, 9, 24)
    assert latest_graded_outcomes(records) == {Urn(139439): None}


def test_ungraded_and_monitoring_inspections_keep_ofsteds_outcome_in_words() -> None:
    records, _ = parse(YEAR_TO_DATE)
    coram, monitoring = records[1], records[2]
    assert isinstance(coram.inspection, UngradedInspection)
    assert coram.inspection.outcome == "School remains Outstanding"
    assert coram.inspection.inspection_type == "S8 Inspection"
    assert coram.inspection.publication_date == dt.date(2024, 11, 20)
    assert coram.inspection_number == "10342000"
    assert isinstance(monitoring.inspection, UngradedInspection)
    assert monitoring.inspection.outcome == "Taking effective action"


def test_the_latest_inspections_file_imports_the_latest_ungraded_inspection(
    tmp_path: Path,
) -> None:
    # Thomas Coram (URN 100005): MI lists its ungraded inspection of 23 May 2024.
    cells = {
        "URN": "100005",
        **OEIF,
        "Latest ungraded inspection number": "10320000",
        "Date of latest ungraded inspection": "23/05/2024",
        "Ungraded inspection publication date": "20/06/2024",
        "Ungraded inspection overall outcome": "School remains Outstanding",
    }
    records, log = parse(latest_file(tmp_path, [cells]))
    assert log.rejects == []
    assert sorted(r.framework for r in records) == ["graded", "ungraded"]
    (ungraded,) = [r for r in records if r.framework == "ungraded"]
    assert isinstance(ungraded.inspection, UngradedInspection)
    assert ungraded.inspection.inspection_date == dt.date(2024, 5, 23)
    assert ungraded.inspection.outcome == "School remains Outstanding"
    assert ungraded.inspection_number == "10320000"
    # The grade still comes from the graded inspection only.
    assert latest_graded_outcomes(records)[Urn(100005)].grade == 2  # type: ignore[union-attr]
    assert inspection_history(records)[0].framework == "ungraded"  # newest first


def test_the_historic_latest_graded_file_imports_the_ungraded_inspection_beside_it(
    tmp_path: Path,
) -> None:
    cells = {
        "URN": "100005",
        "Latest ungraded inspection number since last graded inspection": "10230000",
        "Date of latest ungraded inspection": "23/05/2024",
        "Ungraded inspection publication date": "20/06/2024",
        "Ungraded inspection overall outcome": "School remains Outstanding",
        "Inspection number of latest graded inspection": "10040000",
        "Inspection start date": "11/01/2017",
        "Overall effectiveness": "1",
        "Safeguarding is effective?": "Yes",
    }
    path = write(tmp_path / "latest_graded.csv", ofsted_mi.LATEST_GRADED, [cells])
    assert dataset_of(path) == DATASET_GRADED
    records, _ = parse(path)
    assert sorted(r.framework for r in records) == ["graded", "ungraded"]
    (graded,) = [r for r in records if r.framework == "graded"]
    assert graded.inspection_number == "10040000"
    assert latest_graded_outcomes(records)[Urn(100005)] == HistoricGrade(1, dt.date(2017, 1, 11))
