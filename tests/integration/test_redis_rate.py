"""The Redis rate limiter: atomic shared windows, and a safe fallback when Redis is gone."""

from __future__ import annotations

import os
import threading
import uuid

import pytest
import redis

from schooldata.adapters.redis.rate import RedisRateLimiter

URL = os.environ.get("SCHOOLDATA_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
pytestmark = [pytest.mark.integration, pytest.mark.redis]


@pytest.fixture
def limiter() -> RedisRateLimiter:
    try:
        redis.Redis.from_url(URL, socket_connect_timeout=0.5).ping()
    except redis.RedisError:
        if os.environ.get("SCHOOLDATA_REQUIRE_SERVICES") == "1":
            pytest.fail(f"Redis is required but not reachable at {URL}")
        pytest.skip(f"Redis not reachable at {URL}")
    return RedisRateLimiter(URL, prefix=f"test:{uuid.uuid4().hex}")


def test_hits_in_one_window_are_counted_exactly_across_threads(limiter: RedisRateLimiter) -> None:
    counts: list[int] = []
    lock = threading.Lock()

    def hammer() -> None:
        for _ in range(25):
            value = limiter.hit(key="k", window=1000)
            with lock:
                counts.append(value)

    threads = [threading.Thread(target=hammer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(counts) == list(range(1, 101))
    assert limiter.peek(key="k", window=1000) == 100


def test_two_limiters_share_the_same_windows(limiter: RedisRateLimiter) -> None:
    other = RedisRateLimiter(URL, prefix=limiter._prefix)
    limiter.hit(key="k", window=7)
    assert other.hit(key="k", window=7) == 2
    assert limiter.peek(key="k", window=8) == 0
    assert limiter.health() == {"rate_limiter": "redis"}


def test_an_unreachable_redis_falls_back_to_process_windows_without_failing() -> None:
    broken = RedisRateLimiter("redis://127.0.0.1:1/0")
    assert [broken.hit(key="k", window=5) for _ in range(3)] == [1, 2, 3]
    assert broken.peek(key="k", window=5) == 3
    assert broken.health()["rate_limiter"] == "degraded"


def test_a_hit_taken_back_leaves_the_window_one_lower(limiter: RedisRateLimiter) -> None:
    limiter.hit(key="k", window=9)
    limiter.hit(key="k", window=9)
    limiter.undo(key="k", window=9)
    assert limiter.peek(key="k", window=9) == 1
    assert not limiter.is_local  # (so a caller on an event loop never waits on it)


def test_an_unreachable_redis_takes_a_hit_back_from_its_fallback_windows() -> None:
    broken = RedisRateLimiter("redis://127.0.0.1:1/0")
    broken.hit(key="k", window=5)
    broken.hit(key="k", window=5)
    broken.undo(key="k", window=5)
    assert broken.peek(key="k", window=5) == 1
