"""A worker that dies while a dependency is down is replaced by one that serves.

`schooldata serve --workers 2` in a subprocess (granian, as an operator runs it). The database
goes away (SQLite: the file moved aside and a directory put in its place; PostgreSQL and
Redis: their fault proxies refuse), then workers are killed with SIGKILL. What holds
(docs/reliability.md, "A worker restarts during an outage"):

- the replacements start without touching the database and answer as a running worker
  does during an outage: `/health` 200, `/ready` 503, public search its documented 500
  `search_unavailable`, get-school and keyed calls 503 `service_unavailable`;
- the server never exits, and no worker keeps dying (granian gives up on a worker that dies
  again within 5.5 s of a respawn, and takes the whole server down with it);
- every answer is 200 again within a few seconds of the dependency coming back.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from schooldata.bootstrap import bootstrap
from schooldata.settings import load_settings
from tests.reliability.load import error_code
from tests.reliability.proxy import FaultProxy
from tests.reliability.serving import ServeProcess, serving
from tests.reliability.support import KEY_SECRET, load_fixture, record_figures, sql_store

RECOVERY_BOUND = 5.0  # seconds from the dependency's return to every probe answering 200
MAX_ROUNDS = 40  # rounds of probes before concluding the replacement never answered
# A running worker answers public reads from its in-memory snapshot for at most a second of
# an outage (docs/reliability.md, "A dependency fails"); past it, the outage's answers.
SNAPSHOT_STALENESS = 1.2
OUTAGE_ANSWERS = {
    "health": (200, None),
    "ready": (503, None),
    "public-search": (500, "search_unavailable"),
    "public-get": (503, "service_unavailable"),
    "keyed-meta": (503, "service_unavailable"),
}
LEAK_MARKERS = ("Traceback", "sqlite3", "psycopg", "OperationalError", "sqlalchemy")

Answer = tuple[int, str | None]


def probe(base: str, key: str) -> dict[str, Answer]:
    """One answer per probe, each on a new connection (the kernel spreads new connections
    over the workers' sockets)."""
    paths = {
        "health": ("/health", {}),
        "ready": ("/ready", {}),
        "public-search": ("/api/v1/search?query=st", {}),
        "public-get": ("/api/v1/schools/100001", {}),
        "keyed-meta": ("/api/v1/meta", {"Authorization": f"Bearer {key}"}),
    }
    answers: dict[str, Answer] = {}
    for label, (path, headers) in paths.items():
        response = httpx.get(base + path, headers=headers, timeout=10)
        for marker in LEAK_MARKERS:
            assert marker not in response.text, (label, response.text[:300])
        answers[label] = (response.status_code, error_code(response.content))
    return answers


def issue_key(**settings: str) -> str:
    app = bootstrap(load_settings({}, key_secret=KEY_SECRET, **settings))
    key = app.keys.create_key(organisation="restarts", name="t", plan="enterprise").key
    app.ports.store.close()  # type: ignore[attr-defined]
    return key


def kill_and_wait(server: ServeProcess, worker: int) -> int:
    """SIGKILL one worker; the pid of its replacement once it is up."""
    known = server.workers()
    os.kill(worker, signal.SIGKILL)
    return server.wait_for_new_worker(known)


def answers_through_outage(
    server: ServeProcess, key: str, seconds: float
) -> list[dict[str, Answer]]:
    rounds = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        rounds.append(probe(server.base, key))
        time.sleep(0.05)
    return rounds


def recovery_seconds(server: ServeProcess, key: str) -> float:
    """From now (the dependency just came back) to the first round in which every probe
    answers 200 and every answer of the five rounds after it is 200 as well. (Each worker
    notices the return on its own next check, so a round served by one worker alone may
    answer 200 while the other has not noticed yet: the count starts again then.)"""
    back = time.monotonic()
    recovered: float | None = None
    steady = 0
    while steady < 6:
        answers = probe(server.base, key)
        if all(status == 200 for status, _ in answers.values()):
            if recovered is None:
                recovered = time.monotonic() - back
            steady += 1
            continue
        recovered, steady = None, 0
        assert time.monotonic() - back < RECOVERY_BOUND, answers
        time.sleep(0.1)
    assert recovered is not None
    return recovered


@contextmanager
def file_missing(path: Path, aside: Path) -> Iterator[None]:
    """The SQLite database (and its -wal and -shm) moved aside and a directory in its place:
    unopenable by anyone, root included. Processes that already hold it open keep it."""
    aside.mkdir()
    moved = []
    for suffix in ("", "-wal", "-shm"):
        source = Path(f"{path}{suffix}")
        if source.exists():
            source.rename(aside / source.name)
            moved.append(source)
    path.mkdir()
    try:
        yield
    finally:
        path.rmdir()
        for source in moved:
            (aside / source.name).rename(source)


def check_outage(
    server: ServeProcess, key: str, kill: Callable[[], list[int]], seconds: float = 1.0
) -> dict[str, object]:
    started = time.monotonic()
    replacements = kill()
    respawned_in = time.monotonic() - started
    workers = server.workers()
    rounds = answers_through_outage(server, key, seconds)
    assert server.alive(), server.output()[-3000:]
    assert server.workers() == workers, "a worker died again during the outage"
    for answers in rounds:
        assert answers == OUTAGE_ANSWERS, answers
    return {
        "replacement_workers": len(replacements),
        "respawned_within_seconds": round(respawned_in, 2),
        "outage_rounds": len(rounds),
    }


@pytest.fixture
def sqlite_served(tmp_path: Path) -> Iterator[tuple[ServeProcess, str, Path]]:
    """(the server, a key, its database file) for `schooldata serve --workers 2` on SQLite."""
    database = tmp_path / "data.sqlite3"
    url = f"sqlite:///{database}"
    load_fixture(sql_store(url))
    key = issue_key(database_url=url, home=str(tmp_path))
    env = {
        "SCHOOLDATA_DATABASE_URL": url,
        "SCHOOLDATA_KEY_SECRET": KEY_SECRET,
        "SCHOOLDATA_HOME": str(tmp_path / "home"),
    }
    with serving(env, tmp_path) as server:
        assert all(status == 200 for status, _ in probe(server.base, key).values())
        yield server, key, database
    assert "crash loop" not in server.output()


def test_a_worker_killed_while_the_sqlite_file_is_gone_is_replaced_and_serves_again(
    sqlite_served: tuple[ServeProcess, str, Path], tmp_path: Path
) -> None:
    """The issue's probe, CI-sized: one worker killed. The other, which held the file open,
    keeps answering from it; the replacement answers the outage's documented errors. New
    connections land on either worker (the kernel's choice), so the rounds go on until each
    probe has met the replacement, or fail after MAX_ROUNDS."""
    server, key, database = sqlite_served
    with file_missing(database, tmp_path / "aside"):
        started = time.monotonic()
        kill_and_wait(server, min(server.workers()))
        respawned_in = time.monotonic() - started
        workers = server.workers()
        met_outage: set[str] = set()
        rounds = 0
        while met_outage != set(OUTAGE_ANSWERS) and rounds < MAX_ROUNDS:
            rounds += 1
            for label, answer in probe(server.base, key).items():
                # The surviving worker's answer, or the documented answer of the outage.
                assert answer[0] == 200 or answer == OUTAGE_ANSWERS[label], (label, answer)
                if answer == OUTAGE_ANSWERS[label]:
                    met_outage.add(label)
        assert met_outage == set(OUTAGE_ANSWERS), f"never answered by the replacement: {met_outage}"
        assert server.alive() and server.workers() == workers, "a worker died again"
    recovered = recovery_seconds(server, key)
    record_figures(
        "worker-restart-sqlite-one",
        {
            "respawned_within_seconds": round(respawned_in, 2),
            "rounds": rounds,
            "recovery_seconds": round(recovered, 2),
        },
    )


@pytest.mark.slow
def test_both_workers_killed_while_the_sqlite_file_is_gone_answer_the_outage_then_serve(
    sqlite_served: tuple[ServeProcess, str, Path], tmp_path: Path
) -> None:
    server, key, database = sqlite_served
    first, second = sorted(server.workers())

    def kill_both() -> list[int]:
        # Workers that held the file open keep reading it: both are replaced, one after the
        # other, so every answer below comes from a worker started during the outage.
        return [kill_and_wait(server, first), kill_and_wait(server, second)]

    with file_missing(database, tmp_path / "aside"):
        figures = check_outage(server, key, kill_both)
    figures["recovery_seconds"] = round(recovery_seconds(server, key), 2)
    assert server.alive()
    record_figures("worker-restart-sqlite", figures)


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.parametrize("killed", ["one", pytest.param("both", marks=pytest.mark.slow)])
def test_a_worker_killed_while_postgres_and_redis_refuse_is_replaced_and_serves_again(
    pg_proxy: FaultProxy,
    pg_urls: tuple[str, str],
    redis_direct_url: str,
    redis_proxy: FaultProxy,
    tmp_path: Path,
    killed: str,
) -> None:
    direct, proxied = pg_urls
    load_fixture(sql_store(direct))
    key = issue_key(database_url=direct, home=str(tmp_path))
    redis_db = redis_direct_url.rsplit("/", 1)[1]
    env = {
        "SCHOOLDATA_DATABASE_URL": proxied,
        "SCHOOLDATA_REDIS_URL": f"redis://127.0.0.1:{redis_proxy.port}/{redis_db}",
        "SCHOOLDATA_KEY_SECRET": KEY_SECRET,
        "SCHOOLDATA_HOME": str(tmp_path / "home"),
    }
    with serving(env, tmp_path) as server:
        assert all(status == 200 for status, _ in probe(server.base, key).values())
        pg_proxy.pause("refuse")
        redis_proxy.pause("refuse")
        try:
            time.sleep(SNAPSHOT_STALENESS)  # the surviving worker's snapshot has noticed
            first, second = sorted(server.workers())

            def kill() -> list[int]:
                if killed == "one":
                    return [kill_and_wait(server, first)]
                # Both, one after the other: every answer comes from a worker started (and
                # its snapshot never built) during the outage.
                return [kill_and_wait(server, first), kill_and_wait(server, second)]

            figures = check_outage(server, key, kill)
        finally:
            pg_proxy.resume()
            redis_proxy.resume()
        figures["recovery_seconds"] = round(recovery_seconds(server, key), 2)
        ready = httpx.get(f"{server.base}/ready", timeout=10).json()
        assert ready["status"] == "ready", ready
        assert server.alive()
    assert "crash loop" not in server.output()
    suffix = "" if killed == "one" else "-both"
    record_figures(f"worker-restart-postgres-redis{suffix}", figures)
