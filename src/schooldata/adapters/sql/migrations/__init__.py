"""Schema migrations (Alembic), configured in code so they run from an installed package."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, text

from schooldata.adapters.sql.engine import (
    WRITE_OPTION,
    begin_write,
    create_engine_for,
    unavailable_on_error,
)

if TYPE_CHECKING:
    from alembic.config import Config

SCRIPT_LOCATION = Path(__file__).resolve().parent
# Any constant: serialises concurrent upgrades (several workers starting at once) on PostgreSQL.
# SQLite needs nothing extra: the upgrade holds its write lock from BEGIN IMMEDIATE.
_ADVISORY_LOCK_KEY = 0x5C0D_A7A0


def upgrade(url: str) -> None:
    """Bring the database at `url` to the newest schema (creating it if empty)."""
    engine = create_engine_for(url)
    try:
        with unavailable_on_error():
            upgrade_engine(engine)
    finally:
        engine.dispose()


def upgrade_engine(engine: Engine) -> None:
    config = _config()
    # Already at head is the common case (every worker start): answer it with a plain read,
    # so starting never waits for the write lock an import may hold for many seconds.
    with engine.connect() as connection:
        if _at_head(connection, config):
            return
    with engine.execution_options(**{WRITE_OPTION: True}).begin() as connection:
        begin_write(connection)
        if connection.dialect.name == "postgresql":
            connection.execute(
                text("SELECT pg_advisory_xact_lock(:key)"), {"key": _ADVISORY_LOCK_KEY}
            )
        _run_to_head(connection, config)


def _config() -> Config:
    # Imported here: Alembic is only needed when migrating, not on every store import.
    from alembic.config import Config

    config = Config()
    # configparser interpolation would read a `%` in the install path as a placeholder.
    config.set_main_option("script_location", str(SCRIPT_LOCATION).replace("%", "%%"))
    return config


def _at_head(connection: Connection, config: Config) -> bool:
    from alembic.migration import MigrationContext
    from alembic.script import ScriptDirectory

    current = MigrationContext.configure(connection).get_current_heads()
    return set(current) == set(ScriptDirectory.from_config(config).get_heads())


def _run_to_head(connection: Connection, config: Config) -> None:
    from alembic import command

    config.attributes["connection"] = connection
    command.upgrade(config, "head")
