"""The demo's constants: its seed, its extract date and label, and how many establishments of
each kind a run writes (the bundled demo, or the national-size file of the benchmarks)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

SEED = 20261122
EXTRACT_DATE = dt.date(2026, 11, 1)
LABEL = "SYNTHETIC DEMO DATA — not real schools"
OGL = "Open Government Licence v3.0"
GIAS_CENSUS_DATE = "16-01-2025"

N_WESTMINSTER_OPEN = 52  # all within 2 miles of SW1A 1AA, for proximity demos
WESTMINSTER_RADIUS_M = 3150.0  # 2 miles is 3219 m; leave room for the jitter
SW1A_1AA = (529090, 179645)


@dataclass(frozen=True)
class Scale:
    """How many establishments of each kind, and the URN ranges they are numbered from:
    (proposed to open), (academies and free schools), (everything else)."""

    n_open: int
    n_proposed_to_close: int
    n_closed_for_academy: int  # predecessors of open academy converters
    n_closed_other: int
    n_proposed_to_open: int
    urn_ranges: tuple[tuple[int, int], tuple[int, int], tuple[int, int]]


DEMO = Scale(5000, 200, 250, 350, 100, ((152000, 154999), (136000, 151999), (100000, 135999)))
# About the size of a real GIAS download (~65,000 establishments of which ~27,000 are open),
# for the benchmarks only: the bundled demo never changes with it.
FULL = Scale(
    26_500, 400, 8_000, 30_400, 300, ((190000, 194999), (150000, 189999), (100000, 149999))
)
