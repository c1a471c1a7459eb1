"""Locations on the WGS84 ellipsoid and great-circle distance in miles."""

from __future__ import annotations

import math
from typing import Final

from attrs import frozen

# Mean Earth radius (IUGG) in statute miles. A sphere is within 0.5% of the ellipsoid at UK
# distances, far inside the precision a school-finder needs.
EARTH_RADIUS_MILES: Final = 3958.7613
MILES_PER_DEGREE_LATITUDE: Final = math.pi * EARTH_RADIUS_MILES / 180.0


@frozen
class Location:
    latitude: float
    longitude: float


SHOWN_DISTANCE_STEP: Final = 0.0001  # distances are shown to four decimals


def shown_distance(distance: float) -> float:
    """A distance as answers show it: four decimals, rounded down, so it never exceeds the
    radius it satisfied. Nearest-first orders compare these (ties then by URN), so the order
    a client sees agrees with the distances it is shown."""
    return math.floor(distance * 10_000) / 10_000


def distance_miles(a: Location, b: Location) -> float:
    """Haversine great-circle distance between two points, in miles."""
    lat1, lat2 = math.radians(a.latitude), math.radians(b.latitude)
    dlat = lat2 - lat1
    dlon = math.radians(b.longitude - a.longitude)
    h = square(math.sin(dlat / 2)) + math.cos(lat1) * math.cos(lat2) * square(math.sin(dlon / 2))
    return 2 * EARTH_RADIUS_MILES * math.asin(min(1.0, math.sqrt(h)))


def square(x: float) -> float:
    """`x * x`: one rounding (`x ** 2` goes through C's `pow`, which may differ in the last
    bit). The proximity strips square alike, so their distances agree with these to the bit."""
    return x * x


@frozen
class BoundingBox:
    min_latitude: float
    max_latitude: float
    min_longitude: float
    max_longitude: float


def bounding_box(centre: Location, radius_miles: float) -> BoundingBox:
    """A box that contains every point within `radius_miles` of `centre` (a cheap prefilter).

    Slightly generous (1% margin) so that rounding never drops a point the exact distance keeps.
    """
    return BoundingBox(*box_edges(centre.latitude, centre.longitude, radius_miles))


def box_edges(
    latitude: float, longitude: float, radius_miles: float
) -> tuple[float, float, float, float]:
    """`bounding_box`'s south, north, west and east edges, as plain numbers."""
    dlat = radius_miles / MILES_PER_DEGREE_LATITUDE * 1.01
    cos_lat = max(math.cos(math.radians(min(89.0, abs(latitude) + dlat))), 1e-6)
    dlon = min(180.0, dlat / cos_lat)
    return latitude - dlat, latitude + dlat, longitude - dlon, longitude + dlon
