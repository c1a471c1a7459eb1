"""The questions the bench asks, drawn from the bench database, seeded so that runs compare.

* names: distinct two-word queries from the served schools' names (the first two words of
  each name, then later word pairs until there are enough), a few very common words as real
  traffic has, sampled and shuffled with the seed;
* postcodes: a uniform sample of the postcodes parents would type, every postcode of the
  `postcodes` table whose outward code also holds a served school, spaced as people write them;
* URNs: every served school;
* a realistic mix (answer reuse on): requests drawn Zipf-distributed over those questions.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Sequence
from itertools import accumulate
from pathlib import Path
from typing import TypeVar

from attrs import frozen

from schooldata.domain.text import normalise

SEED = 20261101
ZIPF_S = 1.1
# Very common words and phrases (each matches hundreds or thousands of schools), kept in the
# mix beside the long tail of name pairs, as real search traffic has them.
COMMON_QUERIES = (
    "primary",
    "academy",
    "school",
    "st mary",
    "church of england",
    "infant",
    "nursery school",
    "high school",
)

T = TypeVar("T")


@frozen
class Inputs:
    queries: tuple[str, ...]  # distinct name queries
    postcodes: tuple[str, ...]  # distinct postcodes, as typed ("SW1A 1AA")
    points: tuple[tuple[float, float], ...]  # each postcode's latitude and longitude
    urns: tuple[str, ...]  # every served school, shuffled
    authorities: tuple[str, ...]  # the 16 largest, for the paged list
    postcode_pool: int  # how many postcodes the sample was drawn from


def sample_inputs(db: Path, *, distinct: int, seed: int = SEED) -> Inputs:
    """`distinct` name queries and postcodes (fewer only where the dataset has fewer)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        names = [str(r[0]) for r in con.execute("SELECT name FROM schools ORDER BY urn")]
        urns = [str(r[0]) for r in con.execute("SELECT urn FROM schools ORDER BY urn")]
        authorities = tuple(
            str(r[0])
            for r in con.execute(
                "SELECT la_name FROM schools WHERE la_name IS NOT NULL GROUP BY la_name "
                "ORDER BY count(*) DESC, la_name LIMIT 16"
            )
        )
        pool = typed_postcode_pool(con)
        postcodes = random.Random(f"{seed}:postcodes").sample(pool, min(distinct, len(pool)))
        points = tuple(_location(con, compact) for compact in postcodes)
    finally:
        con.close()
    random.Random(f"{seed}:urns").shuffle(urns)
    return Inputs(
        queries=tuple(name_queries(names, distinct, random.Random(f"{seed}:names"))),
        postcodes=tuple(spaced(p) for p in postcodes),
        points=points,
        urns=tuple(urns),
        authorities=authorities,
        postcode_pool=len(pool),
    )


def name_queries(names: Sequence[str], distinct: int, rng: random.Random) -> list[str]:
    """The common queries and distinct word pairs of the names (each word of two letters or
    more): the first two words of each name, then the second and third, and so on, until
    there are `distinct` in all."""
    words = [normalise(name).split() for name in names]
    seen = set(COMMON_QUERIES)
    pairs: list[str] = []
    needed = distinct - len(COMMON_QUERIES)
    for start in range(max((len(w) for w in words), default=0)):
        for name_words in words:
            two = name_words[start : start + 2]
            pair = " ".join(two)
            if len(two) == 2 and min(map(len, two)) >= 2 and pair not in seen:
                seen.add(pair)
                pairs.append(pair)
        if len(pairs) >= needed:
            break
    queries = [*COMMON_QUERIES, *rng.sample(pairs, min(needed, len(pairs)))]
    rng.shuffle(queries)
    return queries


def typed_postcode_pool(con: sqlite3.Connection) -> list[str]:
    """Every distinct postcode (compact) whose outward code also holds a served school: the
    English postcodes a parent looking for a school would type, sorted."""
    outwards = sorted(
        {
            str(r[0]).split()[0].upper()
            for r in con.execute("SELECT postcode FROM schools WHERE postcode LIKE '% %'")
        }
    )
    marks = ",".join("?" * len(outwards))
    return [
        str(r[0])
        for r in con.execute(
            f"SELECT DISTINCT compact FROM postcodes WHERE outward IN ({marks}) ORDER BY compact",
            outwards,
        )
    ]


def _location(con: sqlite3.Connection, compact: str) -> tuple[float, float]:
    la, lo = con.execute(
        "SELECT latitude, longitude FROM postcodes WHERE compact = ? LIMIT 1", (compact,)
    ).fetchone()
    return round(float(la), 5), round(float(lo), 5)


def spaced(compact: str) -> str:
    """`SW1A1AA` -> `SW1A 1AA`: the inward code is always the last three characters."""
    return f"{compact[:-3]} {compact[-3:]}"


def zipf_mix(items: Sequence[T], length: int, *, seed: int = SEED, s: float = ZIPF_S) -> list[T]:
    """`length` draws from `items`, the k-th most popular with weight 1 / k**s; which item is
    the k-th most popular is itself a seeded shuffle."""
    rng = random.Random(f"{seed}:zipf:{len(items)}")
    ranked = list(items)
    rng.shuffle(ranked)
    cumulative = list(accumulate(1 / k**s for k in range(1, len(ranked) + 1)))
    return rng.choices(ranked, cum_weights=cumulative, k=length)
