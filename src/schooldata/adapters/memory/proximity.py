"""Schools within a radius of a point, from a grid of small cells, with the exact distances.

Each located school is kept in a 0.02-degree cell (about 1.4 by 0.85 miles in England) with its
latitude in radians and that latitude's cosine, computed once per data version. A question
visits only the cells its circle can reach (a cell whose nearest point is farther than the
radius, by more than a margin, is skipped whole) and computes each candidate's haversine
distance with the very operations of `domain.geo.distance_miles`, so every distance, and so
every inclusion and order, is bit for bit the one the domain's evaluator finds.

Nearest first, only the page needs distances: cells are visited nearest first, and once the
page is full and a cell cannot hold anything nearer than its last entry, a cell wholly inside
the circle is counted without measuring (a cell across the edge still is, for the total).
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Callable, Iterable

from schooldata.domain.geo import EARTH_RADIUS_MILES, SHOWN_DISTANCE_STEP, Location, bounding_box
from schooldata.domain.school import School

CELL_DEGREES = 0.02
# A cell's nearest and farthest points are found in degrees; on the sphere they are within a
# hair of these at this size, so a cell is judged wholly out or in only by this much more.
CELL_MARGIN_MILES = 0.05
TWICE_R = 2 * EARTH_RADIUS_MILES

Entry = tuple[float, float, float, School]  # latitude (radians), longitude, cos(latitude), school
Keep = Callable[[School], bool]
Ranked = tuple[float, int, float, School]  # (shown distance, URN) orders; distance; school


def _cell(latitude: float, longitude: float) -> tuple[int, int]:
    return math.floor(latitude / CELL_DEGREES), math.floor(longitude / CELL_DEGREES)


class _From:
    """An origin, with what every distance from it reuses."""

    def __init__(self, origin: Location) -> None:
        self.latitude = origin.latitude
        self.longitude = origin.longitude
        self.lat1 = math.radians(origin.latitude)
        self.cos1 = math.cos(self.lat1)

    def to(self, lat2: float, lon2: float, cos2: float) -> float:
        """`domain.geo.distance_miles` to (lat2 radians, lon2 degrees), operation for
        operation."""
        dlat = lat2 - self.lat1
        dlon = math.radians(lon2 - self.longitude)
        h = math.sin(dlat / 2) ** 2 + self.cos1 * cos2 * math.sin(dlon / 2) ** 2
        return TWICE_R * math.asin(min(1.0, math.sqrt(h)))

    def to_degrees(self, latitude: float, longitude: float) -> float:
        lat2 = math.radians(latitude)
        return self.to(lat2, longitude, math.cos(lat2))

    def nearest(self, i: int, j: int) -> float:
        """The distance to the point of cell (i, j) nearest the origin in degrees."""
        latitude = min(max(self.latitude, i * CELL_DEGREES), (i + 1) * CELL_DEGREES)
        longitude = min(max(self.longitude, j * CELL_DEGREES), (j + 1) * CELL_DEGREES)
        return self.to_degrees(latitude, longitude)

    def farthest(self, i: int, j: int) -> float:
        """The distance to the corner of cell (i, j) farthest from the origin in degrees."""
        low, high = i * CELL_DEGREES, (i + 1) * CELL_DEGREES
        latitude = low if abs(self.latitude - low) > abs(self.latitude - high) else high
        west, east = j * CELL_DEGREES, (j + 1) * CELL_DEGREES
        longitude = west if abs(self.longitude - west) > abs(self.longitude - east) else east
        return self.to_degrees(latitude, longitude)


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

    def _reached(
        self, here: _From, origin: Location, radius: float
    ) -> list[tuple[float, int, int]]:
        """(nearest distance, i, j) of every occupied cell the circle may reach."""
        box = bounding_box(origin, radius)
        low = _cell(box.min_latitude, box.min_longitude)
        high = _cell(box.max_latitude, box.max_longitude)
        reach = radius + CELL_MARGIN_MILES
        reached = []
        for i in range(low[0], high[0] + 1):
            for j in range(low[1], high[1] + 1):
                if (i, j) in self._cells and (near := here.nearest(i, j)) <= reach:
                    reached.append((near, i, j))
        return reached

    def within(self, origin: Location, radius: float) -> list[tuple[float, School]]:
        """(distance in miles, school) of every located school at most `radius` away."""
        here = _From(origin)
        found: list[tuple[float, School]] = []
        for _, i, j in self._reached(here, origin, radius):
            for lat2, lon2, cos2, school in self._cells[i, j]:
                distance = here.to(lat2, lon2, cos2)
                if distance <= radius:
                    found.append((distance, school))
        return found

    def nearest(
        self, origin: Location, radius: float, wanted: int, keep: Keep | None
    ) -> tuple[int, list[Ranked]]:
        """How many kept schools lie within `radius`, and the first `wanted` of them by
        (shown distance, URN), each with its exact distance."""
        here = _From(origin)
        reached = sorted(self._reached(here, origin, radius))
        best: list[Ranked] = []  # the page as a heap, its last entry first: keys negated
        total = 0
        for near, i, j in reached:
            entries = self._cells[i, j]
            if (
                _past_the_page(near, best, wanted)
                and here.farthest(i, j) < radius - CELL_MARGIN_MILES
            ):
                # Wholly inside the circle, and nothing here can reach the page: count it.
                total += len(entries) if keep is None else sum(1 for e in entries if keep(e[3]))
                continue
            for lat2, lon2, cos2, school in entries:
                if keep is not None and not keep(school):
                    continue
                distance = here.to(lat2, lon2, cos2)
                if distance > radius:
                    continue
                total += 1
                shown = math.floor(distance * 10_000) / 10_000
                ranked = (-shown, -school.urn.value, distance, school)
                if len(best) < wanted:
                    heapq.heappush(best, ranked)
                elif ranked > best[0]:
                    heapq.heapreplace(best, ranked)
        page = sorted((-shown, -urn, d, s) for shown, urn, d, s in best)
        return total, page


def _past_the_page(near: float, best: list[Ranked], wanted: int) -> bool:
    """True when the page is full and a cell whose nearest point is `near` away can hold no
    school that would enter it (`best` holds the page, its last entry first, keys negated)."""
    if len(best) < wanted:
        return False
    return not best or near - CELL_MARGIN_MILES > SHOWN_DISTANCE_STEP - best[0][0]
