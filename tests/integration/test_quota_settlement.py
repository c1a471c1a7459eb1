"""A quota use on PostgreSQL is charged once or not at all, even when the connection is cut
as its transaction commits (`adapters/sql/quota_counter.py`): a commit whose answer was lost
is settled by the database's record of that transaction (`txid_status`), and a committed one
is given back exactly once, since the request it was for was answered 503.

The cut is simulated where it happens: the transaction's commit reaches the database (or not)
and the driver then raises as a dropped connection does."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy.engine.base import RootTransaction
from tests.integration.conftest import open_sql_store, postgres_schema

from schooldata.adapters.sql.quota_counter import SqlQuotaCounter
from schooldata.domain.errors import DataUnavailable

pytestmark = pytest.mark.postgres
ORG, PERIOD, LIMIT = "settle", "2026-12", 1_000


class LostAnswer(Exception):
    """What the driver raises when the connection drops before the commit's answer."""


@pytest.fixture
def counter(postgres_admin: Any) -> Iterator[SqlQuotaCounter]:
    with postgres_schema(postgres_admin) as url, open_sql_store(url) as store:
        yield SqlQuotaCounter(store.engine)


def stored(counter: SqlQuotaCounter) -> int:
    with counter._engine.connect() as conn:  # (the row itself, not this process's view)
        value = conn.exec_driver_sql(
            "SELECT used FROM usage_quota WHERE organisation = %(o)s", {"o": ORG}
        ).scalar()
    return int(value or 0)


@contextmanager
def commits(outcome: str, times: int = 1) -> Iterator[None]:
    """The next `times` commits reach the database ("committed") or not ("aborted"), and
    their answer never comes back."""
    original: Callable[[RootTransaction], None] = RootTransaction.commit
    left = [times]

    def lost(self: RootTransaction) -> None:
        if left[0] <= 0:
            original(self)
            return
        left[0] -= 1
        if outcome == "committed":
            original(self)
        else:
            self.rollback()
        from sqlalchemy.exc import OperationalError

        raise OperationalError("COMMIT", {}, LostAnswer("server closed the connection"))

    RootTransaction.commit = lost  # type: ignore[method-assign]
    try:
        yield
    finally:
        RootTransaction.commit = original  # type: ignore[method-assign]


def test_a_charge_committed_whose_answer_was_lost_is_given_back_once(
    counter: SqlQuotaCounter,
) -> None:
    assert counter.consume(organisation=ORG, period=PERIOD, limit=LIMIT) == 1
    with commits("committed"), pytest.raises(DataUnavailable):
        counter.consume(organisation=ORG, period=PERIOD, limit=LIMIT)
    assert stored(counter) == 2  # the database did commit it
    assert counter.unsettled == 1
    counter.settle(force=True)
    assert (stored(counter), counter.unsettled) == (1, 0)
    counter.settle(force=True)
    assert stored(counter) == 1  # given back once, however often it is settled
    assert counter.consume(organisation=ORG, period=PERIOD, limit=LIMIT) == 2


def test_a_charge_that_never_committed_is_not_given_back(counter: SqlQuotaCounter) -> None:
    counter.consume(organisation=ORG, period=PERIOD, limit=LIMIT)
    with commits("aborted"), pytest.raises(DataUnavailable):
        counter.consume(organisation=ORG, period=PERIOD, limit=LIMIT)
    assert stored(counter) == 1
    counter.settle(force=True)
    assert (stored(counter), counter.unsettled) == (1, 0)


def test_a_give_back_whose_own_answer_was_lost_is_settled_by_its_own_fate(
    counter: SqlQuotaCounter,
) -> None:
    counter.consume(organisation=ORG, period=PERIOD, limit=LIMIT)
    with commits("committed"), pytest.raises(DataUnavailable):
        counter.consume(organisation=ORG, period=PERIOD, limit=LIMIT)
    with commits("aborted"):  # the give-back is lost, and did not commit: made again
        counter.settle(force=True)
    assert (stored(counter), counter.unsettled) == (2, 1)
    with commits("committed"):  # made again, committed, its answer lost: done
        counter.settle(force=True)
    assert (stored(counter), counter.unsettled) == (1, 1)
    counter.settle(force=True)
    assert (stored(counter), counter.unsettled) == (1, 0)


def test_what_waits_is_settled_by_the_next_use_of_the_counter(counter: SqlQuotaCounter) -> None:
    with commits("committed"), pytest.raises(DataUnavailable):
        counter.consume(organisation=ORG, period=PERIOD, limit=LIMIT)
    counter._next_settlement = 0.0  # (no waiting between settlements in a test)
    assert counter.consume(organisation=ORG, period=PERIOD, limit=LIMIT) == 1
    assert counter.used(organisation=ORG, period=PERIOD) == 1
