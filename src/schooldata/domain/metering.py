"""Metering decisions: per-key per-second rate limit, per-organisation calendar-month quota.

Metered: a commercial call that passed authentication, entitlement and the rate limit (REST),
or an MCP tools/call that also validated its arguments. Never metered: 401, 403, 429,
discovery, ping, tools/list, public requests. Windows are UTC; resets are epoch seconds.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import NamedTuple

from schooldata.domain.errors import DomainError


def month_period(now: dt.datetime) -> str:
    return f"{now.year:04d}-{now.month:02d}"


def month_reset(now: dt.datetime) -> int:
    """Epoch seconds of the first instant of the next calendar month (UTC)."""
    year, month = (now.year + 1, 1) if now.month == 12 else (now.year, now.month + 1)
    return int(dt.datetime(year, month, 1, tzinfo=dt.UTC).timestamp())


def month_start(now: dt.datetime) -> int:
    """Epoch seconds of the first instant of this calendar month (UTC)."""
    return int(dt.datetime(now.year, now.month, 1, tzinfo=dt.UTC).timestamp())


def second_window(now: dt.datetime) -> int:
    return math.floor(now.timestamp())


class MeterReading(NamedTuple):
    """The six headers' values. A named tuple rather than an attrs class: one is built on
    every metered request, and a frozen attrs instance costs ~5x as much to build."""

    rate_limit: int
    rate_remaining: int
    rate_reset: int
    quota_limit: int
    quota_remaining: int
    quota_reset: int

    def headers(self) -> dict[str, str]:
        """The six headers, named as `METER_HEADERS` (a count below zero is shown as 0)."""
        return {name: str(max(0, value)) for name, value in zip(METER_HEADERS, self, strict=True)}


# The six headers, in the order of `MeterReading`'s fields.
METER_HEADERS = (
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
    "X-Quota-Limit",
    "X-Quota-Remaining",
    "X-Quota-Reset",
)


class LimitReached(DomainError):
    """429: carries the reading for the headers and how long to wait."""

    def __init__(self, message: str, reading: MeterReading, retry_after: int) -> None:
        super().__init__(message, details={"retry_after": retry_after})
        self.reading = reading
        self.retry_after = max(1, retry_after)


class RateLimitExceeded(LimitReached):
    code = "rate_limit_exceeded"


class QuotaExceeded(LimitReached):
    code = "quota_exceeded"


def retry_after_seconds(at: float, reset_epoch: int) -> int:
    """Whole seconds from the instant `at` (epoch seconds) to `reset_epoch`, at least one."""
    return max(1, math.ceil(reset_epoch - at))
