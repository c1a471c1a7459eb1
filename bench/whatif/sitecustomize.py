"""What-if: the src changes docs/performance.md recommends, applied as patches to the app
server only (`python -m bench --whatif` puts this directory on the server's PYTHONPATH and
sets BENCH_WHATIF=1). An experiment to size each recommendation, never used in production:
the real changes belong in the modules named below, with their tests.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any


def _ttl(seconds: float, method: Callable[..., Any]) -> Callable[..., Any]:
    """Memoise a method's answer per keyword arguments for `seconds`."""
    cache: dict[Any, tuple[float, Any]] = {}

    def wrapper(self: Any, **kwargs: Any) -> Any:
        key = tuple(sorted(kwargs.items()))
        now = time.monotonic()
        hit = cache.get(key)
        if hit is not None and now - hit[0] < seconds:
            return hit[1]
        value = method(self, **kwargs)
        cache[key] = (now, value)
        return value

    return wrapper


def _apply() -> None:
    import logging
    import secrets

    import schooldata.adapters.sql.engine as engine
    from schooldata.adapters import system
    from schooldata.adapters.sql.access import SqlKeyStore
    from schooldata.adapters.sql.store import SqlStore

    # 1. adapters/system.py: one urandom call per request id, not one per character.
    def random_base62(self: Any, *, length: int) -> str:
        number = int.from_bytes(secrets.token_bytes(length + 4))
        chars = []
        for _ in range(length):
            number, digit = divmod(number, 62)
            chars.append(system.BASE62[digit])
        return "".join(chars)

    system.SecureIds.random_base62 = random_base62  # type: ignore[method-assign]

    # 2. entrypoints/rest/observability.py: the per-request JSON access log off (or sampled,
    #    or handed to a QueueHandler thread).
    logging.getLogger("schooldata.access").info = lambda *a, **k: None  # type: ignore[method-assign]

    # 3. adapters/sql/engine.py: no pool pre-ping for SQLite (a local file cannot drop).
    original = engine.create_engine

    def create_engine(url: Any, **kwargs: Any) -> Any:
        if str(url).startswith("sqlite"):
            kwargs.pop("pool_pre_ping", None)
        return original(url, **kwargs)

    engine.create_engine = create_engine  # type: ignore[assignment]

    # 4. adapters/sql: read-mostly lookups cached briefly in process (keys and organisations
    #    for 1 s, so a revocation takes effect within a second; postcodes and the dataset
    #    list until the data version changes, here simply for 1 s).
    SqlKeyStore.find_key = _ttl(1.0, SqlKeyStore.find_key)  # type: ignore[method-assign]
    SqlKeyStore.get_organisation = _ttl(1.0, SqlKeyStore.get_organisation)  # type: ignore[method-assign]
    SqlStore.locate = _ttl(1.0, SqlStore.locate)  # type: ignore[method-assign]
    SqlStore.current = _ttl(1.0, SqlStore.current)  # type: ignore[method-assign]


def _on_the_loop() -> None:
    """5. entrypoints/rest: handlers that only read the in-memory snapshot run on the event
    loop (`sync_to_thread=False`), without a worker-thread hop per request. The experiment
    moves every handler (SQL reads included, which a real change would keep on threads)."""
    from litestar.handlers.http_handlers.base import HTTPRouteHandler

    original = HTTPRouteHandler.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("sync_to_thread"):
            kwargs["sync_to_thread"] = False
        original(self, *args, **kwargs)

    HTTPRouteHandler.__init__ = init  # type: ignore[method-assign]


if os.environ.get("BENCH_WHATIF") == "1":
    _apply()
    if os.environ.get("BENCH_WHATIF_LOOP", "1") == "1":
        _on_the_loop()
