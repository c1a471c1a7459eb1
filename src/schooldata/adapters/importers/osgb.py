"""British National Grid (EPSG:27700) eastings/northings to WGS84 (EPSG:4326) locations.

pyproj converts a whole array in one C call; called point by point it is ~50x slower, so
callers buffer rows and convert them in batches (`locate_in_batches`).
"""

from __future__ import annotations

import math
import threading
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar

from pyproj import Transformer

from schooldata.domain.geo import Location

# The grid's extent over GB (OS): anything outside is a typo or a placeholder, not a place.
MAX_EASTING = 700_000.0
MAX_NORTHING = 1_300_000.0

GridPoint = tuple[float, float]
T = TypeVar("T")

_local = threading.local()


def _transformer() -> Transformer:
    # A pyproj Transformer must not be shared between threads; keep one per thread.
    transformer: Transformer | None = getattr(_local, "transformer", None)
    if transformer is None:
        transformer = Transformer.from_crs("EPSG:27700", "EPSG:4326", always_xy=True)
        _local.transformer = transformer
    return transformer


def grid_point(easting: str | None, northing: str | None) -> GridPoint | None:
    """A usable grid reference from two cells, or None (blank, unparseable, 0/0, off-grid).

    Publishers write 0/0 for "no coordinates"; it is a point in the sea off the Scilly Isles,
    so it must never become a location.
    """
    try:
        east = float(easting or "")
        north = float(northing or "")
    except ValueError:
        return None
    if not (0.0 < east <= MAX_EASTING and 0.0 < north <= MAX_NORTHING):
        return None
    return east, north


def to_wgs84(points: Sequence[GridPoint]) -> list[Location | None]:
    """Convert many grid points at once; a point PROJ cannot convert comes back None."""
    return convert(array("d", (p[0] for p in points)), array("d", (p[1] for p in points)))


def convert(eastings: array[float], northings: array[float]) -> list[Location | None]:
    """The vectorised core: parallel arrays in, one location (or None) per point out."""
    longitudes, latitudes = _transform(eastings, northings)
    if _all_valid(latitudes, longitudes):
        return list(map(Location, latitudes, longitudes))
    return [
        Location(lat, lon) if _valid(lat, lon) else None
        for lat, lon in zip(latitudes, longitudes, strict=True)
    ]


def convert_all(eastings: array[float], northings: array[float]) -> list[Location] | None:
    """Every point converted, or None if PROJ failed on any (then use `convert`).

    The fast path for the million-point imports: map() drives Location's constructor with no
    per-point Python frame, and there is no per-point None to test afterwards.
    """
    longitudes, latitudes = _transform(eastings, northings)
    if not _all_valid(latitudes, longitudes):
        return None
    return list(map(Location, latitudes, longitudes))


def _transform(
    eastings: array[float], northings: array[float]
) -> tuple[array[float], array[float]]:
    if not eastings:
        return array("d"), array("d")
    longitudes, latitudes = _transformer().transform(eastings, northings)
    return longitudes, latitudes


def _all_valid(latitudes: array[float], longitudes: array[float]) -> bool:
    if not latitudes:
        return True
    # PROJ marks a failed point with inf; a sum is non-finite if any term is inf or NaN.
    if not math.isfinite(sum(latitudes) + sum(longitudes)):
        return False
    return max(map(abs, latitudes)) <= 90.0 and max(map(abs, longitudes)) <= 180.0


def _valid(lat: float, lon: float) -> bool:
    return math.isfinite(lat) and math.isfinite(lon) and abs(lat) <= 90.0 and abs(lon) <= 180.0


def locate_in_batches(
    items: Iterable[tuple[T, GridPoint | None]], batch_size: int = 2_000
) -> Iterator[tuple[T, Location | None]]:
    """Attach a location to each payload, converting `batch_size` points per pyproj call.

    Order is kept; a payload without a grid point gets None. Lazy: at most one batch is held.
    """
    batch: list[tuple[T, GridPoint | None]] = []
    for item in items:
        batch.append(item)
        if len(batch) >= batch_size:
            yield from _convert(batch)
            batch = []
    yield from _convert(batch)


def _convert(batch: list[tuple[T, GridPoint | None]]) -> Iterator[tuple[T, Location | None]]:
    points = [point for _, point in batch if point is not None]
    converted = iter(to_wgs84(points))
    for payload, point in batch:
        yield payload, (None if point is None else next(converted))
