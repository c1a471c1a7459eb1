"""The libpq settings every PostgreSQL connection gets (adapters/sql/engine.py): a read
statement timeout, a connect timeout, and TCP settings that notice a silent server."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine
from sqlalchemy.engine import make_url
from tests.integration.conftest import POSTGRES_URL

from schooldata.adapters.sql.engine import (
    POSTGRES_STATEMENT_TIMEOUT_MS,
    POSTGRES_TCP_DEFAULTS,
    create_engine_for,
    postgres_connect_args,
)

BASE = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def test_a_plain_url_gets_the_timeouts_and_the_tcp_settings() -> None:
    args = postgres_connect_args(make_url(BASE))
    assert args["options"] == f"-c statement_timeout={POSTGRES_STATEMENT_TIMEOUT_MS}"
    assert args["connect_timeout"] == 5
    assert {k: args[k] for k in POSTGRES_TCP_DEFAULTS} == POSTGRES_TCP_DEFAULTS
    # a silent server is noticed within half a minute of idling: the wait, then every probe
    probes = args["keepalives_idle"] + args["keepalives_interval"] * args["keepalives_count"]
    assert probes == 25
    assert args["tcp_user_timeout"] == 60_000  # unacknowledged data: a minute


def test_settings_in_the_url_win_over_the_defaults() -> None:
    url = make_url(BASE + "?keepalives_idle=60&tcp_user_timeout=0&connect_timeout=2")
    args = postgres_connect_args(url)
    # absent from the connect arguments, so the URL's own values reach libpq
    assert "keepalives_idle" not in args
    assert "tcp_user_timeout" not in args
    assert "connect_timeout" not in args
    assert args["keepalives_count"] == POSTGRES_TCP_DEFAULTS["keepalives_count"]


def test_the_url_options_are_kept_beside_the_statement_timeout() -> None:
    args = postgres_connect_args(make_url(BASE + "?options=-csearch_path%3Dsd_x"))
    assert args["options"] == (
        f"-csearch_path=sd_x -c statement_timeout={POSTGRES_STATEMENT_TIMEOUT_MS}"
    )


@pytest.mark.postgres
def test_a_real_connection_carries_the_tcp_settings(postgres_admin: Engine) -> None:
    engine = create_engine_for(POSTGRES_URL)
    try:
        with engine.connect() as conn:
            driver: Any = conn.connection.driver_connection
            parameters = driver.info.get_parameters()
    finally:
        engine.dispose()
    for name, value in POSTGRES_TCP_DEFAULTS.items():
        assert parameters.get(name) == str(value), name
