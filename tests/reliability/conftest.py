"""Fixtures of the reliability suite: shared services behind fault proxies, private schemas."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.reliability.proxy import FaultProxy
from tests.reliability.support import (
    PG_HOST,
    PG_PORT,
    REDIS_HOST,
    REDIS_PORT,
    postgres_schema,
    redis_url,
)


@pytest.fixture
def pg_proxy() -> Iterator[FaultProxy]:
    with FaultProxy(PG_PORT, target_host=PG_HOST) as proxy:
        yield proxy


@pytest.fixture
def pg_urls(pg_proxy: FaultProxy) -> Iterator[tuple[str, str]]:
    """(direct URL, URL through the proxy) of a private PostgreSQL schema."""
    with postgres_schema(via_port=pg_proxy.port) as urls:
        yield urls


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A private PostgreSQL schema, direct."""
    with postgres_schema() as (direct, _):
        yield direct


@pytest.fixture
def redis_direct_url() -> str:
    return redis_url()


@pytest.fixture
def redis_proxy(redis_direct_url: str) -> Iterator[FaultProxy]:
    with FaultProxy(REDIS_PORT, target_host=REDIS_HOST) as proxy:
        yield proxy
