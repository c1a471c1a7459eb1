"""The composition root: settings in, a wired application out. The only module that names
concrete adapters. Tests call `bootstrap_memory` (or pass overrides) to build the same
application on fakes."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import secrets
import tomllib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio.to_thread

from schooldata.adapters.extras import MissingExtra
from schooldata.adapters.memory.access import (
    InMemoryKeyStore,
    InMemoryQuotaCounter,
    InMemoryRateLimiter,
)
from schooldata.adapters.memory.snapshot import SnapshotReader
from schooldata.adapters.memory.store import InMemoryStore
from schooldata.adapters.system import SecureIds, SystemClock
from schooldata.application.import_dataset import ImportDataset
from schooldata.application.operations.declaration import Port
from schooldata.application.publishers import Locations
from schooldata.application.refresh import RefreshSources
from schooldata.application.service import Application, Ports, build_application
from schooldata.domain.plans import PlanCatalogue, catalogue_from_mapping
from schooldata.ports.clock import Clock, IdSource
from schooldata.ports.downloads import Downloader
from schooldata.settings import Settings, SettingsError, load_settings

if TYPE_CHECKING:
    from schooldata.adapters.sql.store import SqlStore
    from schooldata.entrypoints.observability.otel import Tracing

TEST_SECRET = b"schooldata-test-secret-not-for-production-use"
EVERY_PORT = frozenset(Port)
SNAPSHOT_PORTS = frozenset({Port.SCHOOLS, Port.POSTCODES, Port.DATASETS})


def load_plans(settings: Settings) -> PlanCatalogue:
    if settings.plans_file is None:
        return PlanCatalogue()
    try:
        return catalogue_from_mapping(tomllib.loads(settings.plans_file.read_text("utf-8")))
    except (tomllib.TOMLDecodeError, ValueError) as error:
        raise SettingsError(f"plan catalogue {settings.plans_file}: {error}") from None


def key_secret(settings: Settings) -> bytes:
    """The server secret keys are hashed with. The embedded demo keeps its own; anywhere else
    a missing secret is a startup error (a generated one would orphan every stored key)."""
    if settings.key_secret:
        return settings.key_secret.encode()
    if not settings.uses_embedded_demo:
        from schooldata.adapters.sql.engine import describe

        # The database may come from --db, SCHOOLDATA_DATABASE_URL or a settings file: name
        # the database, not one of the ways it can be given.
        raise SettingsError(
            "SCHOOLDATA_KEY_SECRET is required for any database other than the embedded demo "
            f"(this one is {describe(settings.effective_database_url)}; at least 32 "
            "characters; keep it stable: stored key hashes depend on it)"
        )
    path = settings.home / "key-secret"
    if not path.exists():
        settings.home.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(48))
    return path.read_text().strip().encode()


def bootstrap_memory(
    *,
    store: InMemoryStore | None = None,
    clock: Clock | None = None,
    ids: IdSource | None = None,
    plans: PlanCatalogue | None = None,
    secret: bytes = TEST_SECRET,
) -> Application:
    """Everything in memory: for tests, the BDD drivers and the library's quick start."""
    data = store or InMemoryStore()
    ports = Ports(
        schools=data,
        postcodes=data,
        datasets=data,
        links=data,
        measures=data,
        inspections=data,
        store=data,
        keys=InMemoryKeyStore(),
        rate=InMemoryRateLimiter(),
        quota=InMemoryQuotaCounter(),
        clock=clock or SystemClock(),
        ids=ids or SecureIds(),
    )
    return build_application(
        ports=ports,
        plans=plans or PlanCatalogue(),
        key_secret=secret,
        nonblocking=lambda: EVERY_PORT,  # every port is a dict in memory
    )


def bootstrap(
    settings: Settings | None = None, *, create_database: bool = True, **overrides: Any
) -> Application:
    """The production wiring: SQL store (SQLite demo by default), SQL keys and quotas, Redis
    rate windows when configured; the database made ready to serve.

    The embedded demo database is built on first use. Any other database is created (its
    schema migrated from nothing) only with `create_database`: a command that only reads
    refuses, naming it, a database that does not exist, rather than serve an empty one. That
    check comes before the key secret's, and nothing is created before both passed."""
    settings = settings or load_settings(**overrides)
    must_exist = not create_database and not settings.uses_embedded_demo
    app, store = _wire(settings, must_exist=must_exist)
    _prepare(app, store, settings)
    return app


def _prepare(app: Application, store: SqlStore, settings: Settings) -> None:
    """Make the database ready to serve: migrated, and the demo built on first use."""
    store.upgrade()
    if settings.uses_embedded_demo:
        from schooldata.adapters.sample.demo import ensure_demo

        ensure_demo(app, lock_path=settings.home / "demo.lock")


def assemble(settings: Settings) -> Application:
    """The production wiring of `bootstrap` without touching the database, Redis or any other
    dependency: what a server worker builds. Every use of a dependency happens per request,
    so a worker started while one is down answers as a running worker would (503, the public
    search's 500, `/ready` 503) and serves again as soon as it is back. The database must
    already be migrated (and the demo built): `serve` does both once, before its workers."""
    app, _ = _wire(settings, create=False)
    return app


def _wire(
    settings: Settings, *, create: bool = True, must_exist: bool = False
) -> tuple[Application, SqlStore]:
    from schooldata.adapters.sql.key_store import SqlKeyStore
    from schooldata.adapters.sql.quota_counter import SqlQuotaCounter
    from schooldata.adapters.sql.store import SqlStore

    if settings.uses_embedded_demo and create:
        settings.home.mkdir(parents=True, exist_ok=True)
    # The database first: a mistyped --db is the problem to name, not the secret it would need.
    store = SqlStore(settings.effective_database_url, create=create)
    try:
        if must_exist:
            store.require_schema()
        secret = key_secret(settings)
        plans = load_plans(settings)
    except BaseException:
        store.close()
        raise
    # The register, the postcodes and the dataset list are read from an in-memory snapshot of
    # the SQL store, rebuilt in the background whenever an import changes the data version.
    snapshot = SnapshotReader(store)
    ports = Ports(
        schools=snapshot,
        postcodes=snapshot,
        datasets=snapshot,
        links=store,
        measures=store,
        inspections=store,
        store=store,
        keys=SqlKeyStore(store.engine),
        rate=_rate_limiter(settings),
        quota=SqlQuotaCounter(store.engine),
        clock=SystemClock(),
        ids=SecureIds(),
    )
    app = build_application(
        ports=ports,
        plans=plans,
        key_secret=secret,
        nonblocking=lambda: SNAPSHOT_PORTS if snapshot.ready else frozenset(),
        reuse_bytes=settings.replay_mb * 1024 * 1024,
    )
    return app, store


def build_refresh(
    app: Application,
    settings: Settings,
    *,
    clock: Clock | None = None,
    downloader: Downloader | None = None,
) -> RefreshSources:
    """`schooldata refresh` over the application's SQL store: the publishers' addresses from
    the settings, httpx for downloads, the database's own refresh lock. `clock` (whose date is
    "today" for GIAS) and `downloader` are for tests."""
    from schooldata.adapters.http.downloads import HttpDownloader
    from schooldata.adapters.importers.readers import ImporterFiles
    from schooldata.adapters.sql.refresh_lock import refresh_lock
    from schooldata.adapters.sql.store import SqlStore

    store = app.ports.store
    if not isinstance(store, SqlStore):
        raise SettingsError("refresh needs a database (sqlite:/// or postgresql://)")
    clock = clock or app.ports.clock
    return RefreshSources(
        import_dataset=ImportDataset(store=store, clock=clock),
        registry=app.ports.datasets,
        log=store,
        downloader=downloader or HttpDownloader(),
        files=ImporterFiles(),
        lock=refresh_lock(store),
        clock=clock,
        locations=Locations(
            gias_base_url=settings.gias_base_url, codepoint_url=settings.codepoint_url
        ),
    )


def _rate_limiter(settings: Settings) -> Any:
    """Redis when configured (any number of machines); several worker processes on one machine
    without Redis share a mapped file, so a key's rate holds across them (and fall back to it
    while Redis is down); one process keeps its windows in memory."""
    machine = None
    if settings.workers > 1:
        from schooldata.adapters.machine.rate import MachineRateLimiter

        machine = MachineRateLimiter(machine_rate_path(settings))
    if settings.redis_url:
        try:
            from schooldata.adapters.redis.rate import RedisRateLimiter
        except MissingExtra as missing:
            raise SettingsError(str(missing)) from None

        if machine is None:
            return RedisRateLimiter(settings.redis_url)
        # While Redis is down, this machine's workers still share their windows.
        return RedisRateLimiter(
            settings.redis_url, fallback=machine, fallback_scope="this machine's"
        )
    return machine or InMemoryRateLimiter()


def machine_rate_path(settings: Settings) -> Path:
    """The rate windows file of one deployment: in `home`, named after its database, so two
    deployments sharing a home never share windows."""
    database = hashlib.sha256(settings.effective_database_url.encode()).hexdigest()[:16]
    return settings.home / f"rate-windows-{database}.bin"


def database_path(settings: Settings) -> Path | None:
    return settings.demo_database_path if settings.uses_embedded_demo else None


def build_asgi(app: Application, settings: Settings, *, tracing: Tracing | None = None) -> Any:
    """REST and MCP on one server: the composition root mounts MCP into the REST app.
    With `tracing` (see `observability.tracing`) every HTTP request, database statement and
    Redis command is traced; without it nothing of OpenTelemetry is wrapped around anything."""
    from schooldata.entrypoints.mcp_server.mount import build_mount
    from schooldata.entrypoints.observability.metrics import Metrics
    from schooldata.entrypoints.rest.app import create_app

    metrics = Metrics()
    mount = build_mount(
        app,
        base_url=settings.base_url,
        max_body_bytes=settings.max_body_bytes,
        on_tool_call=lambda tool, outcome: metrics.mcp_call(tool, outcome=outcome),
        observer=metrics,
    )
    lifespan = [*mount.lifespan, _quota_given_back_at_shutdown(app)]
    if tracing is not None:
        lifespan.append(tracing.lifespan)
    asgi = create_app(
        app,
        base_url=settings.base_url,
        extra_route_handlers=mount.route_handlers,
        lifespan=lifespan,
        max_body_bytes=settings.max_body_bytes,
        metrics=metrics,
        cors_origins=settings.cors_origins,
    )
    if tracing is None:
        return asgi
    return _traced(asgi, app, settings, tracing)


def _traced(asgi: Any, app: Application, settings: Settings, tracing: Tracing) -> Any:
    from schooldata.entrypoints.rest.transport import REQUEST_ID_KEY

    engine = getattr(app.ports.store, "engine", None)
    if engine is not None:
        tracing.database(engine)
    if settings.redis_url:
        tracing.redis()
    return tracing.asgi(asgi, request_id_key=REQUEST_ID_KEY)


def _quota_given_back_at_shutdown(app: Application) -> Any:
    """A lifespan that, as the server stops, gives back the quota uses this process reserved
    and did not answer (SQLite reserves them in blocks). Server workers leave through
    lifespan shutdown, not interpreter exit, so `atexit` alone would not run there."""

    @contextlib.asynccontextmanager
    async def lifespan(_server: Any) -> AsyncIterator[None]:
        try:
            yield
        finally:
            with contextlib.suppress(Exception):  # the database may be gone: kept then
                give_back = getattr(app.ports.quota, "give_back", None)
                if callable(give_back):
                    await anyio.to_thread.run_sync(give_back)

    return lifespan


def asgi_from_environment() -> Any:
    """Factory for ASGI servers (`granian --interface asgi --factory ...`, `uvicorn --factory ...`);
    every worker process builds its own application from the same environment, without
    touching the database (see `assemble`: migrate first, `schooldata db upgrade`), and its
    own tracing when the OTEL_* variables ask for it (after the fork: exporters run threads)."""
    from schooldata.adapters.server import raise_open_file_limit
    from schooldata.entrypoints.observability.logs import configure_logging
    from schooldata.entrypoints.observability.tracing import start_tracing

    settings = load_settings()
    configure_logging(settings.log_format)
    raise_open_file_limit()
    return build_asgi(assemble(settings), settings, tracing=start_tracing(os.environ))


def serve(settings: Settings, *, create_database: bool = True) -> None:
    """Run the server (granian; see docs/performance.md for the measurement that chose it).
    Checks the database and builds the demo once, in this process, before workers start (any
    other database is created only with `create_database`): a database that is missing or
    unreachable at start stops `serve` with a clear message. Workers never touch it to start
    (`assemble`), so one respawned during an outage serves 503s, not a crash loop that
    would take granian down with it."""
    from schooldata.adapters.server import raise_open_file_limit
    from schooldata.entrypoints.observability.logs import configure_logging
    from schooldata.entrypoints.observability.metrics_directory import (
        DIRECTORY_VARIABLE,
        prepare_metrics_directory,
    )

    configure_logging(settings.log_format)
    # Migrations and the demo build happen once, here, not per worker; this process's
    # connections are closed before the workers are forked from it.
    must_exist = not create_database and not settings.uses_embedded_demo
    app, store = _wire(settings, must_exist=must_exist)
    try:
        _prepare(app, store, settings)
    finally:
        close_snapshot = getattr(app.ports.schools, "close", None)
        if callable(close_snapshot):  # the snapshot's checker thread: workers have their own
            close_snapshot()
        store.close()
    os.environ.update(_settings_environment(settings))
    # One set of metrics for the whole server: every worker counts in this directory and a
    # scrape of any of them adds them all up. Set before anything imports prometheus_client.
    metrics = prepare_metrics_directory(
        settings.home, configured=os.environ.get(DIRECTORY_VARIABLE)
    )
    os.environ[DIRECTORY_VARIABLE] = str(metrics.path)
    # Workers are forked from this process and inherit the raised limit.
    open_files = raise_open_file_limit()
    try:
        _granian(settings, open_files)
    finally:
        metrics.remove()


def _granian(settings: Settings, open_files: int) -> None:
    from granian import Granian
    from granian.constants import Interfaces, Loops
    from granian.log import LogLevels

    from schooldata.adapters.server import granian_connection_options

    Granian(
        "schooldata.bootstrap:asgi_from_environment",
        factory=True,
        address=settings.host,
        port=settings.port,
        interface=Interfaces.ASGI,
        workers=settings.workers,
        websockets=False,
        log_level=LogLevels.warning,
        log_access=False,  # our own access log carries request ids and never a key
        respawn_failed_workers=True,
        loop=Loops(server_loop()),
        **granian_connection_options(
            header_timeout_seconds=settings.header_timeout_seconds,
            max_connections=settings.max_connections,
            open_files=open_files,
        ),
    ).serve()


def server_loop() -> str:
    """The event loop `serve` runs: uvloop where it is installed (a dependency on CPython
    off Windows), else asyncio's own. Measured in docs/performance.md: the app's MCP calls,
    whose request bodies come back from granian's threads through the loop, gain the most.
    The bench starts its ceiling on the same loop."""
    return "uvloop" if importlib.util.find_spec("uvloop") is not None else "asyncio"


def _settings_environment(settings: Settings) -> dict[str, str]:
    """Hand the resolved settings to worker processes through their environment."""
    env = {"SCHOOLDATA_HOME": str(settings.home)}
    names = (
        "database_url",
        "redis_url",
        "key_secret",
        "base_url",
        "plans_file",
        "log_format",
        "max_body_bytes",
        "replay_mb",
        "header_timeout_seconds",
        "max_connections",
        "workers",  # several workers without Redis share their rate windows (_rate_limiter)
    )
    for name in names:
        value = getattr(settings, name)
        if value is not None:
            env[f"SCHOOLDATA_{name.upper()}"] = str(value)
    if settings.cors_origins:
        env["SCHOOLDATA_CORS_ORIGINS"] = ",".join(settings.cors_origins)
    return env
