"""Nothing lost: a failed import leaves the previous dataset served, readers never see half an
import, quota counters survive restarts exactly.

Over every store the service runs on: in memory, SQLite and PostgreSQL (a private schema).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import signal
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from schooldata.adapters.importers.gias import parse_gias
from schooldata.adapters.memory.snapshot import SnapshotReader
from schooldata.adapters.memory.store import InMemoryStore
from schooldata.adapters.sql.quota_counter import SqlQuotaCounter
from schooldata.adapters.sql.store import SqlStore
from schooldata.adapters.system import SystemClock
from schooldata.application.import_dataset import DatasetKind, ImportDataset
from schooldata.domain.errors import ImportRejected
from schooldata.domain.phase import GiasPhase
from schooldata.domain.school import School
from schooldata.domain.urn import Urn
from schooldata.ports.imports import RejectLog
from tests.reliability.support import (
    PYTHON,
    ROOT,
    dataset_record,
    load_fixture,
    postgres_schema,
    sql_store,
    worker_env,
)

GIAS_FIXTURE = ROOT / "tests" / "fixtures" / "importers" / "edubasealldata20250401.csv"
Store = InMemoryStore | SqlStore


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str | None]]:
    """(backend name, database URL or None for memory)."""
    if request.param == "memory":
        yield "memory", None
    elif request.param == "sqlite":
        yield "sqlite", f"sqlite:///{tmp_path / 'safety.sqlite3'}"
    else:
        with postgres_schema() as (direct, _):
            yield "postgres", direct


def open_store(url: str | None) -> Store:
    return InMemoryStore() if url is None else sql_store(url)


def state(store: Store) -> tuple[str, tuple[int, ...], tuple[tuple[str, int | None], ...]]:
    """What a reader can see: the data version, every served URN, the dataset records."""
    urns = tuple(sorted(s.urn.value for s in store.iter_all()))
    records = tuple((r.name, r.row_count) for r in store.current())
    return store.version(), urns, records


def schools(first_urn: int, count: int) -> list[School]:
    return [
        School(
            urn=Urn(first_urn + i),
            name=f"Generated School {i}",
            status="Open",
            la_code="202",
            la_name="Camden",
            type_name="Community school",
            gias_phase=GiasPhase.PRIMARY,
        )
        for i in range(count)
    ]


def importer(store: Store) -> ImportDataset:
    return ImportDataset(store=store, clock=SystemClock())


def run_import(store: Store, items: Any, log: RejectLog | None = None) -> Any:
    """Replace the register with `items`: an unrelated one on purpose, so the shrink guard
    (tests/reliability/test_import_shrink.py) is told it is meant."""
    return importer(store).execute(
        kind=DatasetKind.SCHOOLS,
        items=items,
        log=log or RejectLog(),
        record=dataset_record(),
        allow_shrink=True,
    )


# ---- failed imports leave the previous dataset -----------------------------------------------


def test_an_import_whose_input_raises_halfway_changes_nothing(
    backend: tuple[str, str | None],
) -> None:
    store = open_store(backend[1])
    load_fixture(store)
    before = state(store)

    def items() -> Iterator[School]:
        for number, school in enumerate(schools(300_000, 4_000)):
            if number == 2_500:
                raise RuntimeError("the source file vanished halfway")
            yield school

    with pytest.raises(RuntimeError, match="vanished halfway"):
        run_import(store, items())
    assert state(store) == before


def test_an_import_with_too_many_rejected_rows_changes_nothing(
    backend: tuple[str, str | None],
) -> None:
    store = open_store(backend[1])
    load_fixture(store)
    before = state(store)
    log = RejectLog()

    def items() -> Iterator[School]:
        for number, school in enumerate(schools(300_000, 1_000)):
            log.rows_read += 1
            if number % 3 == 0:  # a third of the rows are bad: far over the 1% tolerated
                log.reject(number + 2, "URN must be exactly six digits")
                continue
            yield school

    with pytest.raises(ImportRejected, match="nothing was imported"):
        run_import(store, items(), log)
    assert state(store) == before


def test_a_real_file_that_turns_bad_halfway_changes_nothing(
    backend: tuple[str, str | None], tmp_path: Path
) -> None:
    """The GIAS parser meets a byte that is neither UTF-8 nor cp1252 after 3,000 good rows."""
    store = open_store(backend[1])
    load_fixture(store)
    before = state(store)
    path = gias_file(tmp_path / "edubasealldata20261101.csv", rows=6_000)
    with path.open("ab") as handle:
        handle.write(b"999999,\x81\x81\x81\r\n")
    log = RejectLog()
    with pytest.raises(ImportRejected):
        run_import(store, parse_gias(path, log), log)
    assert log.rows_read >= 3_000
    assert state(store) == before


# ---- a killed import -------------------------------------------------------------------------


def gias_file(path: Path, *, rows: int, first_urn: int = 200_000) -> Path:
    """A GIAS extract of `rows` open schools, made from the 2025-layout fixture's first row."""
    with GIAS_FIXTURE.open(encoding="cp1252", newline="") as source:
        reader = csv.reader(source)
        header = next(reader)
        template = next(reader)
    template[header.index("URN")] = "{urn}"
    template[header.index("EstablishmentName")] = "Generated Academy {number}"
    buffer = io.StringIO()
    csv.writer(buffer).writerows([header, template])
    head, line = buffer.getvalue().splitlines(keepends=True)
    line = line.replace("{", "{{").replace("}", "}}")
    line = line.replace("{{urn}}", "{urn}").replace("{{number}}", "{number}")
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write(head)
        out.writelines(line.format(urn=first_urn + i, number=i) for i in range(rows))
    return path


def writing(url: str, schema: str | None) -> bool:
    """True once another process holds the write lock (SQLite) or has touched `schools`
    inside a transaction (PostgreSQL)."""
    if url.startswith("sqlite"):
        connection = sqlite3.connect(url.removeprefix("sqlite:///"), timeout=0)
        try:
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("ROLLBACK")
            return False
        except sqlite3.OperationalError:
            return True
        finally:
            connection.close()
    from tests.reliability.support import postgres_admin

    admin = postgres_admin()
    try:
        with admin.connect() as conn:
            held = conn.execute(
                text(
                    "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
                    "JOIN pg_namespace n ON n.oid = c.relnamespace "
                    "WHERE n.nspname = :schema AND c.relname = 'schools' "
                    "AND l.mode = 'RowExclusiveLock' AND l.pid <> pg_backend_pid()"
                ),
                {"schema": schema},
            ).scalar_one()
        return bool(held)
    finally:
        admin.dispose()


@pytest.mark.parametrize(
    "database", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def test_an_import_killed_mid_write_leaves_the_previous_dataset_served(
    database: str, tmp_path: Path
) -> None:
    path = gias_file(tmp_path / "edubasealldata20261101.csv", rows=10_000)
    with _url(database, tmp_path) as url:
        store = sql_store(url)
        load_fixture(store)
        before = state(store)
        schema = url.split("search_path%3D")[-1] if database == "postgres" else None
        env = worker_env(url, tmp_path / "home")
        process = subprocess.Popen(
            [PYTHON, "-m", "schooldata", "import", "gias", str(path), "--allow-shrink"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_for_rows_being_written(url, schema, process)
            assert process.poll() is None, "the import finished before it could be killed"
            process.send_signal(signal.SIGKILL)
        finally:
            process.kill()
            process.wait(timeout=30)
        assert process.returncode == -signal.SIGKILL

        store.close()
        reopened = sql_store(url)  # a restarted server
        assert state(reopened) == before
        # Nothing is left locked: the next import goes through and is served whole.
        _wait_until_unlocked(url, schema)
        run_import(reopened, schools(500_000, 10))
        assert state(reopened)[1] == tuple(range(500_000, 500_010))
        reopened.close()


def wait_for_rows_being_written(
    url: str, schema: str | None, process: subprocess.Popen[bytes], timeout: float = 120
) -> None:
    """Until the import is inserting rows: PostgreSQL, its transaction holds a write lock on
    `schools` (taken once the file is parsed); SQLite, it holds the write lock and its
    uncommitted pages have started spilling into the WAL (1 MiB more than at the start)."""
    deadline = time.monotonic() + timeout

    def alive() -> None:
        assert process.poll() is None, process.communicate()[0].decode()[-2000:]
        assert time.monotonic() < deadline, "the import never started writing"

    while not writing(url, schema):
        alive()
        time.sleep(0.02)
    if schema is not None:
        time.sleep(0.3)
        return
    wal = Path(url.removeprefix("sqlite:///") + "-wal")
    start = wal.stat().st_size if wal.exists() else 0
    while (wal.stat().st_size if wal.exists() else 0) < start + (1 << 20):
        alive()
        time.sleep(0.02)


def _wait_until_unlocked(url: str, schema: str | None, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while writing(url, schema):
        assert time.monotonic() < deadline, "the killed import's lock was never released"
        time.sleep(0.1)


@contextmanager
def _url(backend: str, directory: Path) -> Iterator[str]:
    """A database URL of the given backend: a SQLite file, or a private PostgreSQL schema."""
    if backend == "sqlite":
        yield f"sqlite:///{directory / 'killed.sqlite3'}"
        return
    with postgres_schema() as (direct, _):
        yield direct


# ---- readers during an import ----------------------------------------------------------------


def test_readers_during_imports_see_the_old_or_the_new_dataset_never_a_mix(
    backend: tuple[str, str | None],
) -> None:
    store = open_store(backend[1])
    old, new = schools(300_000, 600), schools(400_000, 1_000)
    old_urns = frozenset(s.urn.value for s in old)
    new_urns = frozenset(s.urn.value for s in new)
    run_import(store, old)
    snapshot = SnapshotReader(store, refresh_seconds=0.05)
    done = threading.Event()
    seen: dict[str, set[str]] = {}  # data version -> which dataset a reader saw at it
    mixes: list[str] = []
    observations = [0]
    lock = threading.Lock()

    def classify(urns: frozenset[int]) -> str:
        if urns == old_urns:
            return "old"
        if urns == new_urns:
            return "new"
        return f"mix of {len(urns)}"

    def direct_reader() -> None:
        while not done.is_set():
            before = store.version()
            kind = classify(frozenset(s.urn.value for s in store.iter_all()))
            after = store.version()
            with lock:
                observations[0] += 1
                if kind.startswith("mix"):
                    mixes.append(kind)
                if before == after:
                    seen.setdefault(before, set()).add(kind)

    def snapshot_reader() -> None:
        while not done.is_set():
            kind = classify(frozenset(s.urn.value for s in snapshot.iter_all()))
            with lock:
                observations[0] += 1
                if kind.startswith("mix"):
                    mixes.append(kind)

    readers = [threading.Thread(target=direct_reader), threading.Thread(target=snapshot_reader)]
    for reader in readers:
        reader.start()
    try:
        for dataset in (new, old, new):
            run_import(store, dataset)
            time.sleep(0.05)
    finally:
        done.set()
        for reader in readers:
            reader.join(timeout=60)
    assert not mixes, mixes[:5]
    assert observations[0] >= 4
    # One version, one content: a version observed twice always showed the same dataset.
    assert all(len(kinds) == 1 for kinds in seen.values()), seen


# ---- quota counters --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "database", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def test_quota_counters_are_exact_under_concurrency_and_survive_restarts(
    database: str, tmp_path: Path
) -> None:
    with _url(database, tmp_path) as url:
        first = sql_store(url)
        counter = SqlQuotaCounter(first.engine)
        period = dt.datetime.now(dt.UTC).strftime("%Y-%m")
        granted: list[int] = []
        refused = [0]
        lock = threading.Lock()

        def spend(times: int) -> None:
            for _ in range(times):
                used = counter.consume(organisation="acme", period=period, limit=150)
                with lock:
                    if used is None:
                        refused[0] += 1
                    else:
                        granted.append(used)

        threads = [threading.Thread(target=spend, args=(25,)) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        # 200 attempts against a limit of 150: exactly 150 granted, each count given once.
        assert sorted(granted) == list(range(1, 151))
        assert refused[0] == 50
        counter.consume(organisation="other", period=period, limit=10)
        first.close()

        restarted = sql_store(url)  # a new process over the same database
        again = SqlQuotaCounter(restarted.engine)
        assert again.used(organisation="acme", period=period) == 150
        assert again.consume(organisation="acme", period=period, limit=150) is None
        assert again.consume(organisation="acme", period=period, limit=151) == 151
        assert again.used(organisation="other", period=period) == 1
        assert again.used(organisation="acme", period="1999-01") == 0
        restarted.close()
