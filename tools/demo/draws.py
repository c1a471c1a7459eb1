"""Reproducible random draws: one seed, a named stream per dataset, no clock, no iteration
over hash-ordered containers."""

from __future__ import annotations

import datetime as dt
import math
import random
import zlib
from collections.abc import Sequence

from tools.demo.config import SEED


def substream(name: str) -> random.Random:
    """An independent, reproducible random stream per dataset, derived from the seed.

    Seeding with a str is stable across runs and platforms (it is hashed with SHA-512,
    not with the per-process randomised hash()).
    """
    return random.Random(f"{SEED}/{name}")


def stable_pick(options: Sequence[str], key: str) -> str:
    """Pick deterministically from ``options`` by a CRC of ``key`` (same key, same pick)."""
    return options[zlib.crc32(key.encode("utf-8")) % len(options)]


def weighted(rng: random.Random, table: Sequence[tuple[str, float]]) -> str:
    names = [name for name, _ in table]
    weights = [weight for _, weight in table]
    return rng.choices(names, weights=weights)[0]


def apportion(total: int, weights: Sequence[int]) -> list[int]:
    """Split ``total`` in proportion to ``weights`` (largest remainder: exact and stable)."""
    wsum = sum(weights)
    quotas = [total * w / wsum for w in weights]
    counts = [math.floor(q) for q in quotas]
    by_remainder = sorted(range(len(weights)), key=lambda i: (-(quotas[i] - counts[i]), i))
    for i in by_remainder[: total - sum(counts)]:
        counts[i] += 1
    return counts


def random_date(rng: random.Random, start: dt.date, end: dt.date) -> dt.date:
    return start + dt.timedelta(days=rng.randint(0, (end - start).days))


def first_of_month(rng: random.Random, start_year: int, end_year: int) -> dt.date:
    return dt.date(rng.randint(start_year, end_year), rng.randint(1, 12), 1)
