"""The publishers' files `schooldata refresh` keeps current, and where each is looked for.

- GIAS publishes a full establishments extract every day, named by its date
  (`edubasealldata20261128.csv`), and its links beside it (`links_edubasealldata...`). Today's
  file may not exist yet early in the day, so today's name is tried first, then each earlier
  day, back `LOOKBACK_DAYS` days, never further back than the file already imported (an older
  file is never newer).
- OS Code-Point Open has one address that redirects to the current release's zip; the release
  date is read from the zip itself (its `Doc/metadata.txt`).
"""

from __future__ import annotations

import datetime as dt

from attrs import frozen

from schooldata.application.import_dataset import DatasetKind

# How many days before today a GIAS file is looked for: a week covers a publisher's bank
# holiday weekend and a server that was down for days.
LOOKBACK_DAYS = 7


@frozen(kw_only=True)
class Locations:
    """Where the publishers' files are: the settings `gias_base_url` and `codepoint_url`
    (the publishers' own addresses by default; a mirror, or a test's loopback server)."""

    gias_base_url: str
    codepoint_url: str


@frozen(kw_only=True)
class Candidate:
    url: str
    date: dt.date | None  # what the name says; None when the file says it (Code-Point)


@frozen(kw_only=True)
class Publication:
    """One file refresh keeps current: its `--only` name, the importer that reads it, the
    dataset it becomes, and (for GIAS) the prefix of its dated daily names."""

    name: str
    reader: str
    kind: DatasetKind
    dataset: str
    daily_prefix: str | None = None

    def candidates(
        self, locations: Locations, *, today: dt.date, since: dt.date | None
    ) -> list[Candidate]:
        """The addresses to try, newest first. A daily file: today's, then each earlier day
        back to the limit, but not before `since` (the date of the file imported last; if
        that is after today, it alone is tried)."""
        if self.daily_prefix is None:
            return [Candidate(url=locations.codepoint_url, date=None)]
        days = [today - dt.timedelta(days=n) for n in range(LOOKBACK_DAYS + 1)]
        if since is not None:
            days = [day for day in days if day >= since] or [since]
        base = locations.gias_base_url
        base = base if base.endswith("/") else base + "/"
        return [Candidate(url=f"{base}{self.daily_prefix}{d:%Y%m%d}.csv", date=d) for d in days]


PUBLICATIONS: tuple[Publication, ...] = (
    Publication(
        name="gias",
        reader="gias",
        kind=DatasetKind.SCHOOLS,
        dataset="gias_establishments",
        daily_prefix="edubasealldata",
    ),
    Publication(
        name="links",
        reader="links",
        kind=DatasetKind.LINKS,
        dataset="gias_links",
        daily_prefix="links_edubasealldata",
    ),
    Publication(
        name="postcodes",
        reader="postcodes",
        kind=DatasetKind.POSTCODES,
        dataset="codepoint_open",
    ),
)
PUBLICATION_NAMES = tuple(p.name for p in PUBLICATIONS)
