"""Schools within a radius of a point, from a grid of small cells, with the exact distances.

Each located school is kept in a 0.02-degree cell (about 1.4 by 0.85 miles in England) with its
latitude in radians and that latitude's cosine, computed once per data version. A question
visits only the cells its circle can reach (a cell whose nearest point is farther than the
radius, by more than a margin, is skipped whole) and computes each candidate's haversine
distance with the very operations of `domain.geo.distance_miles`, so every distance, and so
every inclusion and order, is bit for bit the one the domain's evaluator finds.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable

from schooldata.domain.geo import EARTH_RADIUS_MILES, Location, bounding_box, distance_miles
from schooldata.domain.school import School

CELL_DEGREES = 0.02
# A cell is skipped only when its nearest point is this much beyond the radius: the point
# nearest in degrees is within a hair of the nearest on the sphere at these sizes.
CELL_MARGIN_MILES = 0.05

Entry = tuple[float, float, float, School]  # latitude (radians), longitude, cos(latitude), school


def _cell(latitude: float, longitude: float) -> tuple[int, int]:
    return math.floor(latitude / CELL_DEGREES), math.floor(longitude / CELL_DEGREES)


class ProximityGrid:
    def __init__(self, schools: Iterable[School]) -> None:
        cells: dict[tuple[int, int], list[Entry]] = defaultdict(list)
        for school in schools:
            where = school.location
            if where is None:
                continue
            latitude = math.radians(where.latitude)
            cells[_cell(where.latitude, where.longitude)].append(
                (latitude, where.longitude, math.cos(latitude), school)
            )
        self._cells = dict(cells)

    def within(self, origin: Location, radius: float) -> list[tuple[float, School]]:
        """(distance in miles, school) of every located school at most `radius` away."""
        box = bounding_box(origin, radius)
        low = _cell(box.min_latitude, box.min_longitude)
        high = _cell(box.max_latitude, box.max_longitude)
        lat1 = math.radians(origin.latitude)
        cos1 = math.cos(lat1)
        olon = origin.longitude
        reach = radius + CELL_MARGIN_MILES
        radians, sin, sqrt, asin = math.radians, math.sin, math.sqrt, math.asin
        twice_r = 2 * EARTH_RADIUS_MILES
        found: list[tuple[float, School]] = []
        cells = self._cells
        for i in range(low[0], high[0] + 1):
            for j in range(low[1], high[1] + 1):
                entries = cells.get((i, j))
                if not entries or _nearest(origin, i, j) > reach:
                    continue
                for lat2, lon2, cos2, school in entries:
                    # distance_miles(origin, school.location), operation for operation.
                    dlat = lat2 - lat1
                    dlon = radians(lon2 - olon)
                    h = sin(dlat / 2) ** 2 + cos1 * cos2 * sin(dlon / 2) ** 2
                    distance = twice_r * asin(min(1.0, sqrt(h)))
                    if distance <= radius:
                        found.append((distance, school))
        return found


def _nearest(origin: Location, i: int, j: int) -> float:
    """The distance to the point of cell (i, j) nearest the origin in degrees."""
    latitude = min(max(origin.latitude, i * CELL_DEGREES), (i + 1) * CELL_DEGREES)
    longitude = min(max(origin.longitude, j * CELL_DEGREES), (j + 1) * CELL_DEGREES)
    return distance_miles(origin, Location(latitude, longitude))
