"""Per-second rate windows shared by every process and machine, in Redis.

One key per (API key id, second): INCR and EXPIRE in one MULTI, so the count is atomic across
instances. If Redis fails, limiting falls back to local windows (a warning is logged and
`health()` says degraded) rather than failing requests: this process's own, or, given one,
a `fallback` shared by this machine's processes (the composition root passes one to several
workers). A local limit is a weaker guarantee across machines, never a 500.
"""

from __future__ import annotations

import logging
import threading
import time

from schooldata.adapters.extras import MissingExtra
from schooldata.adapters.memory.access import InMemoryRateLimiter
from schooldata.ports.keys import RateLimiter

try:
    import redis
except ModuleNotFoundError:
    raise MissingExtra("SCHOOLDATA_REDIS_URL (rate windows in Redis)", "redis") from None

log = logging.getLogger("schooldata.rate")
WINDOW_TTL_SECONDS = 3
WARN_EVERY_SECONDS = 30.0


class RedisRateLimiter:
    def __init__(
        self,
        url: str,
        *,
        prefix: str = "schooldata:rate",
        fallback: RateLimiter | None = None,
        fallback_scope: str = "per-process",
    ) -> None:
        """`fallback`: the windows used while Redis is down (default: this process's own);
        `fallback_scope` says whose they are in the warning and `/ready`."""
        self._client = redis.Redis.from_url(
            url, socket_connect_timeout=0.5, socket_timeout=0.5, health_check_interval=30
        )
        self._prefix = prefix
        self._fallback: RateLimiter = fallback or InMemoryRateLimiter()
        self._scope = fallback_scope
        self._degraded_since: float | None = None
        self._last_warning = 0.0
        self._lock = threading.Lock()

    @property
    def is_local(self) -> bool:
        """Across the network: never asked from an event loop."""
        return False

    def _key(self, key: str, window: int) -> str:
        return f"{self._prefix}:{key}:{window}"

    def hit(self, *, key: str, window: int) -> int:
        try:
            pipe = self._client.pipeline(transaction=True)
            pipe.incr(self._key(key, window))
            pipe.expire(self._key(key, window), WINDOW_TTL_SECONDS)
            count, _ = pipe.execute()
        except redis.RedisError as error:
            self._degrade(error)
            return self._fallback.hit(key=key, window=window)
        self._recover()
        return int(count)

    def peek(self, *, key: str, window: int) -> int:
        try:
            value = self._client.get(self._key(key, window))
        except redis.RedisError as error:
            self._degrade(error)
            return self._fallback.peek(key=key, window=window)
        self._recover()
        return int(value) if value is not None else 0

    def undo(self, *, key: str, window: int) -> None:
        try:
            pipe = self._client.pipeline(transaction=True)
            pipe.decr(self._key(key, window))
            pipe.expire(self._key(key, window), WINDOW_TTL_SECONDS)
            pipe.execute()
        except redis.RedisError as error:
            self._degrade(error)
            self._fallback.undo(key=key, window=window)
            return
        self._recover()

    def health(self) -> dict[str, str]:
        """For /ready: `redis` when shared windows work, `degraded` when falling back."""
        try:
            self._client.ping()
        except redis.RedisError as error:
            self._degrade(error)
            return {
                "rate_limiter": "degraded",
                "detail": f"Redis unreachable: {self._scope} windows",
            }
        self._recover()
        return {"rate_limiter": "redis"}

    def _degrade(self, error: Exception) -> None:
        now = time.monotonic()
        with self._lock:
            if self._degraded_since is None:
                self._degraded_since = now
            if now - self._last_warning >= WARN_EVERY_SECONDS:
                self._last_warning = now
                log.warning(
                    "Redis rate limiter unavailable (%s); using %s windows",
                    type(error).__name__,
                    self._scope,
                )

    def _recover(self) -> None:
        if self._degraded_since is not None:
            with self._lock:
                if self._degraded_since is not None:
                    self._degraded_since = None
                    log.warning("Redis rate limiter recovered; shared windows in use again")
