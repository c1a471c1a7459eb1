"""A server worker's application is built without touching the database (`assemble`): built
while the database is missing it answers as a running worker does during an outage, creates
nothing, and serves as soon as the database is there. The whole-server version, workers
killed during an outage, is tests/reliability/test_worker_restarts.py."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from litestar.testing import TestClient
from tests.reliability.support import KEY_SECRET, load_fixture, sql_store, worker_env

from schooldata.adapters.sql.engine import create_engine_for
from schooldata.adapters.sql.store import SqlStore
from schooldata.bootstrap import assemble, build_asgi
from schooldata.bootstrap.asgi import WORKER_GC_THRESHOLDS
from schooldata.domain.errors import DataUnavailable
from schooldata.settings import load_settings

pytestmark = pytest.mark.integration


def test_a_worker_built_while_the_database_is_missing_fails_per_request_then_serves(
    tmp_path: Path,
) -> None:
    database = tmp_path / "later.sqlite3"
    url = f"sqlite:///{database}"
    settings = load_settings({}, database_url=url, key_secret=KEY_SECRET, home=tmp_path)
    asgi = build_asgi(assemble(settings), settings)
    with TestClient(asgi, base_url="http://localhost") as client:  # a host it answers to
        assert client.get("/health").status_code == 200
        assert client.get("/ready").status_code == 503
        search = client.get("/api/v1/search", params={"query": "st"})
        assert (search.status_code, search.json()["code"]) == (500, "search_unavailable")
        school = client.get("/api/v1/schools/100001")
        assert (school.status_code, school.json()["code"]) == (503, "service_unavailable")
        assert not database.exists(), "a serving worker created the database"

        store = SqlStore(url)
        store.upgrade()
        load_fixture(store)
        deadline = time.monotonic() + 5
        while client.get("/api/v1/schools/100001").status_code != 200:
            assert time.monotonic() < deadline, "the worker did not serve the database"
            time.sleep(0.1)
        assert client.get("/api/v1/search", params={"query": "st"}).status_code == 200
        assert client.get("/ready").status_code == 200


def test_an_engine_that_may_not_create_never_makes_an_empty_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "odd name #1 %.sqlite3"  # characters a URI filename must escape
    store = SqlStore(f"sqlite:///{path}", create=False)
    with pytest.raises(DataUnavailable):
        store.ping()
    assert not path.exists()
    SqlStore(f"sqlite:///{path}").upgrade()  # created by a process that may create it
    store.ping()  # the same store now answers, from the file at that very path
    engine = create_engine_for(f"sqlite:///{path}", create=False)
    with engine.connect() as conn:
        listed = conn.exec_driver_sql("PRAGMA database_list").all()
    assert [Path(row[2]) for row in listed if row[1] == "main"] == [path]


SERVES_SQLITE = """
import sys
from litestar.testing import TestClient
from schooldata.bootstrap import asgi_from_environment
with TestClient(asgi_from_environment(), base_url="http://localhost") as client:
    assert client.get("/api/v1/search", params={"query": "primary"}).status_code == 200
print("psycopg" in sys.modules)
import gc
print(gc.get_threshold())
"""


def _worker_prints(tmp_path: Path) -> list[str]:
    """What a worker process serving SQLite prints (`SERVES_SQLITE`), line by line."""
    url = f"sqlite:///{tmp_path / 'data.sqlite3'}"
    load_fixture(sql_store(url))
    result = subprocess.run(
        [sys.executable, "-c", SERVES_SQLITE],
        env=worker_env(url, tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.splitlines()


def test_a_worker_serving_sqlite_never_loads_the_postgresql_driver(tmp_path: Path) -> None:
    """psycopg is ~9 MB a worker: loaded only for a PostgreSQL database."""
    assert _worker_prints(tmp_path)[0] == "False"


def test_a_worker_collects_its_young_objects_less_often_than_cpythons_default(
    tmp_path: Path,
) -> None:
    """Full collections walk the worker's long-lived memos: ~14 times rarer this way."""
    assert _worker_prints(tmp_path)[1] == str(WORKER_GC_THRESHOLDS)
