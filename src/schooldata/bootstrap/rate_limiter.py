"""Which rate limiter a deployment counts in: Redis across machines, a mapped file shared by
one machine's worker processes (also Redis's fallback while it is down), or memory for a
single process. Its own module because the choice, its fallback and the file's name are
decided from the settings alone and tested on their own."""

from __future__ import annotations

import hashlib
from pathlib import Path

from schooldata.adapters.extras import MissingExtra
from schooldata.adapters.memory.access import InMemoryRateLimiter
from schooldata.ports.keys import RateLimiter
from schooldata.settings import Settings, SettingsError


def _rate_limiter(settings: Settings) -> RateLimiter:
    """Redis when configured (any number of machines); several worker processes on one machine
    without Redis share a mapped file, so a key's rate holds across them (and fall back to it
    while Redis is down); one process keeps its windows in memory."""
    machine = None
    if settings.workers > 1:
        from schooldata.adapters.machine.rate import MachineRateLimiter

        machine = MachineRateLimiter(machine_rate_path(settings))
    if settings.redis_url:
        try:
            from schooldata.adapters.redis.rate import RedisRateLimiter
        except MissingExtra as missing:
            raise SettingsError(str(missing)) from None

        if machine is None:
            return RedisRateLimiter(settings.redis_url)
        # While Redis is down, this machine's workers still share their windows.
        return RedisRateLimiter(
            settings.redis_url, fallback=machine, fallback_scope="this machine's"
        )
    return machine or InMemoryRateLimiter()


def machine_rate_path(settings: Settings) -> Path:
    """The rate windows file of one deployment: in `home`, named after its database, so two
    deployments sharing a home never share windows."""
    database = hashlib.sha256(settings.effective_database_url.encode()).hexdigest()[:16]
    return settings.home / f"rate-windows-{database}.bin"
