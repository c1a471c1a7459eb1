"""One settings object, from environment variables and an optional `schooldata.toml`.

Precedence: explicit overrides > environment (`SCHOOLDATA_*`) > the TOML file
(`SCHOOLDATA_CONFIG`, else `./schooldata.toml` if present) > defaults. Validated at startup:
a bad value stops the process with a message naming the setting, never a traceback later.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attrs import evolve, frozen

from schooldata.domain.versions import (
    DEFAULT_RETENTION_DAYS,
    MAX_RETENTION_DAYS,
    MIN_RETENTION_DAYS,
)

ENV_PREFIX = "SCHOOLDATA_"
LOG_FORMATS = ("json", "text")
# Listening on every interface: a client on this machine reaches it on loopback.
WILDCARD_HOSTS = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}
MAX_TIMEOUT_SECONDS = 600
MIN_CONNECTIONS, MAX_CONNECTIONS = 64, 1_000_000
# Where `schooldata refresh` finds the publishers' files (docs/configuration.md).
GIAS_BASE_URL = "https://ea-edubase-api-prod.azurewebsites.net/edubase/downloads/public/"
CODEPOINT_URL = (
    "https://api.os.uk/downloads/v1/products/CodePointOpen/downloads?area=GB&format=CSV&redirect"
)


class SettingsError(ValueError):
    """A configuration value is missing or invalid; the message names the setting."""


def default_home() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "schooldata"


@frozen(kw_only=True)
class Settings:
    home: Path
    database_url: str | None = None
    redis_url: str | None = None
    key_secret: str | None = None
    plans_file: Path | None = None
    base_url: str | None = None
    allowed_hosts: tuple[str, ...] = ()
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    cors_origins: tuple[str, ...] = ()
    log_format: str = "json"
    max_body_bytes: int = 64 * 1024
    replay_mb: int = 32
    header_timeout_seconds: int = 30
    body_timeout_seconds: int = 10
    answer_timeout_seconds: int = 30
    max_connections: int = 8192
    gias_base_url: str = GIAS_BASE_URL
    codepoint_url: str = CODEPOINT_URL
    change_retention_days: int = DEFAULT_RETENTION_DAYS

    @property
    def demo_database_path(self) -> Path:
        return self.home / "schooldata-demo.sqlite3"

    @property
    def uses_embedded_demo(self) -> bool:
        """No database configured: the embedded SQLite demo, built on first use."""
        return self.database_url is None

    @property
    def effective_database_url(self) -> str:
        return self.database_url or f"sqlite:///{self.demo_database_path}"

    @property
    def served_url(self) -> str:
        """Where `serve`, run with these settings, is reached from this machine: `base_url`
        when set, else the host and port (a wildcard address is reached on loopback, an
        IPv6 address in brackets). The CLI writes its record URLs from it."""
        if self.base_url:
            return self.base_url.rstrip("/")
        host = WILDCARD_HOSTS.get(self.host, self.host)
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"


_FIELDS: dict[str, str] = {
    "home": "path",
    "database_url": "str",
    "redis_url": "str",
    "key_secret": "str",
    "plans_file": "path",
    "base_url": "str",
    "allowed_hosts": "list",
    "host": "str",
    "port": "int",
    "workers": "int",
    "cors_origins": "list",
    "log_format": "str",
    "max_body_bytes": "int",
    "replay_mb": "int",
    "header_timeout_seconds": "int",
    "body_timeout_seconds": "int",
    "answer_timeout_seconds": "int",
    "max_connections": "int",
    "gias_base_url": "str",
    "codepoint_url": "str",
    "change_retention_days": "int",
}


def _coerce(name: str, value: Any) -> Any:
    kind = _FIELDS[name]
    if kind == "int":
        try:
            return int(value)
        except (TypeError, ValueError):
            raise SettingsError(
                f"{ENV_PREFIX}{name.upper()} must be an integer, got {value!r}"
            ) from None
    if kind == "path":
        return Path(str(value)).expanduser()
    if kind == "list":
        if isinstance(value, list | tuple):
            return tuple(str(v).strip() for v in value if str(v).strip())
        return tuple(v.strip() for v in str(value).split(",") if v.strip())
    return str(value) if value is not None else None


def load_settings(environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    config_path = env.get(f"{ENV_PREFIX}CONFIG")
    candidate = Path(config_path) if config_path else Path("schooldata.toml")
    if config_path and not candidate.is_file():
        raise SettingsError(f"{ENV_PREFIX}CONFIG names {candidate}, which is not a file")
    if candidate.is_file():
        try:
            table = tomllib.loads(candidate.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as error:
            raise SettingsError(f"{candidate}: invalid TOML: {error}") from None
        section = table.get("schooldata", table)
        for name, value in section.items():
            if name not in _FIELDS:
                raise SettingsError(f"{candidate}: unknown setting {name!r}")
            values[name] = _coerce(name, value)
    for name in _FIELDS:
        raw = env.get(ENV_PREFIX + name.upper())
        if raw is not None and raw != "":
            values[name] = _coerce(name, raw)
    for name, value in overrides.items():
        if value is not None:
            values[name] = _coerce(name, value)
    values.setdefault("home", default_home())
    settings = Settings(**values)
    return validate(settings)


def validate(settings: Settings) -> Settings:
    if not 1 <= settings.port <= 65535:
        raise SettingsError(f"{ENV_PREFIX}PORT must be 1-65535, got {settings.port}")
    if not 1 <= settings.workers <= 64:
        raise SettingsError(f"{ENV_PREFIX}WORKERS must be 1-64, got {settings.workers}")
    if settings.log_format not in LOG_FORMATS:
        raise SettingsError(f"{ENV_PREFIX}LOG_FORMAT must be one of {LOG_FORMATS}")
    if settings.database_url is not None and not settings.database_url.startswith(
        ("sqlite", "postgresql")
    ):
        raise SettingsError(f"{ENV_PREFIX}DATABASE_URL must be a sqlite:/// or postgresql:// URL")
    if settings.redis_url is not None and not settings.redis_url.startswith(
        ("redis://", "rediss://", "unix://")
    ):
        raise SettingsError(f"{ENV_PREFIX}REDIS_URL must be a redis:// URL")
    if settings.key_secret is not None and len(settings.key_secret) < 32:
        raise SettingsError(f"{ENV_PREFIX}KEY_SECRET must be at least 32 characters")
    if settings.plans_file is not None and not settings.plans_file.is_file():
        raise SettingsError(
            f"{ENV_PREFIX}PLANS_FILE names {settings.plans_file}, which is not a file"
        )
    if settings.max_body_bytes < 1024:
        raise SettingsError(f"{ENV_PREFIX}MAX_BODY_BYTES must be at least 1024")
    if not 0 <= settings.replay_mb <= 4096:
        raise SettingsError(f"{ENV_PREFIX}REPLAY_MB must be 0-4096, got {settings.replay_mb}")
    for name in ("header_timeout_seconds", "body_timeout_seconds", "answer_timeout_seconds"):
        seconds = getattr(settings, name)
        if not 1 <= seconds <= MAX_TIMEOUT_SECONDS:
            raise SettingsError(
                f"{ENV_PREFIX}{name.upper()} must be 1-{MAX_TIMEOUT_SECONDS}, got {seconds}"
            )
    if not MIN_CONNECTIONS <= settings.max_connections <= MAX_CONNECTIONS:
        raise SettingsError(
            f"{ENV_PREFIX}MAX_CONNECTIONS must be {MIN_CONNECTIONS}-{MAX_CONNECTIONS}, "
            f"got {settings.max_connections}"
        )
    if not MIN_RETENTION_DAYS <= settings.change_retention_days <= MAX_RETENTION_DAYS:
        raise SettingsError(
            f"{ENV_PREFIX}CHANGE_RETENTION_DAYS must be {MIN_RETENTION_DAYS}-"
            f"{MAX_RETENTION_DAYS}, got {settings.change_retention_days}"
        )
    for name in ("gias_base_url", "codepoint_url"):
        if not str(getattr(settings, name)).startswith(("http://", "https://")):
            raise SettingsError(f"{ENV_PREFIX}{name.upper()} must be an http:// or https:// URL")
    _validate_hosts(settings)
    return settings


def _validate_hosts(settings: Settings) -> None:
    """The base URL and the allowed hosts name hosts (entrypoints/hosts.py reads them)."""
    from schooldata.entrypoints.hosts import HostError, HostPolicy

    if settings.base_url is not None and not settings.base_url.startswith(("http://", "https://")):
        raise SettingsError(f"{ENV_PREFIX}BASE_URL must be an http:// or https:// URL")
    try:
        HostPolicy.configured(base_url=settings.base_url, allowed_hosts=settings.allowed_hosts)
    except HostError as error:
        name = "ALLOWED_HOSTS" if "base URL" not in str(error) else "BASE_URL"
        raise SettingsError(f"{ENV_PREFIX}{name}: {error}") from None


def with_overrides(settings: Settings, **changes: Any) -> Settings:
    return validate(evolve(settings, **{k: v for k, v in changes.items() if v is not None}))
