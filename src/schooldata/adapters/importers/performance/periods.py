"""Academic years in text: what `--period` gives, and what an older performance-tables
download (no time_period column) names in its file or folder."""

from __future__ import annotations

import re

from schooldata.adapters.importers.files.sources import DataPath, ZipMember

# `2023/24`, `202324`, `2023-24`, `2023-2024`: an academic or financial year.
_YEAR = re.compile(r"(?<![0-9])(20[0-9]{2})[-_/]?(20[0-9]{2}|[0-9]{2})(?![0-9])")


def academic_year(text: str) -> str | None:
    """`2023/24` from `2023/24`, `202324`, `2023-24` or `2023-2024`; None if it is none."""
    match = _YEAR.search(text)
    if match is None:
        return None
    first, second = int(match.group(1)), match.group(2)
    last = int(second) if len(second) == 4 else 2000 + int(second)
    if last != first + 1:
        return None
    return f"{first}/{last % 100:02d}"


def period_from_name(path: DataPath) -> str | None:
    """The year an older performance-tables download names: its file name, else its folder
    (the download is `Performancetables_NNNNNN/2018-2019/england_ks4final.csv`)."""
    names = [path.name, *reversed(path.parts[-3:-1])]
    if isinstance(path, ZipMember):
        names.append(path.archive.name)
    for name in names:
        found = academic_year(name)
        if found is not None:
            return found
    return None
