"""Metering arithmetic: calendar-month windows, second windows, Retry-After."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.domain.metering import (
    LimitReached,
    MeterReading,
    QuotaExceeded,
    RateLimitExceeded,
    month_period,
    month_reset,
    retry_after_seconds,
    second_window,
)

UTC = dt.UTC


def epoch(*args: int) -> int:
    return int(dt.datetime(*args, tzinfo=UTC).timestamp())  # type: ignore[misc]


def test_the_last_second_of_december_belongs_to_december() -> None:
    now = dt.datetime(2025, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC)
    assert month_period(now) == "2025-12"


def test_the_december_quota_resets_on_the_first_of_january() -> None:
    now = dt.datetime(2025, 12, 31, 23, 59, 59, tzinfo=UTC)
    assert month_reset(now) == epoch(2026, 1, 1)


def test_the_first_instant_of_january_is_a_new_period() -> None:
    now = dt.datetime(2026, 1, 1, 0, 0, 0, tzinfo=UTC)
    assert month_period(now) == "2026-01"
    assert month_reset(now) == epoch(2026, 2, 1)


@pytest.mark.parametrize(
    ("now", "period", "reset"),
    [
        (dt.datetime(2026, 2, 28, 12, tzinfo=UTC), "2026-02", epoch(2026, 3, 1)),
        (dt.datetime(2028, 2, 29, 12, tzinfo=UTC), "2028-02", epoch(2028, 3, 1)),
        (dt.datetime(2026, 8, 19, tzinfo=UTC), "2026-08", epoch(2026, 9, 1)),
    ],
)
def test_month_period_and_reset(now: dt.datetime, period: str, reset: int) -> None:
    assert month_period(now) == period
    assert month_reset(now) == reset


@settings(max_examples=50)
@given(st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2099, 12, 31)))
def test_the_reset_is_the_start_of_the_next_month_and_after_now(naive: dt.datetime) -> None:
    now = naive.replace(tzinfo=UTC)
    reset = dt.datetime.fromtimestamp(month_reset(now), tz=UTC)
    assert reset > now
    assert (reset.day, reset.hour, reset.minute, reset.second) == (1, 0, 0, 0)
    assert month_period(reset - dt.timedelta(microseconds=1)) == month_period(now)


def test_the_second_window_is_the_whole_epoch_second() -> None:
    now = dt.datetime(2026, 9, 1, 10, 0, 5, 900_000, tzinfo=UTC)
    assert second_window(now) == epoch(2026, 9, 1, 10, 0, 5)


@pytest.mark.parametrize(
    ("reset_offset", "expected"),
    [(-100, 1), (0, 1), (1, 1), (3, 3), (3600, 3600)],
)
def test_retry_after_rounds_up_and_is_at_least_one_second(reset_offset: int, expected: int) -> None:
    now = dt.datetime(2026, 9, 1, 10, 0, 0, 500_000, tzinfo=UTC)  # half a second past
    reset = epoch(2026, 9, 1, 10, 0, 0) + reset_offset
    assert retry_after_seconds(now.timestamp(), reset) == expected


@settings(max_examples=50)
@given(
    naive=st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2099, 1, 1)),
    delta=st.integers(min_value=-(10**6), max_value=10**6),
)
def test_retry_after_is_never_below_one_second(naive: dt.datetime, delta: int) -> None:
    now = naive.replace(tzinfo=UTC)
    assert retry_after_seconds(now.timestamp(), int(now.timestamp()) + delta) >= 1


def reading(**overrides: int) -> MeterReading:
    values = {
        "rate_limit": 5,
        "rate_remaining": 4,
        "rate_reset": 100,
        "quota_limit": 1000,
        "quota_remaining": 999,
        "quota_reset": 200,
    }
    values.update(overrides)
    return MeterReading(**values)


def test_a_reading_gives_the_six_headers() -> None:
    assert reading().headers() == {
        "X-RateLimit-Limit": "5",
        "X-RateLimit-Remaining": "4",
        "X-RateLimit-Reset": "100",
        "X-Quota-Limit": "1000",
        "X-Quota-Remaining": "999",
        "X-Quota-Reset": "200",
    }


def test_remaining_headers_never_go_negative() -> None:
    headers = reading(rate_remaining=-3, quota_remaining=-1).headers()
    assert headers["X-RateLimit-Remaining"] == "0"
    assert headers["X-Quota-Remaining"] == "0"


@pytest.mark.parametrize("error", [RateLimitExceeded, QuotaExceeded])
@pytest.mark.parametrize("retry_after", [-5, 0, 1])
def test_a_limit_error_always_asks_to_wait_at_least_one_second(
    error: type[LimitReached], retry_after: int
) -> None:
    assert error("slow down", reading(), retry_after).retry_after == 1


def test_limit_errors_carry_their_codes() -> None:
    assert RateLimitExceeded("x", reading(), 1).code == "rate_limit_exceeded"
    assert QuotaExceeded("x", reading(), 1).code == "quota_exceeded"
