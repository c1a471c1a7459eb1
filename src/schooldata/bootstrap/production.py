"""The production wiring: the SQL store (SQLite demo by default) behind an in-memory snapshot,
SQL keys and quotas, the configured rate limiter. `bootstrap` also makes the database ready;
`assemble` is what a server worker builds, touching no dependency. The plan catalogue and the
key secret are read here, before anything is created, so a bad one stops startup."""

from __future__ import annotations

import os
import secrets
import tomllib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from schooldata.adapters.memory.snapshot import SnapshotReader
from schooldata.adapters.system import SecureIds, SystemClock
from schooldata.application.operations.declaration import Port
from schooldata.application.service import Application, Ports, build_application
from schooldata.bootstrap.rate_limiter import _rate_limiter
from schooldata.domain.plans import PlanCatalogue, catalogue_from_mapping
from schooldata.settings import Settings, SettingsError, load_settings

if TYPE_CHECKING:
    from schooldata.adapters.sql.store import SqlStore

SNAPSHOT_PORTS = frozenset({Port.SCHOOLS, Port.POSTCODES, Port.DATASETS, Port.LINKS})


class Wiring(NamedTuple):
    """The application and the resources its wiring made, for whoever must close them."""

    app: Application
    store: SqlStore
    snapshot: SnapshotReader


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


def bootstrap(
    settings: Settings | None = None,
    *,
    create_database: bool = True,
    notify: Callable[[str], None] | None = None,
    **overrides: Any,
) -> Application:
    """The production wiring: SQL store (SQLite demo by default), SQL keys and quotas, Redis
    rate windows when configured; the database made ready to serve.

    The embedded demo database is built on first use. Any other database is created (its
    schema migrated from nothing) only with `create_database`: a command that only reads
    refuses, naming it, a database that does not exist, rather than serve an empty one. That
    check comes before the key secret's, and nothing is created before both passed.
    `notify` hears what a long step (the first build of the demo) is doing."""
    settings = settings or load_settings(**overrides)
    must_exist = not create_database and not settings.uses_embedded_demo
    app, store, _ = _wire(settings, must_exist=must_exist)
    _prepare(app, store, settings, notify=notify)
    return app


def _prepare(
    app: Application,
    store: SqlStore,
    settings: Settings,
    *,
    notify: Callable[[str], None] | None = None,
) -> None:
    """Make the database ready to serve: migrated, and the demo built on first use."""
    store.upgrade()
    if settings.uses_embedded_demo:
        from schooldata.adapters.sample.demo import ensure_demo

        ensure_demo(
            app,
            registry=store,
            lock_path=settings.home / "demo.lock",
            notify=notify,
            where=settings.demo_database_path,
        )


def assemble(settings: Settings) -> Application:
    """The production wiring of `bootstrap` without touching the database, Redis or any other
    dependency: what a server worker builds. Every use of a dependency happens per request,
    so a worker started while one is down answers as a running worker would (503, the public
    search's 500, `/ready` 503) and serves again as soon as it is back. The database must
    already be migrated (and the demo built): `serve` does both once, before its workers."""
    return _wire(settings, create=False).app


def _wire(settings: Settings, *, create: bool = True, must_exist: bool = False) -> Wiring:
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
    # The register, its links, the postcodes and the dataset list are read from an in-memory
    # snapshot of the SQL store, rebuilt in the background whenever an import changes the data
    # version.
    snapshot = SnapshotReader(store)
    ports = Ports(
        schools=snapshot,
        postcodes=snapshot,
        datasets=snapshot,
        links=snapshot,
        measures=store,
        inspections=store,
        store=store,
        changes=store,
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
        retention_days=settings.change_retention_days,
    )
    return Wiring(app, store, snapshot)
