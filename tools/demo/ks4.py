"""Key stage 4: DfE's information about schools (provisional 2024/25) and school results."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from schooldata.adapters.importers.performance.datasets import KS4_RESULTS
from tools.demo.columns import KS4_INFO as INFO
from tools.demo.columns import PERIOD, URN, measure
from tools.demo.draws import substream
from tools.demo.kinds import STATUS_PROPOSED_TO_CLOSE
from tools.demo.output import Output, clip, ees_csv, fmt1, percent, write_gz
from tools.demo.performance import (
    YEAR_STARTS,
    attainment_effect,
    ees_symbol,
    end_ks4_cohort,
    has_ks4,
)
from tools.demo.places import constituency, district_of
from tools.demo.school import School

# fmt: off
KS4_INFO_HEADER = (
    "time_period", "time_identifier", "geographic_level", "country_code", "country_name",
    "school_laestab", "school_urn", "school_name", "old_la_code", "new_la_code", "la_name",
    "version", "establishment_type_group", "full_address", "telnum", "pcon_code", "pcon_name",
    "contflag", "iclose", "reldenom", "admpol_pt", "egender", "feeder", "agerange",
    "allks_pupil_count", "allks_boys_count", "allks_girls_count", "endks4_pupil_count",
    "ks2_scaledscore_average", "sen_with_ehcp_pupil_count", "sen_with_ehcp_pupil_percent",
    "sen_pupil_count", "sen_pupil_percent", "sen_no_ehcp_pupil_count",
    "sen_no_ehcp_pupil_percent", "attainment8_diffn", "progress8_diffn", "progress8_banding",
)
# fmt: on
# The real DfE file leaves these three integer flags unquoted; everything else is quoted.
KS4_INFO_UNQUOTED = frozenset(("contflag", "iclose", "feeder"))
# measure code -> the column the importer reads it from
INFO_COLUMN = {code: column for code, (column, _) in INFO.MEASURES.items()}
_UNREAD = set(INFO.COLUMNS_READ) - set(KS4_INFO_HEADER)
assert not _UNREAD, f"the importer reads KS4 information columns the file lacks: {sorted(_UNREAD)}"


def write_ks4_info(out: Path, schools: Sequence[School]) -> Output:
    rng = substream("ks4_info")
    lines = [",".join(f'"{c}"' for c in KS4_INFO_HEADER)]
    count = 0
    for s in schools:
        if not has_ks4(s):
            continue
        t, la = s.etype, s.la
        cohort = end_ks4_cohort(s)
        indep_like = s.is_independent
        suppress_a8 = cohort < 6
        if indep_like or s.phase == 5 or (t.special and rng.random() < 0.3):
            a8 = "z"  # not applicable: independent, no KS4 pupils, or no comparable data
        elif suppress_a8:
            a8 = "c"
        else:
            effect = attainment_effect(s)
            a8 = ees_symbol(rng) or fmt1(clip(rng.gauss(-15 + 3 * effect, 9), -55, 36))
            if a8 not in ("x", ":") and rng.random() < 0.003:
                a8 = "low"
        district_name = district_of(s.pc, la)[1]
        pcon_code, _ = constituency(s, district_name)
        if s.religion == "CE":
            reldenom = "Church of England"
        elif s.religion == "RC":
            reldenom = "Roman Catholic"
        else:
            reldenom = "Does not apply" if t.kind == "maintained" else "None"
        if s.is_independent or t.special or t.alternative:
            admpol = "Admission type unclassified"
        elif s.selective:
            admpol = "selective schools"
        elif la.selective_share >= 0.25:
            admpol = "non-selective schools in highly selective areas"
        else:
            admpol = "non-selective schools in other areas"
        pupils = s.pupils
        if pupils is None:
            allks = boys = girls = "z"
        else:
            share = {"Boys": 1.0, "Girls": 0.0}.get(s.gender, rng.uniform(0.46, 0.54))
            b = round(pupils * share)
            allks = str(pupils)
            boys = "z" if s.gender == "Girls" else str(b)
            girls = "z" if s.gender == "Boys" else str(pupils - b)
        sen_values = ["z"] * 6 if indep_like or s.phase == 5 else ["c"] * 6
        if not indep_like and cohort >= 6:
            ehcp = round(cohort * clip(rng.gauss(0.04, 0.02), 0, 1))
            if t.special:
                ehcp = cohort
            sen_all = max(ehcp, round(cohort * clip(rng.gauss(0.16, 0.05), 0, 1)))
            no_ehcp = sen_all - ehcp
            sen_values = [
                str(ehcp),
                fmt1(100 * ehcp / cohort),
                str(sen_all),
                fmt1(100 * sen_all / cohort),
                str(no_ehcp),
                fmt1(100 * no_ehcp / cohort),
            ]
        if s.phase == 5:
            ks2 = "z"
        elif cohort < 6 and not indep_like:
            ks2 = "c"
        elif not indep_like and rng.random() < 0.09:
            ks2 = fmt1(round(clip(rng.gauss(103, 3), 92, 112) * 2) / 2)
        else:
            ks2 = "z"
        values = {
            INFO.PERIOD: "202425",
            "time_identifier": "Academic year",
            INFO.LEVEL: "School",
            "country_code": "E92000001",
            "country_name": "England",
            "school_laestab": s.laestab,
            INFO.URN: str(s.urn),
            "school_name": s.name,
            "old_la_code": la.code,
            "new_la_code": la.gss,
            "la_name": la.name,
            "version": "Provisional",
            "establishment_type_group": t.ks4_group,
            "full_address": s.full_address,
            "telnum": s.phone or "z",
            "pcon_code": pcon_code,
            "pcon_name": "Unknown",
            "contflag": "0",
            "iclose": "1" if s.status == STATUS_PROPOSED_TO_CLOSE else "0",
            "reldenom": reldenom,
            "admpol_pt": admpol,
            "egender": s.gender,
            "feeder": "1" if s.phase == 5 else "0",
            "agerange": f"{s.low_age} to {s.high_age}",
            INFO.ALL_COUNT: allks,
            "allks_boys_count": boys,
            "allks_girls_count": girls,
            INFO.END_COUNT: str(cohort),
            INFO_COLUMN["ks2_baseline_average_scaled_score"]: ks2,
            "sen_with_ehcp_pupil_count": sen_values[0],
            INFO_COLUMN["sen_with_ehcp_pupil_percent"]: sen_values[1],
            "sen_pupil_count": sen_values[2],
            INFO_COLUMN["sen_pupil_percent"]: sen_values[3],
            "sen_no_ehcp_pupil_count": sen_values[4],
            "sen_no_ehcp_pupil_percent": sen_values[5],
            INFO_COLUMN["ks4_attainment8_disadvantaged_gap"]: a8,
            # No KS2 baseline for the 2024/25 cohort: Progress 8 is not published.
            INFO_COLUMN["ks4_progress8_disadvantaged_gap"]: "z",
            "progress8_banding": "z",
        }
        lines.append(
            ",".join(
                values[c] if c in KS4_INFO_UNQUOTED else '"' + values[c].replace('"', '""') + '"'
                for c in KS4_INFO_HEADER
            )
        )
        count += 1
    path = out / "ks4_info_demo.csv.gz"
    write_gz(path, ("\n".join(lines) + "\n").encode("utf-8"))
    return Output(
        path,
        count,
        {
            "dataset": "Key stage 4 performance: information about schools (provisional)",
            "format": "ks4_information",
            "publisher": "Department for Education (explore education statistics)",
            "period": ["202425"],
            "encoding": "utf-8",
            "line_endings": "LF",
            "real_file_name_pattern": "202425_information_about_schools_provisional.csv",
        },
    )


def write_ks4_results(out: Path, schools: Sequence[School]) -> Output:
    rng = substream("ks4_results")
    header = (
        PERIOD,
        URN,
        "school_name",
        "la_name",
        *(
            measure(KS4_RESULTS, code)
            for code in (
                "ks4_end_pupil_count",
                "ks4_attainment8_average",
                "ks4_progress8_average",
                "ks4_progress8_lower_95_ci",
                "ks4_progress8_upper_95_ci",
                "ks4_english_maths_grade5_percent",
                "ks4_ebacc_entry_percent",
            )
        ),
    )
    rows: list[list[str]] = []
    for period in ("202324", "202425"):
        for s in schools:
            if not has_ks4(s) or s.phase == 5 or not s.open_on(YEAR_STARTS[period]):
                continue
            cohort = end_ks4_cohort(s)
            if period != "202425":
                cohort = max(1, round(cohort * rng.uniform(0.9, 1.1)))
            effect = attainment_effect(s)
            row = [period, str(s.urn), s.name, s.la.name, str(cohort)]
            if cohort < 6:
                rows.append([*row, "c", "c", "c", "c", "c", "c"])
                continue
            if s.is_independent and rng.random() < 0.4:
                rows.append([*row, "z", "z", "z", "z", "z", "z"])
                continue
            a8 = clip(rng.gauss(46 + 6.5 * effect, 4), 10, 80)
            if period == "202425" or s.is_independent:
                # 2024/25 pupils sat no KS2 tests (2020 cancelled): Progress 8 not published.
                p8 = ["z", "z", "z"]
            else:
                score = clip(rng.gauss(0.45 * effect, 0.35), -3.5, 2.5)
                half = 1.96 * 1.26 / math.sqrt(cohort)
                p8 = [f"{score:.2f}", f"{score - half:.2f}", f"{score + half:.2f}"]
            em5 = percent(rng.gauss(2.1 * (a8 - 46) + 46, 6))
            ebacc = percent(rng.gauss(40 + 8 * effect, 14))
            if s.etype.special or s.etype.alternative:
                ebacc = percent(rng.uniform(0, 0.04) if rng.random() < 0.08 else rng.uniform(0, 12))
            values = [fmt1(a8), *p8, em5, ebacc]
            symbol = ees_symbol(rng)
            if symbol:
                values = [symbol] * len(values)
            rows.append([*row, *values])
    path = out / "ks4_results_demo.csv.gz"
    write_gz(path, ees_csv(header, rows))
    return Output(
        path,
        len(rows),
        {
            "dataset": "Key stage 4 performance: school-level results",
            "format": "ks4_results",
            "publisher": "Department for Education (explore education statistics)",
            "period": ["202324", "202425"],
            "encoding": "utf-8",
            "line_endings": "LF",
        },
    )
