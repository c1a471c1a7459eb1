"""School finance: income, expenditure and balances per school and year, in EES style."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

from schooldata.adapters.importers.performance.datasets import FINANCE
from tools.demo.columns import PERIOD, URN, measure
from tools.demo.config import SEED
from tools.demo.draws import substream
from tools.demo.output import Output, clip, ees_csv, fmt1, write_gz
from tools.demo.performance import YEAR_STARTS
from tools.demo.school import School


def write_finance(out: Path, schools: Sequence[School]) -> Output:
    rng = substream("finance")
    header = (
        PERIOD,
        URN,
        "school_name",
        "la_name",
        *(
            measure(FINANCE, f"finance_{code}")
            for code in (
                "pupils_fte",
                "total_income",
                "total_expenditure",
                "income_per_pupil",
                "expenditure_per_pupil",
                "staff_costs_percent",
                "in_year_balance",
                "revenue_reserve",
            )
        ),
    )
    rows: list[list[str]] = []
    for period, uplift in (("202324", 0.965), ("202425", 1.0)):
        for s in schools:
            if not (
                s.is_open and s.is_state and s.etype.kind != "fe" and s.open_on(YEAR_STARTS[period])
            ):
                continue
            row = [period, str(s.urn), s.name, s.la.name]
            if s.pupils is None or rng.random() < 0.006:
                rows.append([*row, "x", "x", "x", "x", "x", "x", "x", "x"])
                continue
            fte = s.pupils * (rng.uniform(0.55, 0.7) if s.phase == 1 else rng.uniform(0.97, 1.0))
            if s.etype.special:
                per_pupil = rng.gauss(26000, 4500)
            elif s.etype.alternative:
                per_pupil = rng.gauss(21000, 4000)
            elif s.phase == 1:
                per_pupil = rng.gauss(10500, 1500)
            elif s.phase in (4, 5, 6, 7):
                per_pupil = rng.gauss(7900, 600)
            else:
                per_pupil = rng.gauss(6900, 550)
            per_pupil *= uplift * (1.12 if s.la.gor == "H" else 1.0)
            per_pupil *= 1 + ((s.fsm_percent or 20) - 20) / 250
            income = per_pupil * fte
            spend = income * rng.uniform(0.965, 1.035)
            reserve: str
            if s.trust and reserves_pooled(s.trust[0]):
                reserve = "z"
            else:
                reserve = str(round(income * clip(rng.gauss(0.07, 0.06), -0.08, 0.3)))
            rows.append(
                [
                    *row,
                    fmt1(fte),
                    str(round(income)),
                    str(round(spend)),
                    str(round(income / fte)),
                    str(round(spend / fte)),
                    fmt1(clip(rng.gauss(76, 4), 60, 90)),
                    str(round(income - spend)),
                    reserve,
                ]
            )
    path = out / "finance_demo.csv.gz"
    write_gz(path, ees_csv(header, rows))
    return Output(
        path,
        len(rows),
        {
            "dataset": "School financial benchmarking: income, expenditure and balances "
            "(modelled on CFR and AAR returns)",
            "format": "finance",
            "publisher": "Department for Education (Consistent Financial Reporting and Academy "
            "Accounts Return)",
            "period": ["202324", "202425"],
            "encoding": "utf-8",
            "line_endings": "LF",
        },
    )


def reserves_pooled(trust_code: int) -> bool:
    """Some trusts hold reserves centrally, so their academies report none of their own."""
    return random.Random(f"{SEED}/pool/{trust_code}").random() < 0.3
