"""Key stage 2: DfE's school attainment file, one row per school, subject and pupil group."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from schooldata.adapters.importers.performance.datasets import KS2_RESULTS
from tools.demo.columns import BREAKDOWN, BREAKDOWN_TOPIC, measure, split
from tools.demo.draws import substream
from tools.demo.output import Output, clip, ees_csv, percent, write_gz
from tools.demo.performance import (
    EES_PLACE,
    YEAR_STARTS,
    attainment_effect,
    ees_place,
    ees_symbol,
    has_ks2,
)
from tools.demo.school import School

# DfE's `ks2_school_attainment_data.csv`: one row per school, subject and pupil group (long).
KS2_SUBJECTS = ("Reading, writing and maths", "Reading", "Maths")
RWM = KS2_SUBJECTS[0].lower()  # the importer's name of the headline subject


def write_ks2_results(out: Path, schools: Sequence[School]) -> Output:
    rng = substream("ks2_results")
    header = (
        *EES_PLACE,
        split(KS2_RESULTS),
        BREAKDOWN_TOPIC,
        BREAKDOWN,
        measure(KS2_RESULTS, "ks2_rwm_expected_percent", RWM),
        measure(KS2_RESULTS, "ks2_rwm_higher_percent", RWM),
        measure(KS2_RESULTS, "ks2_reading_average_scaled_score", "reading"),
    )
    rows: list[list[str]] = []
    for period in ("202324", "202425"):
        for s in schools:
            if not has_ks2(s) or not s.open_on(YEAR_STARTS[period]):
                continue
            pupils = s.pupils or rng.randint(90, 420)
            years = max(1, s.high_age - max(s.low_age, 4))
            cohort = max(1, round(pupils / years * rng.uniform(0.85, 1.1)))
            place = ees_place(period, s)
            if cohort < 6:
                for subject in KS2_SUBJECTS:
                    rows.append([*place, subject, "All pupils", "Total", "c", "c", "c"])
                continue
            effect = attainment_effect(s)
            expected = rng.gauss(61 + 9 * effect, 8)
            higher = clip(rng.gauss(8 + 3.5 * effect, 3.5), 0, 60)
            if higher < 0.5 and rng.random() < 0.1:
                higher = rng.uniform(0.0, 0.04)  # a real value that rounds to nothing
            reading = clip(rng.gauss(74 + 7 * effect, 7), 0, 100)
            maths = clip(rng.gauss(73 + 7 * effect, 7), 0, 100)
            values = {
                "Reading, writing and maths": [percent(expected), percent(higher), "z"],
                "Reading": [
                    percent(reading),
                    percent(clip(rng.gauss(28 + 5 * effect, 6), 0, 80)),
                    str(round(clip(rng.gauss(105 + 2 * effect, 1.5), 94, 115))),
                ],
                "Maths": [
                    percent(maths),
                    percent(clip(rng.gauss(24 + 5 * effect, 6), 0, 80)),
                    str(round(clip(rng.gauss(104 + 2 * effect, 1.5), 94, 115))),
                ],
            }
            symbol = ees_symbol(rng)
            for subject in KS2_SUBJECTS:
                cells = [symbol] * 3 if symbol else values[subject]
                rows.append([*place, subject, "All pupils", "Total", *cells])
            if period == "202425" and not symbol:
                # The file's 3-year averages sit beside the year's figure: not the school's
                # figure for the year, and skipped by the importer.
                three = [percent(expected + rng.gauss(0, 2)), percent(higher), "z"]
                rows.append([*place, KS2_SUBJECTS[0], "All pupils", "3 year average", *three])
    path = out / "ks2_results_demo.csv.gz"
    write_gz(path, ees_csv(header, rows))
    return Output(
        path,
        len(rows),
        {
            "dataset": "Key stage 2 attainment: school-level results (by subject)",
            "format": "ks2_results",
            "publisher": "Department for Education (explore education statistics)",
            "period": ["202324", "202425"],
            "real_file_name_pattern": "ks2_school_attainment_data.csv",
            "encoding": "utf-8",
            "line_endings": "LF",
        },
    )
