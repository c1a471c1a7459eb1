"""Rate windows shared by the worker processes of one machine (adapters/machine/rate.py): a
key's count is exact across every process that maps the file."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from schooldata.adapters.machine.rate import PROBES, SLOTS, MachineRateLimiter
from schooldata.bootstrap.rate_limiter import _rate_limiter, machine_rate_path
from schooldata.settings import load_settings

pytestmark = pytest.mark.integration


def test_hits_count_within_a_window_and_start_again_in_the_next(tmp_path: Path) -> None:
    rate = MachineRateLimiter(tmp_path / "rate.bin")
    assert [rate.hit(key="k", window=100) for _ in range(3)] == [1, 2, 3]
    assert rate.hit(key="other", window=100) == 1
    assert rate.hit(key="k", window=101) == 1
    assert rate.peek(key="k", window=101) == 1
    assert rate.peek(key="k", window=100) == 0  # that slot now holds the newer window
    assert rate.peek(key="nobody", window=101) == 0


def test_undo_takes_back_one_hit_and_never_goes_below_zero(tmp_path: Path) -> None:
    rate = MachineRateLimiter(tmp_path / "rate.bin")
    rate.hit(key="k", window=7)
    rate.hit(key="k", window=7)
    rate.undo(key="k", window=7)
    assert rate.peek(key="k", window=7) == 1
    rate.undo(key="k", window=7)
    rate.undo(key="k", window=7)
    assert rate.peek(key="k", window=7) == 0
    rate.undo(key="k", window=8)  # another window: nothing to take back
    assert rate.hit(key="k", window=7) == 1


def test_two_limiters_on_one_file_share_their_counts(tmp_path: Path) -> None:
    path = tmp_path / "rate.bin"
    first, second = MachineRateLimiter(path), MachineRateLimiter(path)
    assert first.hit(key="k", window=5) == 1
    assert second.hit(key="k", window=5) == 2
    assert first.peek(key="k", window=5) == 2


def test_a_full_table_of_stale_windows_is_reused(tmp_path: Path) -> None:
    rate = MachineRateLimiter(tmp_path / "rate.bin")
    keys = [f"key-{n}" for n in range(SLOTS + PROBES)]
    for key in keys:
        rate.hit(key=key, window=1)
    # Two seconds later every slot is stale: every key counts from one again.
    assert all(rate.hit(key=key, window=3) == 1 for key in keys[: PROBES * 4])


def _hammer(path: str, hits: int, results: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    rate = MachineRateLimiter(Path(path))
    results.put([rate.hit(key="shared-key", window=42) for _ in range(hits)])


def test_processes_never_give_one_count_twice_nor_lose_one(tmp_path: Path) -> None:
    path = tmp_path / "rate.bin"
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    processes, hits = 4, 300
    workers = [
        context.Process(target=_hammer, args=(str(path), hits, results)) for _ in range(processes)
    ]
    for worker in workers:
        worker.start()
    counts = [count for _ in workers for count in results.get(timeout=60)]
    for worker in workers:
        worker.join(timeout=60)
    assert sorted(counts) == list(range(1, processes * hits + 1))
    assert MachineRateLimiter(path).peek(key="shared-key", window=42) == processes * hits


def test_several_workers_without_redis_share_the_machine_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCHOOLDATA_HOME", str(tmp_path))
    monkeypatch.delenv("SCHOOLDATA_REDIS_URL", raising=False)
    monkeypatch.setenv("SCHOOLDATA_WORKERS", "4")
    settings = load_settings()
    limiter = _rate_limiter(settings)
    assert isinstance(limiter, MachineRateLimiter)
    assert machine_rate_path(settings).parent == tmp_path
    monkeypatch.setenv("SCHOOLDATA_WORKERS", "1")
    assert not isinstance(_rate_limiter(load_settings()), MachineRateLimiter)


def test_while_redis_is_down_the_machines_workers_still_share_their_windows(
    tmp_path: Path,
) -> None:
    from schooldata.adapters.redis.rate import RedisRateLimiter

    path = tmp_path / "rate.bin"
    unreachable = "redis://127.0.0.1:1/0"  # nothing listens on port 1: refused at once
    workers = [
        RedisRateLimiter(
            unreachable, fallback=MachineRateLimiter(path), fallback_scope="this machine's"
        )
        for _ in range(2)
    ]
    counts = [workers[n % 2].hit(key="k", window=9) for n in range(6)]
    assert counts == [1, 2, 3, 4, 5, 6]
    health = workers[0].health()
    assert health == {
        "rate_limiter": "degraded",
        "detail": "Redis unreachable: this machine's windows",
    }
