"""The PostgreSQL connect breaker's schedule (adapters/sql/connect_breaker.py)."""

from __future__ import annotations

from schooldata.adapters.sql.connect_breaker import ConnectBreaker


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_connects_go_through_until_one_fails() -> None:
    breaker = ConnectBreaker(retry_seconds=1.0, clock=Clock())
    assert all(breaker.admit() for _ in range(5))


def test_after_a_failure_only_one_trial_a_second_goes_through() -> None:
    clock = Clock()
    breaker = ConnectBreaker(retry_seconds=1.0, clock=clock)
    breaker.failed()
    assert not breaker.admit()
    clock.now += 0.99
    assert not breaker.admit()
    clock.now += 0.02
    assert breaker.admit()  # the trial
    assert not breaker.admit()  # only one per second, even while it is still waiting
    clock.now += 1.0
    assert breaker.admit()  # the next trial does not wait for the first to time out


def test_a_failed_trial_keeps_the_schedule_of_trials() -> None:
    clock = Clock()
    breaker = ConnectBreaker(retry_seconds=1.0, clock=clock)
    breaker.failed()
    clock.now += 1.0
    assert breaker.admit()
    clock.now += 0.5
    breaker.failed()  # that trial timed out: the next one is still due at +1 s from its start
    assert not breaker.admit()
    clock.now += 0.5
    assert breaker.admit()


def test_any_success_closes_the_breaker() -> None:
    clock = Clock()
    breaker = ConnectBreaker(retry_seconds=1.0, clock=clock)
    breaker.failed()
    clock.now += 1.0
    assert breaker.admit()
    breaker.succeeded()
    assert all(breaker.admit() for _ in range(5))
