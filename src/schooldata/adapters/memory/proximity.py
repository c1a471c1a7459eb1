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

    def row_terms(self, i: int) -> tuple[float, float]:
        """For the points of row i's cells nearest the origin (the origin's latitude clamped to
        the row): the haversine's latitude term, and the factor of its longitude term (`to`'s
        operations, in its order)."""
        lat2 = math.radians(min(max(self.latitude, i * CELL_DEGREES), (i + 1) * CELL_DEGREES))
        return math.sin((lat2 - self.lat1) / 2) ** 2, self.cos1 * math.cos(lat2)

    def column_term(self, j: int) -> float:
        """sin^2(dlon / 2) for the nearest points of column j's cells."""
        longitude = min(max(self.longitude, j * CELL_DEGREES), (j + 1) * CELL_DEGREES)
        return math.sin(math.radians(longitude - self.longitude) / 2) ** 2

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
        """(nearest distance, i, j) of every occupied cell the circle may reach.

        A cell's nearest point takes its latitude from the cell's row and its longitude from
        its column, so the haversine's two terms are worked out once per row and per column
        (the same operations as `_From.to`, so the same distances)."""
        box = bounding_box(origin, radius)
        low = _cell(box.min_latitude, box.min_longitude)
        high = _cell(box.max_latitude, box.max_longitude)
        reach = radius + CELL_MARGIN_MILES
        columns = [(j, here.column_term(j)) for j in range(low[1], high[1] + 1)]
        cells = self._cells
        reached = []
        for i in range(low[0], high[0] + 1):
            row, scale = here.row_terms(i)
            for j, column in columns:
                if (i, j) in cells:
                    near = TWICE_R * math.asin(min(1.0, math.sqrt(row + scale * column)))
                    if near <= reach:
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
        (shown distance, URN), each with its exact distance.

        Per school, `_From.to` is written out with the same operations. A school whose
        haversine term is past `outside` (the term of a distance a hair beyond the radius)
        is out without the arcsine; once the page is full, one two shown steps beyond its
        last entry is counted without being ranked."""
        here = _From(origin)
        reached = sorted(self._reached(here, origin, radius))
        best: list[Ranked] = []  # the page as a heap, its last entry first: keys negated
        total = 0
        lat1, lon1, cos1 = here.lat1, here.longitude, here.cos1
        sin, asin, sqrt, radians = math.sin, math.asin, math.sqrt, math.radians
        outside = sin(radius * (1 + 1e-9) / TWICE_R) ** 2
        entering = math.inf  # distances from here up cannot enter the full page
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
                h = sin((lat2 - lat1) / 2) ** 2 + cos1 * cos2 * sin(radians(lon2 - lon1) / 2) ** 2
                if h > outside:
                    continue
                distance = TWICE_R * asin(min(1.0, sqrt(h)))
                if distance > radius:
                    continue
                total += 1
                if distance >= entering:
                    continue
                shown = math.floor(distance * 10_000) / 10_000
                ranked = (-shown, -school.urn.value, distance, school)
                if len(best) < wanted:
                    heapq.heappush(best, ranked)
                elif ranked > best[0]:
                    heapq.heapreplace(best, ranked)
                else:
                    continue
                if len(best) >= wanted:  # (two steps: a shown distance is rounded down)
                    entering = 2 * SHOWN_DISTANCE_STEP - best[0][0]
        page = sorted((-shown, -urn, d, s) for shown, urn, d, s in best)
        return total, page


def _past_the_page(near: float, best: list[Ranked], wanted: int) -> bool:
    """True when the page is full and a cell whose nearest point is `near` away can hold no
    school that would enter it (`best` holds the page, its last entry first, keys negated)."""
    if len(best) < wanted:
        return False
    return not best or near - CELL_MARGIN_MILES > SHOWN_DISTANCE_STEP - best[0][0]
