"""Alembic environment: run by `schooldata.adapters.sql.migrations.upgrade*`, never by hand.

The caller hands over an open connection inside its transaction (config.attributes), so the
whole upgrade commits or rolls back as one unit on both backends.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from schooldata.adapters.sql.tables import metadata


def run_online(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        # SQLite cannot ALTER most things in place; batch mode copies tables instead.
        render_as_batch=connection.dialect.name == "sqlite",
        # The engine emits its own BEGIN on SQLite, so DDL is transactional there too.
        transactional_ddl=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_offline(url: str) -> None:
    context.configure(url=url, target_metadata=metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


_connection = context.config.attributes.get("connection")
if context.is_offline_mode():
    run_offline(context.config.get_main_option("sqlalchemy.url") or "sqlite://")
elif isinstance(_connection, Connection):
    run_online(_connection)
else:
    raise RuntimeError("Run migrations through schooldata.adapters.sql.upgrade(url).")
