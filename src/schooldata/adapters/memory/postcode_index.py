"""Every live postcode in memory, packed: a sorted array of keys and two of coordinates.

A dict of 1.75 M postcodes would hold ~250 MB per worker; these arrays hold ~42 MB and answer
by binary search in microseconds, so a postcode question never waits on a database. Each
compact postcode (at most 7 of A-Z0-9) packs into one integer, base 37, 0 meaning "no
character", so packed order is compact order. Coordinates stay float64: distances are shown
to four decimals of a mile, and float32 would move them.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterable

from schooldata.domain.geo import Location
from schooldata.domain.postcode import PostcodeQuery

_DIGITS = {c: i + 1 for i, c in enumerate("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")}
_WIDTH = 7
_PADDING = [int(37**n) for n in range(_WIDTH + 1)]  # the scale of n missing characters
# Every BLOCK-th key is kept apart too (~220 KB at national scale, so it stays in cache): a
# lookup searches it first, then one block of the keys, touching a few cache lines of the
# 14 MB array instead of ~21 scattered ones.
BLOCK = 64


def pack(compact: str) -> int | None:
    """The key of a compact postcode, or None when it cannot be one (too long, other
    characters)."""
    if len(compact) > _WIDTH:
        return None
    key = 0
    for char in compact:
        digit = _DIGITS.get(char)
        if digit is None:
            return None
        key = key * 37 + digit
    return key * _PADDING[_WIDTH - len(compact)]


class PostcodeIndex:
    """A PostcodeDirectory over packed arrays. `full` comes in the stores' precedence order:
    for a postcode several sources hold, the last one read wins (as in every store)."""

    def __init__(
        self,
        full: Iterable[tuple[str, float, float]],
        outward: Iterable[tuple[str, float, float]],
    ) -> None:
        keys: array[int] = array("q")
        latitudes: array[float] = array("d")
        longitudes: array[float] = array("d")
        last = -1
        ordered = True
        for compact, latitude, longitude in full:
            key = pack(compact)
            if key is None:
                continue
            if key == last:  # the same postcode from a later source: it wins
                latitudes[-1], longitudes[-1] = latitude, longitude
                continue
            ordered = ordered and key > last
            keys.append(key)
            latitudes.append(latitude)
            longitudes.append(longitude)
            last = key
        if not ordered:
            keys, latitudes, longitudes = _sorted(keys, latitudes, longitudes)
        self._keys = keys
        self._directory: array[int] = keys[::BLOCK]
        self._latitudes = latitudes
        self._longitudes = longitudes
        self._outward = {code: Location(lat, lon) for code, lat, lon in outward}

    def __len__(self) -> int:
        return len(self._keys)

    def locate(self, *, postcode: PostcodeQuery) -> Location | None:
        if postcode.is_outward_only:
            return self._outward.get(postcode.compact)
        key = pack(postcode.compact)
        if key is None:
            return None
        block = bisect.bisect_right(self._directory, key) - 1
        if block < 0:
            return None
        start = block * BLOCK
        keys = self._keys
        at = bisect.bisect_left(keys, key, start, min(start + BLOCK, len(keys)))
        if at == len(keys) or keys[at] != key:
            return None
        return Location(self._latitudes[at], self._longitudes[at])


def _sorted(
    keys: array[int], latitudes: array[float], longitudes: array[float]
) -> tuple[array[int], array[float], array[float]]:
    """The arrays in key order; of equal keys the last read wins (a stable sort keeps them in
    reading order)."""
    order = sorted(range(len(keys)), key=keys.__getitem__)
    out_keys: array[int] = array("q")
    out_lat: array[float] = array("d")
    out_lon: array[float] = array("d")
    for i in order:
        if out_keys and out_keys[-1] == keys[i]:
            out_lat[-1], out_lon[-1] = latitudes[i], longitudes[i]
            continue
        out_keys.append(keys[i])
        out_lat.append(latitudes[i])
        out_lon.append(longitudes[i])
    return out_keys, out_lat, out_lon
