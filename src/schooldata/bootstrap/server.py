"""`schooldata serve`: the database checked and prepared once, in this process, then granian's
workers forked from it, each building its own app from the environment handed to it
(`asgi.asgi_from_environment`). Its own module because only serving needs granian, its event
loop and the settings-to-environment hand-over."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable

import attrs

from schooldata.bootstrap.announce import announce_when_answering
from schooldata.bootstrap.asgi import SERVED_VARIABLE
from schooldata.bootstrap.production import _prepare, _wire
from schooldata.settings import Settings


def serve(
    settings: Settings,
    *,
    create_database: bool = True,
    notify: Callable[[str], None] | None = None,
) -> None:
    """Run the server (granian; see docs/performance.md for the measurement that chose it).
    Checks the database and builds the demo once, in this process, before workers start (any
    other database is created only with `create_database`): a database that is missing or
    unreachable at start stops `serve` with a clear message. Workers never touch it to start
    (`assemble`), so one respawned during an outage serves 503s, not a crash loop that
    would take granian down with it. `notify` hears each long step, and `Serving on ...`
    once the server answers."""
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
    app, store, snapshot = _wire(settings, must_exist=must_exist)
    try:
        _prepare(app, store, settings, notify=notify)
    finally:
        snapshot.close()  # the snapshot's checker thread: workers have their own
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
    if notify is not None:
        announce_when_answering(settings.host, settings.port, notify)
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
    env = {"SCHOOLDATA_HOME": str(settings.home), SERVED_VARIABLE: "granian"}
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
        "body_timeout_seconds",
        "answer_timeout_seconds",
        "max_connections",
        "change_retention_days",  # which `since` a worker answers 410
        "workers",  # several workers without Redis share their rate windows (_rate_limiter)
    )
    fields = attrs.asdict(settings, recurse=False)
    for name in names:
        value = fields[name]
        if value is not None:
            env[f"SCHOOLDATA_{name.upper()}"] = str(value)
    if settings.cors_origins:
        env["SCHOOLDATA_CORS_ORIGINS"] = ",".join(settings.cors_origins)
    if settings.allowed_hosts:
        env["SCHOOLDATA_ALLOWED_HOSTS"] = ",".join(settings.allowed_hosts)
    # The served address is a default allowed host (entrypoints/hosts.py): the workers'.
    env["SCHOOLDATA_HOST"] = settings.host
    env["SCHOOLDATA_PORT"] = str(settings.port)
    return env
