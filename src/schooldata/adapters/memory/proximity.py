"""Schools within a radius of a point: strips of latitude sorted by longitude, chords measured
in compiled code, and the domain's own haversine wherever a distance is shown or an inclusion
is close.

Each located school sits in a strip of latitude (`STRIP_DEGREES`), sorted by longitude, with
its unit vector on the sphere. A question's bounding box (the domain's) is a few runs of a few
strips, found by binary search. The squared straight-line chord from the origin's unit vector
to every candidate decides which may lie within the radius; a chord is monotonic in the
great-circle distance, so it also orders and counts them. Only where the answer shows a
distance (the page) or where a chord lies within `MARGIN_MILES` of the radius is the
distance computed with the very operations of `domain.geo.distance_miles`, so every
distance, inclusion and order is bit for bit the one the domain's evaluator finds.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from operator import itemgetter
from typing import Any

from schooldata.domain.geo import EARTH_RADIUS_MILES, SHOWN_DISTANCE_STEP, Location, bounding_box
from schooldata.domain.school import School

STRIP_DEGREES = 0.02
# A chord and the haversine agree to ~1e-12 miles at these sizes: a chord this much inside or
# outside the radius decides on its own; nearer the edge the haversine decides.
MARGIN_MILES = 1e-7
TWICE_R = 2 * EARTH_RADIUS_MILES
# What `math.radians` multiplies by, so the product is the same double; compiled code
# multiplies where `math.radians` would be looked up and called.
RADIANS_PER_DEGREE = math.pi / 180.0

Point = tuple[float, float, float]  # a unit vector
Keep = Callable[[School], bool]
Ranked = tuple[float, int, float, School]  # (shown distance, URN) orders; distance; school


def unit_vector(latitude: float, cos_latitude: float, longitude: float) -> Point:
    """The point at (`latitude` in radians, its cosine, `longitude` in degrees)."""
    lon = math.radians(longitude)
    return (cos_latitude * math.cos(lon), cos_latitude * math.sin(lon), math.sin(latitude))


def chord_of(miles: float) -> float:
    """The chord of the unit sphere spanning `miles` of great circle."""
    return 2 * math.sin(max(miles, 0.0) / TWICE_R)


def squared_chord_of(miles: float) -> float:
    chord = chord_of(miles)
    return chord * chord


class _Place:
    """A located school with what every distance to it reuses, held as C doubles (a
    compiled class: reading them makes no float object)."""

    def __init__(self, school: School, where: Location, urn: Any) -> None:
        self.school = school
        # Read beside the vector, a page's order never reaches into the school record. `Any`:
        # the school's own int, where compiled code would store an `int` as a new object.
        self.urn = urn
        self.latitude = math.radians(where.latitude)  # radians
        self.longitude = where.longitude  # degrees
        self.cos_latitude = math.cos(self.latitude)
        self.x, self.y, self.z = unit_vector(self.latitude, self.cos_latitude, self.longitude)


Near = tuple[float, _Place]  # squared chord from the origin, place


class _From:
    """An origin, with what every distance from it reuses."""

    def __init__(self, origin: Location) -> None:
        self.origin = origin
        self.longitude = origin.longitude
        self.lat1 = math.radians(origin.latitude)
        self.cos1 = math.cos(self.lat1)
        self.x, self.y, self.z = unit_vector(self.lat1, self.cos1, origin.longitude)

    def to(self, place: _Place) -> float:
        """`domain.geo.distance_miles` to the place, operation for operation."""
        dlat = place.latitude - self.lat1
        dlon = (place.longitude - self.longitude) * RADIANS_PER_DEGREE
        h = math.sin(dlat / 2) ** 2 + self.cos1 * place.cos_latitude * math.sin(dlon / 2) ** 2
        return TWICE_R * math.asin(min(1.0, math.sqrt(h)))


class _Strip:
    __slots__ = ("longitudes", "places")

    def __init__(self, located: list[tuple[School, Location, Any]]) -> None:
        located.sort(key=lambda each: (each[1].longitude, each[2]))
        # Made in the order a question scans them, so neighbours lie side by side in memory.
        self.places = [_Place(school, where, urn) for school, where, urn in located]
        # What a bisection reads, packed: a probe reads one double, where a list of floats
        # reads a pointer and then the float it points at, two cache misses on a cold strip.
        self.longitudes = array("d", [p.longitude for p in self.places])


def _first_above(longitudes: array[float], x: float, low: int) -> int:
    """`bisect_right(longitudes, x, low)`, galloping from `low`: a run is short, and its
    first entries sit on the cache lines the bisection for its west end just read."""
    end = len(longitudes)
    high = low
    step = 8
    while high < end and longitudes[high] <= x:
        low = high + 1
        high += step
        step += step
    return bisect_right(longitudes, x, low, min(high, end))


class ProximityStrips:
    def __init__(self, schools: Iterable[School], urns: Iterable[Any]) -> None:
        """`urns`: each school's URN value, the school's own int object (`SchoolIndex`)."""
        strips: dict[int, list[tuple[School, Location, Any]]] = {}
        for school, urn in zip(schools, urns, strict=True):
            where = school.location
            if where is not None:
                strip = math.floor(where.latitude / STRIP_DEGREES)
                strips.setdefault(strip, []).append((school, where, urn))
        # A list from the southernmost strip: a question's strips are read by position, where
        # a dict would compare each key it finds.
        self._first = min(strips, default=0)
        self._strips: list[_Strip | None] = [None] * (max(strips, default=-1) - self._first + 1)
        for i, located in strips.items():
            self._strips[i - self._first] = _Strip(located)

    def _runs(self, origin: Location, radius: float) -> list[tuple[_Strip, int, int]]:
        """The strips' runs of places inside the domain's bounding box of the circle."""
        box = bounding_box(origin, radius)
        west, east = box.min_longitude, box.max_longitude
        runs: list[tuple[_Strip, int, int]] = []
        strips = self._strips
        south = max(math.floor(box.min_latitude / STRIP_DEGREES) - self._first, 0)
        north = min(math.floor(box.max_latitude / STRIP_DEGREES) - self._first, len(strips) - 1)
        for i in range(south, north + 1):
            strip = strips[i]
            if strip is not None:
                low = bisect_left(strip.longitudes, west)
                high = _first_above(strip.longitudes, east, low)
                if low < high:
                    runs.append((strip, low, high))
        return runs

    def _near(self, here: _From, radius: float, keep: Keep | None) -> list[Near]:
        """Every kept place whose chord may lie within `radius` (up to `MARGIN_MILES` past
        it), with its squared chord, in no particular order."""
        x, y, z = here.x, here.y, here.z
        limit = squared_chord_of(radius + MARGIN_MILES)
        found: list[Near] = []
        for strip, low, high in self._runs(here.origin, radius):
            places = strip.places
            for k in range(low, high):
                place = places[k]
                dx = place.x - x
                dy = place.y - y
                dz = place.z - z
                squared = dx * dx + dy * dy + dz * dz
                if squared <= limit and (keep is None or keep(place.school)):
                    found.append((squared, place))
        return found

    def in_box(self, origin: Location, radius: float) -> list[School]:
        """A superset of the schools within `radius`: those in its bounding box's strips."""
        return [
            strip.places[k].school
            for strip, low, high in self._runs(origin, radius)
            for k in range(low, high)
        ]

    def within(self, origin: Location, radius: float) -> list[tuple[float, School]]:
        """(distance in miles, school) of every located school at most `radius` away."""
        here = _From(origin)
        found: list[tuple[float, School]] = []
        for _, place in self._near(here, radius, None):
            distance = here.to(place)
            if distance <= radius:
                found.append((distance, place.school))
        return found

    def nearest(
        self, origin: Location, radius: float, wanted: int, keep: Keep | None
    ) -> tuple[int, list[Ranked]]:
        """How many kept schools lie within `radius`, and the first `wanted` of them by
        (shown distance, URN), each with its exact distance.

        The total counts chords surely inside; the page takes candidates in chord order,
        measuring each, until the next cannot be shown as near as the page's last entry."""
        here = _From(origin)
        near = self._near(here, radius, keep)
        sure = squared_chord_of(radius - MARGIN_MILES)
        total = 0
        for squared, place in near:
            if squared <= sure or here.to(place) <= radius:  # on the edge: the haversine says
                total += 1
        if not total or wanted <= 0:
            return total, []
        near.sort(key=itemgetter(0))  # (stable: places of equal chords are never compared)
        page: list[Ranked] = []
        stop = math.inf
        for squared, place in near:
            if squared > stop:
                break
            distance = here.to(place)
            if distance <= radius:
                shown = math.floor(distance * 10_000) / 10_000
                page.append((shown, place.urn, distance, place.school))
                if len(page) == wanted:
                    # Later chords are no nearer: only one shown as near as the last can enter.
                    last = max(page)[0]
                    stop = squared_chord_of(last + SHOWN_DISTANCE_STEP + MARGIN_MILES)
        page.sort()
        return total, page[:wanted]
