"""Private PostgreSQL schemas for tests: what a test leaves connected is ended with its schema.

The service under test keeps pooled connections open for as long as its engine lives, and an
application a test drops is not collected at once: without this, two test workers together
reach the server's `max_connections` and unrelated tests see "too many clients".
"""

from __future__ import annotations

from sqlalchemy import Connection, text


def end_connections_of(conn: Connection, schema: str) -> None:
    """Terminate every session that named itself after `schema` (its `application_name`)."""
    conn.execute(
        text(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = :name AND pid <> pg_backend_pid()"
        ),
        {"name": schema},
    )
