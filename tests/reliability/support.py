"""Helpers of the reliability suite: services, live servers, data, logs.

- PostgreSQL and Redis are the machine's shared services: a test gets a private schema (dropped
  afterwards) or a Redis database 1-15 with unique key names, and never stops either service.
  Unreachable -> skip, unless SCHOOLDATA_REQUIRE_SERVICES=1 (CI), where it is a failure.
- `live_server` runs an ASGI app under uvicorn in a thread on a free loopback port, the way
  `schooldata serve` does; `ServerProcess` runs `uvicorn --factory
  schooldata.bootstrap:asgi_from_environment` in a subprocess with its own environment.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import redis
from sqlalchemy import Engine, create_engine, inspect, text
from sqlalchemy.engine import make_url

from schooldata.adapters.sql.store import SqlStore
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.plans import DEFAULT_PLANS, Plan, PlanCatalogue
from schooldata.ports.imports import DataStore
from tests.support import dataset as fixture
from tests.support.postgres import end_connections_of
from tests.support.servers import free_port

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
POSTGRES_URL = os.environ.get(
    "SCHOOLDATA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
_PG = make_url(POSTGRES_URL)
PG_HOST, PG_PORT = _PG.host or "127.0.0.1", _PG.port or 5432
_REDIS = urlsplit(os.environ.get("SCHOOLDATA_TEST_REDIS_URL", "redis://127.0.0.1:6379/0"))
REDIS_HOST, REDIS_PORT = _REDIS.hostname or "127.0.0.1", _REDIS.port or 6379
KEY_SECRET = "reliability-suite-secret-" + "x" * 24  # >= 32 characters, stable per run
# The enterprise entitlements without a practical rate limit or quota: for runs that exercise
# the operations rather than the limiter (tests/reliability/test_limits.py covers that).
UNLIMITED = PlanCatalogue(
    tuple(
        plan
        if plan.name != "enterprise"
        else Plan(
            name="enterprise",
            per_page_max=plan.per_page_max,
            compare_max=plan.compare_max,
            rate_per_second=10**9,
            monthly_quota=10**9,
            features=plan.features,
        )
        for plan in DEFAULT_PLANS
    )
)


def services_required() -> bool:
    return os.environ.get("SCHOOLDATA_REQUIRE_SERVICES") == "1"


def unavailable(message: str) -> None:
    """Skip with a reason, or fail when the run requires services (CI)."""
    if services_required():
        pytest.fail(message)
    pytest.skip(message)


# ---- PostgreSQL --------------------------------------------------------------------------


def postgres_admin() -> Engine:
    engine = create_engine(
        POSTGRES_URL, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 3}
    )
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as exc:
        engine.dispose()
        where = make_url(POSTGRES_URL).render_as_string(hide_password=True)
        unavailable(f"PostgreSQL not reachable at {where}: {type(exc).__name__}")
    return engine


@contextmanager
def postgres_schema(*, via_port: int | None = None) -> Iterator[tuple[str, str]]:
    """(direct URL, URL through `via_port`) of a fresh private schema; dropped afterwards."""
    admin = postgres_admin()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    schema = f"sd_rel_{worker}_{uuid.uuid4().hex[:10]}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    # Each connection names its schema, so whatever a test leaves open is ended with it.
    url = make_url(POSTGRES_URL).update_query_dict(
        {"options": f"-csearch_path={schema}", "application_name": schema}
    )
    proxied = url.set(host="127.0.0.1", port=via_port) if via_port else url  # the FaultProxy
    try:
        yield (
            url.render_as_string(hide_password=False),
            proxied.render_as_string(hide_password=False),
        )
    finally:
        with admin.connect() as conn:
            end_connections_of(conn, schema)
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


# ---- Redis -------------------------------------------------------------------------------


def redis_url() -> str:
    """A Redis database 1-15 (keys are unique per test, and expire after 3 s anyway)."""
    url = f"redis://{REDIS_HOST}:{REDIS_PORT}/{random.randint(1, 15)}"
    try:
        redis.Redis.from_url(url, socket_connect_timeout=0.5).ping()
    except redis.RedisError as exc:
        unavailable(f"Redis not reachable at {REDIS_HOST}:{REDIS_PORT}: {type(exc).__name__}")
    return url


# ---- data --------------------------------------------------------------------------------


def load_fixture(store: DataStore) -> None:
    """The shared hand-built dataset (tests.support.dataset) into any store, as one import."""
    from schooldata.application.rescore import compute_scores

    reference = fixture.build_store()
    with store.transaction() as tx:
        tx.replace_schools(schools=fixture.SCHOOLS)
        tx.replace_postcodes(postcodes=fixture.POSTCODES.items(), source="codepoint_open")
        tx.replace_measures(dataset="ks4_results", records=fixture._measures())
        tx.set_scores(
            scores=compute_scores(
                tx.served_schools(), tx.measures(codes={"ks4_attainment8_average"})
            )
        )
        for record in reference.current():
            tx.record_dataset(record=record)


def worker_env(url: str, home: Path) -> dict[str, str]:
    """This process's environment less its SCHOOLDATA_* settings, with a database, the key
    secret and a home: what a `schooldata` subprocess of a test runs with."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCHOOLDATA_")}
    env.update(
        SCHOOLDATA_DATABASE_URL=url, SCHOOLDATA_KEY_SECRET=KEY_SECRET, SCHOOLDATA_HOME=str(home)
    )
    return env


def sql_store(url: str) -> SqlStore:
    store = SqlStore(url)
    store.upgrade()
    return store


def text_columns(engine: Engine) -> dict[str, list[str]]:
    """Every table's text-like columns (for scanning stored rows for secrets)."""
    found: dict[str, list[str]] = {}
    inspector = inspect(engine)
    for table in inspector.get_table_names():
        columns = [
            c["name"]
            for c in inspector.get_columns(table)
            if any(
                word in str(c["type"]).upper()
                for word in ("CHAR", "TEXT", "CLOB", "JSON", "STRING")
            )
        ]
        if columns:
            found[table] = columns
    return found


def stored_text(engine: Engine) -> str:
    """All text held in every table's text columns, as one string."""
    parts: list[str] = []
    with engine.connect() as conn:
        for table, columns in text_columns(engine).items():
            quoted = ", ".join(f'"{c}"' for c in columns)
            for row in conn.execute(text(f'SELECT {quoted} FROM "{table}"')):
                parts.extend(str(v) for v in row if v is not None)
    return "\n".join(parts)


def dataset_record(name: str = "gias_establishments", rows: int = 0) -> DatasetRecord:
    import datetime as dt

    return DatasetRecord(
        name=name,
        title="reliability test data",
        publisher="Department for Education",
        licence="Open Government Licence v3.0",
        attribution="Contains public sector information licensed under the OGL v3.0.",
        url="https://get-information-schools.service.gov.uk/Downloads",
        extract_date=dt.date(2026, 10, 31),
        imported_at=dt.datetime(2026, 11, 1, tzinfo=dt.UTC),
        row_count=rows,
        synthetic=True,
    )


# ---- figures -----------------------------------------------------------------------------


def record_figures(name: str, figures: Mapping[str, Any]) -> None:
    """Keep a run's figures in test-artifacts/reliability-<name>.json (docs/reliability.md)."""
    import json

    directory = ROOT / "test-artifacts"
    directory.mkdir(exist_ok=True)
    path = directory / f"reliability-{name}.json"
    path.write_text(json.dumps(dict(figures), indent=2, default=str) + "\n")


# ---- logs --------------------------------------------------------------------------------


@contextmanager
def captured_logs(level: int = logging.INFO) -> Iterator[io.StringIO]:
    """Every log line of this process, formatted as production formats it (JSON)."""
    from schooldata.entrypoints.observability.logs import JsonFormatter

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    saved = root.level
    root.addHandler(handler)
    root.setLevel(level)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(saved)


# ---- servers -----------------------------------------------------------------------------


class ServerProcess:
    """`uvicorn --factory schooldata.bootstrap:asgi_from_environment` in a subprocess."""

    def __init__(self, env: Mapping[str, str], *, log_path: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("SCHOOLDATA_")}
        full_env.update(env)
        full_env["PYTHONUNBUFFERED"] = "1"
        self._log = log_path.open("wb")
        self.process = subprocess.Popen(
            [
                PYTHON,
                "-m",
                "uvicorn",
                "--factory",
                "schooldata.bootstrap:asgi_from_environment",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--no-access-log",
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=full_env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()[-3000:]}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base}/health", timeout=1).status_code == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError(f"server did not start: {self.log_path.read_text()[-3000:]}")

    def rss_kib(self) -> int:
        """Resident set size from /proc, in KiB."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self._log.close()

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextmanager
def server_processes(
    count: int, env: Mapping[str, str], directory: Path
) -> Iterator[list[ServerProcess]]:
    servers = [ServerProcess(env, log_path=directory / f"server-{i}.log") for i in range(count)]
    try:
        for server in servers:
            server.wait_ready()
        yield servers
    finally:
        for server in servers:
            server.stop()
