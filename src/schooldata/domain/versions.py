"""Data versions: each import or refresh that changes the served data makes one.

A version's id sorts in time: `YYYYMMDDTHHMMSSZ-NNNNNN`, its time to the second (UTC) then
its sequence number in the database (zero-padded, so text order is time order). The
sequence alone orders versions; the time in the id lets a `since` that is no longer held be
told apart: older than the oldest held version (expired, 410) or never one of them
(unknown, 400).

Retention: versions (and the changes they record) are kept `retention_days` (at least
MIN_RETENTION_DAYS); the current version is always kept, however old.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import cached_property

from attrs import frozen

from schooldata.domain.errors import InvalidParameter, SinceExpired, shown_input

DEFAULT_RETENTION_DAYS = 400
MIN_RETENTION_DAYS = 1
MAX_RETENTION_DAYS = 36_500
SEQUENCE_DIGITS = 6
_ID = re.compile(r"([0-9]{8})T([0-9]{6})Z-([0-9]{6,18})")
ID_PATTERN = r"^[0-9]{8}T[0-9]{6}Z-[0-9]{6,18}$"


@frozen(kw_only=True)
class DataVersion:
    """One version of the served data: its sequence number, when it was made and the
    datasets whose import made it (several for the bundled demo, built in one version)."""

    sequence: int
    made_at: dt.datetime
    datasets: tuple[str, ...] = ()

    @cached_property
    def id(self) -> str:
        """Made once per version (every keyed answer names it)."""
        return version_id(self.sequence, self.made_at)


@frozen(order=True)
class VersionRef:
    """A version as a caller names it: well formed, not yet looked up."""

    made_at: dt.datetime
    sequence: int

    @property
    def id(self) -> str:
        return version_id(self.sequence, self.made_at)


def version_id(sequence: int, made_at: dt.datetime) -> str:
    moment = made_at.astimezone(dt.UTC)
    return f"{moment:%Y%m%dT%H%M%SZ}-{sequence:0{SEQUENCE_DIGITS}d}"


def parse_version(raw: object, *, parameter: str) -> VersionRef:
    """A version id as sent; anything else is refused naming `parameter` (400)."""
    text = raw.strip() if isinstance(raw, str) else None
    match = None if text is None else _ID.fullmatch(text)
    if match is None:
        raise InvalidParameter(
            parameter,
            f"{parameter} must be a data version such as 20261207T120000Z-000042 (as "
            f"meta.data_version gives it); got {shown_input(raw)}.",
        )
    day, time, sequence = match.groups()
    try:
        made_at = dt.datetime.strptime(day + time, "%Y%m%d%H%M%S").replace(tzinfo=dt.UTC)
    except ValueError:
        raise InvalidParameter(
            parameter, f"{parameter} names no real date and time: {shown_input(raw)}."
        ) from None
    return VersionRef(made_at, int(sequence))


def next_made_at(now: dt.datetime, previous: DataVersion | None) -> dt.datetime:
    """A new version's time: now, but never before the version it follows (a clock set back,
    or another machine's behind), so ids keep sorting in time."""
    if previous is not None and previous.made_at > now:
        return previous.made_at
    return now


def retained_since(now: dt.datetime, retention_days: int) -> dt.datetime:
    """Versions made before this are forgotten (the current one is always kept)."""
    return now - dt.timedelta(days=retention_days)


def check_since(since: VersionRef, *, held: DataVersion | None, oldest: DataVersion) -> DataVersion:
    """The version `since` names, if the changes after it can still be listed.

    `oldest` is the oldest version a caller may start from (the oldest within the retention
    window, or the current one when every other is older); `held` is the version of
    `since`'s sequence number, if any. Before `oldest` (by time or by sequence): expired,
    naming `oldest`. Otherwise a version this database never made: unknown (400)."""
    oldest_second = oldest.made_at.astimezone(dt.UTC).replace(microsecond=0)
    if since.made_at < oldest_second or since.sequence < oldest.sequence:
        raise SinceExpired(since.id, oldest=oldest.id)
    if held is None or held.id != since.id:
        raise InvalidParameter(
            "since",
            f"since names no data version of this service: {since.id} (a version comes "
            "from meta.data_version or meta.until).",
        )
    return held
