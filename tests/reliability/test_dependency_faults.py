"""Dependency faults under load: PostgreSQL, Redis and the key store go away mid-run (through
a `FaultProxy`; the real services are never touched) and come back.

What holds (DECISIONS: Errors; docs/reliability.md):
- PostgreSQL gone: keyed calls answer 503 `service_unavailable`, public search its documented
  500 `search_unavailable`, public get-school 503, each within the connect timeout (5 s) plus
  a margin, never a stack trace; no worker hangs; everything answers 200 again within about
  a second of the database coming back. Public reads come from an in-memory snapshot that
  re-checks the data version once a second, so they keep answering for at most that second.
- Redis gone: rate limiting falls back to per-process windows (a warning is logged, /ready
  says `degraded`), never a 500; the shared windows come back with Redis.
- Key store gone (keys and quotas on a database of their own): keyed calls 503, anonymous
  calls keep working.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient
from sqlalchemy.exc import OperationalError

from schooldata.adapters.memory.access import (
    InMemoryKeyStore,
    InMemoryQuotaCounter,
    InMemoryRateLimiter,
)
from schooldata.adapters.memory.snapshot import SnapshotReader
from schooldata.adapters.memory.store import InMemoryStore
from schooldata.adapters.redis.rate import RedisRateLimiter
from schooldata.adapters.sql.connect_breaker import RETRY_SECONDS
from schooldata.adapters.sql.engine import POSTGRES_CONNECT_TIMEOUT_S, create_engine_for
from schooldata.adapters.sql.key_store import SqlKeyStore
from schooldata.adapters.sql.quota_counter import SqlQuotaCounter
from schooldata.adapters.sql.store import SqlStore
from schooldata.adapters.system import SecureIds, SystemClock
from schooldata.application.service import Application, Ports, build_application
from schooldata.bootstrap import TEST_SECRET, bootstrap, build_asgi
from schooldata.domain.errors import DataUnavailable
from schooldata.domain.plans import PlanCatalogue
from schooldata.domain.search import SchoolQuery
from schooldata.settings import Settings, load_settings
from tests.reliability.load import Load, Sample, Target
from tests.reliability.proxy import FaultProxy, Mode
from tests.reliability.support import KEY_SECRET, load_fixture, record_figures, sql_store
from tests.support.dataset import build_store
from tests.support.servers import live_server

# A dependency that stops answering costs at most its connect timeout; 2 s of margin for the
# rest of the request on a loaded CI machine.
LATENCY_BOUND = POSTGRES_CONNECT_TIMEOUT_S + 2.0
SNAPSHOT_STALENESS = 2.0 + 0.3  # SnapshotReader's staleness bound, plus scheduling slack
RECOVERY_BOUND = 3.0
LEAK_MARKERS = ("Traceback", "psycopg", "OperationalError", "sqlalchemy", "redis.exceptions")
MCP_HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/list",
}
MCP_LIST = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/list",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "reliability", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        },
    }
).encode()


def production(home: Path, **overrides: Any) -> tuple[Settings, Application]:
    settings = load_settings({}, key_secret=KEY_SECRET, home=home, **overrides)
    return settings, bootstrap(settings)


def bearer(key: str) -> tuple[tuple[str, str], ...]:
    return (("Authorization", f"Bearer {key}"),)


def in_progress(base: str) -> float:
    text = httpx.get(f"{base}/metrics", timeout=10).text
    for line in text.splitlines():
        if line.startswith("schooldata_http_requests_in_progress "):
            return float(line.split()[1])
    raise AssertionError("no in-progress gauge in /metrics")


def assert_no_leak(samples: list[Sample]) -> None:
    for sample in samples:
        text = sample.body.decode("utf-8", errors="replace")
        for marker in LEAK_MARKERS:
            assert marker not in text, (sample.label, sample.status, text[:300])


# ---- PostgreSQL unreachable mid-load ------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.parametrize(("mode", "outage"), [("refuse", 4.0), ("blackhole", 7.0)])
def test_postgres_outage_mid_load_is_a_bounded_503_and_recovers(
    mode: Mode,
    outage: float,
    pg_proxy: FaultProxy,
    pg_urls: tuple[str, str],
    tmp_path: Path,
) -> None:
    direct, proxied = pg_urls
    load_fixture(sql_store(direct))
    settings, app = production(tmp_path, database_url=proxied)
    # A key per keyed client: each stays well under the plan's rate (100/s) even when its
    # requests fail fast, so a 429 never stands in for the outage's documented failure.
    keys = [
        app.keys.create_key(organisation="load", name=f"t{i}", plan="enterprise").key
        for i in range(3)
    ]
    targets = [
        Target("public-search", "GET", "/api/v1/search?query=st"),
        Target("public-get", "GET", "/api/v1/schools/100001"),
        Target("keyed-meta", "GET", "/api/v1/meta", bearer(keys[0])),
        Target("keyed-profile", "GET", "/api/v1/schools/100001", bearer(keys[1])),
        Target("keyed-list", "GET", "/api/v1/schools?q=st", bearer(keys[2])),
    ]
    with live_server(build_asgi(app, settings)) as base:
        # One client per target: five requests at a time, within the server's worker threads
        # (see test_a_hung_database_with_more_requests_than_worker_threads below).
        load = Load(base, targets, clients=1, timeout=30, pause_between=0.02).start()
        time.sleep(1.5)
        pg_proxy.pause(mode)  # returns once every open connection is dropped
        paused_at = time.monotonic()
        time.sleep(outage)
        resumed_at = time.monotonic()
        pg_proxy.resume()
        time.sleep(RECOVERY_BOUND + 1.0)
        hung = load.stop(join_timeout=LATENCY_BOUND + 5)
        assert not hung, "client threads hung"
        assert in_progress(base) <= 1  # the /metrics request itself
        ready = httpx.get(f"{base}/ready", timeout=10)
        assert ready.status_code == 200, ready.text

    samples = load.samples
    assert_no_leak(samples)
    slowest = max(samples, key=lambda s: s.seconds)
    assert slowest.seconds < LATENCY_BOUND, slowest
    # Keyed calls read the key store: every one that starts after the pause fails. Public
    # reads come from the snapshot, which may answer from memory for one refresh interval.
    expected_failure = {
        "public-search": (500, "search_unavailable"),
        "public-get": (503, "service_unavailable"),
        "keyed-meta": (503, "service_unavailable"),
        "keyed-profile": (503, "service_unavailable"),
        "keyed-list": (503, "service_unavailable"),
    }
    for label, (status, code) in expected_failure.items():
        mine = load.of(label)
        # At any time: success, or the documented failure (never another 5xx, never a 200
        # with partial data: a 200 is a whole answer, checked below).
        assert {(s.status, s.code) for s in mine} <= {(200, None), (status, code)}, label
        # Started during the outage (their first database access too): the documented failure,
        # including those still waiting for a connection when it ends.
        grace = SNAPSHOT_STALENESS if label.startswith("public") else 0.0
        during = [s for s in mine if paused_at + grace <= s.started < resumed_at - 0.5]
        assert during, f"{label}: no request during the outage"
        assert all(s.status == status for s in during), (label, Counter(s.status for s in during))
        after = [s for s in mine if s.started >= resumed_at]
        first_ok = min((s.ended - resumed_at for s in after if s.status == 200), default=None)
        assert first_ok is not None and first_ok < RECOVERY_BOUND, (label, first_ok)
        late = [s for s in after if s.started >= resumed_at + RECOVERY_BOUND - 1.0]
        assert late and all(s.status == 200 for s in late), (label, Counter(s.status for s in late))
    for sample in samples:
        if sample.status == 200 and sample.label.startswith("keyed"):
            assert json.loads(sample.body)["data"], "a keyed 200 carries its whole answer"
    record_figures(
        f"postgres-outage-{mode}",
        {
            "outage_seconds": outage,
            "requests": len(samples),
            "statuses": dict(Counter(s.status for s in samples)),
            "slowest_seconds": round(slowest.seconds, 2),
            "slowest_during_outage_by_label": {
                label: round(
                    max(
                        (
                            s.seconds
                            for s in load.of(label)
                            if s.started >= paused_at and s.started < resumed_at
                        ),
                        default=0.0,
                    ),
                    2,
                )
                for label in expected_failure
            },
            "first_200_after_resume_seconds": {
                label: round(
                    min(
                        (
                            s.ended - resumed_at
                            for s in load.of(label)
                            if s.started >= resumed_at and s.status == 200
                        ),
                        default=-1.0,
                    ),
                    2,
                )
                for label in expected_failure
            },
        },
    )


@pytest.mark.postgres
def test_after_a_failed_connect_new_connects_fail_at_once_until_the_next_trial(
    pg_proxy: FaultProxy, pg_urls: tuple[str, str]
) -> None:
    _, proxied = pg_urls
    engine = create_engine_for(proxied + "&connect_timeout=1")
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
        pg_proxy.pause("blackhole")
        engine.dispose()  # the next query needs a new connection

        def connect_seconds() -> tuple[float, str]:
            started = time.monotonic()
            with pytest.raises(OperationalError) as failure, engine.connect() as conn:
                conn.exec_driver_sql("SELECT 1")
            return time.monotonic() - started, str(failure.value.orig)

        waited, _ = connect_seconds()  # waits out connect_timeout
        assert waited >= 0.9
        fast, message = connect_seconds()  # the breaker: at once, the driver's error class
        assert fast < 0.2 and "moments ago" in message
        time.sleep(RETRY_SECONDS)
        pg_proxy.resume()
        started = time.monotonic()
        with engine.connect() as conn:  # the next trial finds the server back
            assert conn.exec_driver_sql("SELECT 1").scalar() == 1
        assert time.monotonic() - started < 1.0
    finally:
        engine.dispose()


@pytest.mark.slow
@pytest.mark.postgres
def test_a_hung_database_with_more_requests_than_worker_threads(
    pg_proxy: FaultProxy, pg_urls: tuple[str, str], tmp_path: Path
) -> None:
    direct, proxied = pg_urls
    load_fixture(sql_store(direct))
    settings, app = production(tmp_path, database_url=proxied)
    key = app.keys.create_key(organisation="crowd", name="t", plan="enterprise").key
    targets = [Target("keyed-meta", "GET", "/api/v1/meta", bearer(key))]
    with live_server(build_asgi(app, settings)) as base:
        load = Load(base, targets, clients=16, timeout=60).start()
        time.sleep(1.0)
        pg_proxy.pause("blackhole")
        time.sleep(12.0)
        pg_proxy.resume()
        assert not load.stop(join_timeout=60)
    slowest = max(load.samples, key=lambda s: s.seconds)
    record_figures(
        "postgres-hang-16-clients",
        {
            "requests": len(load.samples),
            "statuses": dict(Counter(s.status for s in load.samples)),
            "slowest_seconds": round(slowest.seconds, 2),
        },
    )
    assert slowest.seconds < LATENCY_BOUND, slowest


# ---- Redis unavailable --------------------------------------------------------------------


def windows(samples: list[Sample]) -> Counter[int]:
    """Admitted (200) keyed requests per server-side rate window (epoch second)."""
    return Counter(int(s.header("x-ratelimit-reset") or 0) - 1 for s in samples if s.status == 200)


@pytest.mark.redis
@pytest.mark.parametrize("mode", ["refuse", "blackhole"])
def test_redis_outage_falls_back_to_per_process_windows_and_never_fails(
    mode: Mode,
    redis_direct_url: str,
    redis_proxy: FaultProxy,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    database = tmp_path / "redis-fault.sqlite3"
    load_fixture(sql_store(f"sqlite:///{database}"))
    db = redis_direct_url.rsplit("/", 1)[1]
    settings, app = production(
        tmp_path,
        database_url=f"sqlite:///{database}",
        redis_url=f"redis://127.0.0.1:{redis_proxy.port}/{db}",
    )
    assert isinstance(app.ports.rate, RedisRateLimiter)
    key = app.keys.create_key(organisation="redis-fault", name="t", plan="developer").key
    targets = [Target("keyed-meta", "GET", "/api/v1/meta", bearer(key))]
    caplog.set_level(logging.WARNING, logger="schooldata.rate")
    with live_server(build_asgi(app, settings)) as base:
        assert httpx.get(f"{base}/ready", timeout=10).json()["checks"]["metering"]["status"] == "ok"
        load = Load(base, targets, clients=3, timeout=30).start()
        time.sleep(1.2)
        redis_proxy.pause(mode)
        paused_at, paused_epoch = time.monotonic(), time.time()
        time.sleep(4.0)
        degraded = httpx.get(f"{base}/ready", timeout=10)
        resumed_at, resumed_epoch = time.monotonic(), time.time()
        redis_proxy.resume()
        time.sleep(2.0)
        assert not load.stop(join_timeout=10)
        recovered = httpx.get(f"{base}/ready", timeout=10)

    samples = load.samples
    assert_no_leak(samples)
    assert {s.status for s in samples} <= {200, 429}, Counter(s.status for s in samples)
    assert max(s.seconds for s in samples) < 2.0  # Redis socket timeouts are 0.5 s
    # One process: Redis, then the per-process fallback, each keep the plan's rate (5/s). The
    # two count separately, so a second in which the limiter switches may admit up to twice
    # it: the second of the switch, and the one before when a request that started in it was
    # still waiting for Redis at the switch (redis-py retries on a fresh connection).
    slowest = max(s.seconds for s in samples)
    for window, admitted in windows(samples).items():
        switching = any(
            window <= edge < window + 1.0 + slowest for edge in (paused_epoch, resumed_epoch)
        )
        assert admitted <= (10 if switching else 5), (window, windows(samples))
    assert any(
        not any(w <= edge < w + 1.0 + slowest for edge in (paused_epoch, resumed_epoch))
        and paused_epoch < w < resumed_epoch
        for w in windows(samples)
    ), "no second entirely on the fallback was checked"
    during = [s for s in samples if paused_at <= s.started and s.ended < resumed_at]
    assert any(s.status == 200 for s in during) and any(s.status == 429 for s in during)
    assert degraded.status_code == 200, degraded.text
    assert degraded.json()["status"] == "degraded"
    assert recovered.json()["checks"]["metering"]["status"] == "ok", recovered.text
    messages = [r.getMessage() for r in caplog.records if r.name == "schooldata.rate"]
    assert any("per-process windows" in m for m in messages), messages
    assert any("recovered" in m for m in messages), messages
    record_figures(
        f"redis-outage-{mode}",
        {
            "requests": len(samples),
            "statuses": dict(Counter(s.status for s in samples)),
            "slowest_seconds": round(slowest, 2),
            "admitted_per_window": sorted(windows(samples).values()),
        },
    )


def test_an_unreachable_redis_from_the_start_still_serves_and_limits(tmp_path: Path) -> None:
    """No services needed: a Redis URL nobody listens on."""
    store = build_store()
    app = _app(store, rate=RedisRateLimiter("redis://127.0.0.1:9/0"))
    key = app.keys.create_key(organisation="no-redis", name="t", plan="developer").key
    with _client(app, tmp_path) as client:
        statuses = [
            client.get("/api/v1/meta", headers={"Authorization": f"Bearer {key}"}).status_code
            for _ in range(8)
        ]
        ready = client.get("/ready").json()
    assert set(statuses) <= {200, 429} and statuses.count(200) >= 5
    assert ready["checks"]["metering"]["status"] == "degraded"


# ---- the key store unavailable ------------------------------------------------------------


def _app(
    store: InMemoryStore | SqlStore,
    *,
    keys: Any = None,
    quota: Any = None,
    rate: Any = None,
    secret: bytes = TEST_SECRET,
) -> Application:
    schools = SnapshotReader(store) if isinstance(store, SqlStore) else store
    ports = Ports(
        schools=schools,
        postcodes=store,
        datasets=store,
        links=store,
        measures=store,
        inspections=store,
        store=store,
        changes=store,
        keys=keys or InMemoryKeyStore(),
        rate=rate or InMemoryRateLimiter(),
        quota=quota or InMemoryQuotaCounter(),
        clock=SystemClock(),
        ids=SecureIds(),
    )
    return build_application(ports=ports, plans=PlanCatalogue(), key_secret=secret)


@contextmanager
def _client(app: Application, home: Path) -> Iterator[TestClient]:  # type: ignore[type-arg]
    settings = load_settings({}, home=home)
    with TestClient(app=build_asgi(app, settings), base_url="http://127.0.0.1") as client:  # type: ignore[arg-type]
        yield client


class FlakyKeyStore(InMemoryKeyStore):
    """An in-memory key store that can be switched off (raising as the SQL adapter does)."""

    down = False

    def find_key(self, *, key_hash: str) -> Any:
        if self.down:
            raise DataUnavailable("The key store is temporarily unavailable.")
        return super().find_key(key_hash=key_hash)


def test_a_failing_key_store_is_503_for_keyed_calls_while_anonymous_calls_are_served(
    tmp_path: Path,
) -> None:
    keys = FlakyKeyStore()
    app = _app(build_store(), keys=keys)
    key = app.keys.create_key(organisation="ks", name="t", plan="enterprise").key
    keyed = {"Authorization": f"Bearer {key}"}
    with _client(app, tmp_path) as client:
        keys.down = True
        for path in ("/api/v1/meta", "/api/v1/schools/100001"):
            answer = client.get(path, headers=keyed)
            assert answer.status_code == 503, (path, answer.text)
            assert answer.json()["error"]["code"] == "service_unavailable"
            assert answer.headers["cache-control"] == "no-store"
            assert "www-authenticate" not in answer.headers
        # The public search keeps its documented 500 whatever dependency failed (DECISIONS).
        search = client.get("/api/v1/search?query=st", headers=keyed)
        assert search.status_code == 500, search.text
        assert search.json()["code"] == "search_unavailable"
        assert search.headers["cache-control"] == "no-store"
        assert "www-authenticate" not in search.headers
        mcp = client.post("/mcp", content=MCP_LIST, headers={**MCP_HEADERS, **keyed})
        assert mcp.status_code == 503, mcp.text
        assert client.get("/api/v1/search?query=st").status_code == 200
        assert client.get("/api/v1/schools/100001").status_code == 200
        assert client.post("/mcp", content=MCP_LIST, headers=MCP_HEADERS).status_code == 200
        keys.down = False
        assert client.get("/api/v1/meta", headers=keyed).status_code == 200


class BrokenQuota(InMemoryQuotaCounter):
    def consume(self, *, organisation: str, period: str, limit: int) -> int | None:
        raise RuntimeError("connection to the quota database lost")


def test_a_failing_quota_counter_is_503_never_a_500_nor_an_unmetered_200(tmp_path: Path) -> None:
    app = _app(build_store(), quota=BrokenQuota())
    key = app.keys.create_key(organisation="quota", name="t", plan="enterprise").key
    with _client(app, tmp_path) as client:
        answer = client.get("/api/v1/meta", headers={"Authorization": f"Bearer {key}"})
    assert answer.status_code == 503
    assert answer.json()["error"]["code"] == "service_unavailable"
    assert "connection to the quota database" not in answer.text


@pytest.mark.postgres
@pytest.mark.parametrize("mode", ["refuse", "blackhole"])
def test_key_store_outage_keyed_503_anonymous_keeps_working(
    mode: Mode, pg_proxy: FaultProxy, pg_urls: tuple[str, str], tmp_path: Path
) -> None:
    """Keys and quotas on PostgreSQL (through the proxy), the register on SQLite."""
    _, proxied = pg_urls
    data = sql_store(f"sqlite:///{tmp_path / 'data.sqlite3'}")
    load_fixture(data)
    access = sql_store(proxied)
    app = _app(
        data,
        keys=SqlKeyStore(access.engine),
        quota=SqlQuotaCounter(access.engine),
        secret=KEY_SECRET.encode(),
    )
    key = app.keys.create_key(organisation="keystore", name="t", plan="enterprise").key
    settings = load_settings({}, home=tmp_path)
    targets = [
        Target("anonymous-search", "GET", "/api/v1/search?query=st"),
        Target("anonymous-get", "GET", "/api/v1/schools/100001"),
        Target("keyed-meta", "GET", "/api/v1/meta", bearer(key)),
        Target("keyed-public-search", "GET", "/api/v1/search?query=st", bearer(key)),
    ]
    with live_server(build_asgi(app, settings)) as base:
        load = Load(base, targets, clients=1, timeout=30, pause_between=0.02).start()
        time.sleep(1.0)
        pg_proxy.pause(mode)
        paused_at = time.monotonic()
        time.sleep(6.5 if mode == "blackhole" else 3.0)
        resumed_at = time.monotonic()
        pg_proxy.resume()
        time.sleep(2.5)
        assert not load.stop(join_timeout=LATENCY_BOUND + 5)
    access.close()
    data.close()

    assert_no_leak(load.samples)
    assert max(s.seconds for s in load.samples) < LATENCY_BOUND
    for label in ("anonymous-search", "anonymous-get"):
        assert {s.status for s in load.of(label)} == {200}, label
    # The public search keeps its documented 500 for any failing dependency (DECISIONS).
    outage = {
        "keyed-meta": (503, "service_unavailable"),
        "keyed-public-search": (500, "search_unavailable"),
    }
    for label, (status, code) in outage.items():
        mine = load.of(label)
        assert {(s.status, s.code) for s in mine} <= {(200, None), (status, code)}
        during = [s for s in mine if paused_at <= s.started < resumed_at - 0.5]
        assert during and {s.status for s in during} == {status}, label
        assert all(s.header("cache-control") == "no-store" for s in during)
        late = [s for s in mine if s.started >= resumed_at + 1.0]
        assert late and {s.status for s in late} == {200}, label
    record_figures(
        f"key-store-outage-{mode}",
        {
            "requests": len(load.samples),
            "statuses_by_label": {
                label: dict(Counter(s.status for s in load.of(label)))
                for label in (
                    "anonymous-search",
                    "anonymous-get",
                    "keyed-meta",
                    "keyed-public-search",
                )
            },
            "slowest_seconds": round(max(s.seconds for s in load.samples), 2),
        },
    )


# ---- the serving snapshot's failure path --------------------------------------------------


class SlowFailingSource:
    """A register source whose version check takes `delay` seconds and then fails while down."""

    def __init__(self, inner: InMemoryStore, delay: float) -> None:
        self._inner = inner
        self.delay = delay
        self.down = False
        self.checks = 0
        self._lock = threading.Lock()

    def version(self) -> str:
        with self._lock:
            self.checks += 1
        if self.down:
            time.sleep(self.delay)
            raise DataUnavailable()
        return self._inner.version()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def test_a_hung_or_failing_store_never_makes_a_snapshot_reader_wait() -> None:
    """Found by the PostgreSQL blackhole test: waiting readers used to repeat the failed check
    one after another, so the Nth request took N connect timeouts. The check now runs in the
    background: readers fail at once (stale or failed), and answer again after a good one."""
    source = SlowFailingSource(build_store(), delay=0.6)
    reader = SnapshotReader(source, refresh_seconds=0.2, stale_after=0.5)  # type: ignore[arg-type]
    reader.search(query=SchoolQuery())
    source.down = True
    time.sleep(0.9)  # a check hangs 0.6 s and fails: stale, then failed
    latencies: list[float] = []
    errors: list[type[Exception]] = []
    lock = threading.Lock()

    def read() -> None:
        started = time.monotonic()
        try:
            reader.search(query=SchoolQuery())
        except Exception as error:
            with lock:
                errors.append(type(error))
        with lock:
            latencies.append(time.monotonic() - started)

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == [DataUnavailable] * 8
    assert max(latencies) < 0.1, latencies  # no reader waits on the store
    source.down = False
    deadline = time.monotonic() + 3.0
    while True:
        try:
            assert reader.search(query=SchoolQuery()).total > 0  # back after a good check
            break
        except DataUnavailable:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    reader.close()
