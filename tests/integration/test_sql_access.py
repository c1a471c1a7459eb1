"""The SQL key store and quota counter on the hot path of every keyed request.

A revocation or plan change made by another process applies to the very next request, and a
consumed use is committed (visible to any other process) before `consume` returns. On SQLite
the hot statements run on the raw sqlite3 connection, key lookups are remembered until
anything commits and uses are reserved in blocks (tests/integration/
test_sqlite_keyed_hot_path.py); these tests hold both backends to the same answers.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import event
from tests.integration.conftest import open_sql_store

from schooldata.adapters.sql import SqlStore
from schooldata.adapters.sql.engine import create_engine_for
from schooldata.adapters.sql.key_store import SqlKeyStore
from schooldata.adapters.sql.quota_counter import SqlQuotaCounter
from schooldata.adapters.system import SecureIds
from schooldata.application.access import Authenticate
from schooldata.application.key_admin import KeyAdmin
from schooldata.domain.errors import DataUnavailable
from schooldata.domain.keys import ApiKeyRevoked, Organisation, key_hash, parse_key
from schooldata.domain.plans import PlanCatalogue
from schooldata.ports.keys import KeyLookup

pytestmark = pytest.mark.integration

SECRET = b"sql-access-tests-secret-of-some-length"
PERIOD = "2025-01"
REPO = Path(__file__).resolve().parents[2]


class FixedClock:
    def now(self) -> dt.datetime:
        return dt.datetime(2025, 1, 10, 9, 30, 15, 123456, tzinfo=dt.UTC)

    def timestamp(self) -> float:
        return self.now().timestamp()


@pytest.fixture
def url(sql_url: str) -> str:
    """A migrated, empty database (SQLite file or PostgreSQL schema)."""
    with open_sql_store(sql_url):
        pass
    return sql_url


@pytest.fixture
def store(url: str) -> Iterator[SqlStore]:
    with open_sql_store(url) as opened:
        yield opened


def admin(store: SqlStore) -> KeyAdmin:
    return KeyAdmin(
        keys=SqlKeyStore(store.engine),
        plans=PlanCatalogue(),
        secret=SECRET,
        clock=FixedClock(),
        ids=SecureIds(),
    )


def digest(key: str) -> str:
    return key_hash(SECRET, parse_key(key).text)


def run_python(code: str, *args: str) -> str:
    """Run `code` in a separate Python process (another server worker or the admin CLI)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_key_is_found_with_its_organisation_in_one_lookup(store: SqlStore) -> None:
    keys = SqlKeyStore(store.engine)
    issued = admin(store).create_key(organisation="acme", name="ci", plan="professional")
    found = keys.find_key_with_organisation(key_hash=digest(issued.key))
    assert found == KeyLookup(
        keys.find_key(key_hash=digest(issued.key)),  # type: ignore[arg-type]
        keys.get_organisation(slug="acme"),
    )
    assert found is not None and found.organisation is not None
    assert found.organisation.plan == "professional"
    assert found.record.created_at == FixedClock().now()
    assert found.record.created_at.tzinfo is not None
    assert found.record.revoked_at is None


def test_an_unknown_key_is_not_found(store: SqlStore) -> None:
    admin(store).create_key(organisation="acme", name="ci")
    assert SqlKeyStore(store.engine).find_key_with_organisation(key_hash="0" * 64) is None


def test_a_revoked_key_is_found_with_its_revocation_time(store: SqlStore) -> None:
    keys = admin(store)
    issued = keys.create_key(organisation="acme", name="ci")
    keys.revoke(display_prefix=issued.record.display_prefix)
    found = SqlKeyStore(store.engine).find_key_with_organisation(key_hash=digest(issued.key))
    assert found is not None
    assert found.record.revoked_at == FixedClock().now()


_REVOKE = """
import datetime as dt, sys
from schooldata.adapters.sql import SqlStore
from schooldata.adapters.sql.key_store import SqlKeyStore
from schooldata.domain.keys import Organisation
store = SqlStore(sys.argv[1])
keys = SqlKeyStore(store.engine)
if sys.argv[2] == "plan":
    keys.save_organisation(organisation=Organisation(slug="acme", name="acme", plan="enterprise"))
else:
    print(keys.revoke_key(display_prefix=sys.argv[3], at=dt.datetime.now(dt.UTC)))
store.close()
"""


def test_a_plan_change_and_a_revocation_by_another_process_apply_to_the_very_next_request(
    store: SqlStore, url: str
) -> None:
    issued = admin(store).create_key(organisation="acme", name="ci", plan="developer")
    authenticate = Authenticate(
        keys=SqlKeyStore(store.engine), plans=PlanCatalogue(), secret=SECRET
    )
    bearer = f"Bearer {issued.key}"
    caller = authenticate.execute(authorization=bearer, x_api_key=None)
    assert caller is not None and caller.plan.name == "developer"

    run_python(_REVOKE, url, "plan")
    caller = authenticate.execute(authorization=bearer, x_api_key=None)
    assert caller is not None and caller.plan.name == "enterprise"

    assert run_python(_REVOKE, url, "revoke", issued.record.display_prefix).strip() == "1"
    with pytest.raises(ApiKeyRevoked):
        authenticate.execute(authorization=bearer, x_api_key=None)


def test_a_consumed_use_is_visible_to_another_connection_at_once(url: str) -> None:
    with open_sql_store(url) as writer, open_sql_store(url) as reader:
        counter, other = SqlQuotaCounter(writer.engine), SqlQuotaCounter(reader.engine)
        assert other.used(organisation="acme", period=PERIOD) == 0
        for expected in range(1, 4):
            assert counter.consume(organisation="acme", period=PERIOD, limit=10) == expected
            assert other.used(organisation="acme", period=PERIOD) == expected


def test_the_quota_stops_at_its_limit_and_a_higher_limit_resumes_it(store: SqlStore) -> None:
    counter = SqlQuotaCounter(store.engine)
    assert [counter.consume(organisation="acme", period=PERIOD, limit=2) for _ in range(3)] == [
        1,
        2,
        None,
    ]
    assert counter.used(organisation="acme", period=PERIOD) == 2
    assert counter.consume(organisation="acme", period=PERIOD, limit=3) == 3
    assert counter.used(organisation="acme", period="2024-12") == 0


_SPEND = """
import json, sys
from schooldata.adapters.sql import SqlStore
from schooldata.adapters.sql.quota_counter import SqlQuotaCounter
store = SqlStore(sys.argv[1])
counter = SqlQuotaCounter(store.engine)
granted = []
for _ in range(int(sys.argv[2])):
    used = counter.consume(organisation="acme", period="2025-01", limit=int(sys.argv[3]))
    if used is not None:
        granted.append(used)
store.close()
print(json.dumps(granted))
"""


def test_two_processes_consuming_one_quota_never_exceed_it_nor_share_a_count(
    url: str,
) -> None:
    attempts, limit = 150, 200
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _SPEND, url, str(attempts), str(limit)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            cwd=REPO,
        )
        for _ in range(2)
    ]
    granted: list[int] = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        granted.extend(json.loads(out))
    assert sorted(granted) == list(range(1, limit + 1))
    with open_sql_store(url) as store:
        assert SqlQuotaCounter(store.engine).used(organisation="acme", period=PERIOD) == limit


def test_a_sqlite_consume_waits_for_another_writer_instead_of_failing(tmp_path: Path) -> None:
    path = tmp_path / "busy.sqlite3"
    with open_sql_store(f"sqlite:///{path}") as store:
        counter = SqlQuotaCounter(store.engine)
        assert counter.consume(organisation="acme", period=PERIOD, limit=10) == 1
        other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")
        other.execute("UPDATE usage_quota SET used = used + 1")
        releaser = threading.Timer(0.4, lambda: other.execute("COMMIT"))
        releaser.start()
        started = time.monotonic()
        # Within busy_timeout it waits for the lock, then counts on top of the other commit.
        assert counter.consume(organisation="acme", period=PERIOD, limit=10) == 3
        assert time.monotonic() - started >= 0.2
        releaser.join()
        other.close()


def test_a_sqlite_driver_error_is_data_unavailable_and_the_connection_is_not_reused(
    tmp_path: Path,
) -> None:
    store = SqlStore(f"sqlite:///{tmp_path / 'unmigrated.sqlite3'}")  # no tables yet
    opened: list[object] = []
    event.listen(store.engine, "connect", lambda dbapi, _record: opened.append(dbapi))
    keys, counter = SqlKeyStore(store.engine), SqlQuotaCounter(store.engine)
    with pytest.raises(DataUnavailable):
        keys.find_key_with_organisation(key_hash="0" * 64)
    with pytest.raises(DataUnavailable):
        counter.consume(organisation="acme", period=PERIOD, limit=10)
    with pytest.raises(DataUnavailable):
        counter.used(organisation="acme", period=PERIOD)
    # Each failed connection was discarded, the next one fresh; plus the key store's own
    # change probe (SqliteChanges), which only reads a pragma and so did not fail.
    assert len(opened) == 3 + 1
    store.upgrade()
    assert counter.consume(organisation="acme", period=PERIOD, limit=10) == 1
    assert counter.used(organisation="acme", period=PERIOD) == 1
    assert len(opened) == 4 + 1  # a connection that succeeded is used again
    store.close()


def test_sqlite_connections_are_not_pinged_but_postgres_connections_are() -> None:
    sqlite = create_engine_for("sqlite:///:memory:")
    postgres = create_engine_for("postgresql+psycopg://nobody@127.0.0.1:1/none")
    assert sqlite.pool._pre_ping is False
    assert postgres.pool._pre_ping is True
    sqlite.dispose()
    postgres.dispose()


def test_organisations_are_listed_by_id(store: SqlStore) -> None:
    keys = SqlKeyStore(store.engine)
    assert keys.list_organisations() == []
    admin(store).create_key(organisation="zeta", name="ci", plan="enterprise")
    admin(store).create_key(organisation="acme", name="ci")
    assert keys.list_organisations() == [
        Organisation(slug="acme", name="acme", plan="developer"),
        Organisation(slug="zeta", name="zeta", plan="enterprise"),
    ]
