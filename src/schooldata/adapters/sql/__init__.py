"""The SQL driven adapter: SQLAlchemy 2 on SQLite (default) or PostgreSQL, Alembic schema."""

from schooldata.adapters.sql.migrations import upgrade
from schooldata.adapters.sql.store import SqlStore
from schooldata.adapters.sql.transaction import SqlTransaction

__all__ = ["SqlStore", "SqlTransaction", "upgrade"]
