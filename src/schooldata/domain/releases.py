"""The release status of a results year: provisional, revised or final, as the publisher's
file (its `version` column, else its name) states it, and the publisher's release date.

A dataset holds one release per year: importing a year again replaces its figures and its
release together (a newer status replaces the older one; the year is never listed twice).
Unknown where the file does not say: null, never a guess.
"""

from __future__ import annotations

import datetime as dt
import enum
import re

from attrs import frozen


class ReleaseStatus(enum.Enum):
    PROVISIONAL = "provisional"
    REVISED = "revised"
    FINAL = "final"


_IN_NAME = re.compile(r"(?<![a-z])(provisional|revised|final)(?![a-z])")
# The older performance-tables downloads: england_ks4final.csv, england_ks2provisional.csv.
_GLUED = re.compile(r"ks[0-9]+(provisional|revised|final)")


def parse_release_status(raw: str | None) -> ReleaseStatus | None:
    """A `version` cell as DfE writes it ("Provisional", "Revised", "Final"); else None."""
    text = (raw or "").strip().lower()
    try:
        return ReleaseStatus(text)
    except ValueError:
        return None


def release_status_in_name(name: str) -> ReleaseStatus | None:
    """What a publisher's file name says (`202425_..._revised.csv`, `england_ks4final.csv`)."""
    lowered = name.lower()
    found = _IN_NAME.search(lowered) or _GLUED.search(lowered)
    return None if found is None else ReleaseStatus(found.group(1))


@frozen(kw_only=True)
class Release:
    """One year of one dataset as published."""

    dataset: str
    period: str
    status: ReleaseStatus | None
    released: dt.date | None = None
