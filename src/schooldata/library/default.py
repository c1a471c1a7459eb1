"""The library without a client: `schooldata.search(...)`, `schooldata.get_school(...)`, ...
answered by one client over the configured database (`SCHOOLDATA_DATABASE_URL`, else the
embedded demo), opened on first use and shared by the process. For another database, or to
close it, use `open_database()`."""

from __future__ import annotations

import threading
from typing import Any

from schooldata.library import SchoolDataClient, open_database

_lock = threading.Lock()
_client: SchoolDataClient | None = None


def default_client() -> SchoolDataClient:
    """The process's client over the configured database (opened once)."""
    global _client
    with _lock:
        if _client is None:
            _client = open_database()
        return _client


def search(*args: Any, **kwargs: Any) -> Any:
    """`SchoolDataClient.search` on the configured database."""
    return default_client().search(*args, **kwargs)


def nearby(*args: Any, **kwargs: Any) -> Any:
    """`SchoolDataClient.nearby` on the configured database."""
    return default_client().nearby(*args, **kwargs)


def get_school(*args: Any, **kwargs: Any) -> Any:
    """`SchoolDataClient.get_school` on the configured database."""
    return default_client().get_school(*args, **kwargs)


def call(*args: Any, **kwargs: Any) -> Any:
    """`SchoolDataClient.call` on the configured database."""
    return default_client().call(*args, **kwargs)


def export(*args: Any, **kwargs: Any) -> Any:
    """`SchoolDataClient.export` on the configured database."""
    return default_client().export(*args, **kwargs)
