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
from collections.abc import Callable, Iterable
from operator import itemgetter
from typing import Final

from schooldata.domain.geo import (
    EARTH_RADIUS_MILES,
    SHOWN_DISTANCE_STEP,
    Location,
    box_edges,
    square,
)
from schooldata.domain.school import School

# (`Final`: compiled code reads these as C values, not from the module's dictionary.)
STRIP_DEGREES: Final = 0.02
# A chord and the haversine agree to ~1e-12 miles at these sizes: a chord this much inside or
# outside the radius decides on its own; nearer the edge the haversine decides.
MARGIN_MILES: Final = 1e-7
TWICE_R: Final = 2 * EARTH_RADIUS_MILES
# `math.radians`' own factor, multiplied here as the same double (compiled, a product is C
# arithmetic where `math.radians` and `math.asin` would be called through Python objects).
RADIANS_PER_DEGREE: Final = math.pi / 180.0
_ASIN: Final = math.asin
_BY_CHORD: Final = itemgetter(0)
_UNBOUNDED: Final = math.inf

Point = tuple[float, float, float]  # a unit vector
Keep = Callable[[School], bool]
Ranked = tuple[float, int, float, School]  # (shown distance, URN) orders; distance; school


def unit_vector(latitude: float, cos_latitude: float, longitude: float) -> Point:
    """The point at (`latitude` in radians, its cosine, `longitude` in degrees)."""
    lon = longitude * RADIANS_PER_DEGREE
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

    def __init__(self, school: School, where: Location, urn: int) -> None:
        self.school = school
        self.urn = urn  # read beside the vector, a page's order never reaches into the school
        self.latitude = where.latitude * RADIANS_PER_DEGREE  # radians
        self.longitude = where.longitude  # degrees
        self.cos_latitude = math.cos(self.latitude)
        self.x, self.y, self.z = unit_vector(self.latitude, self.cos_latitude, self.longitude)


Near = tuple[float, _Place]  # squared chord from the origin, place


class _From:
    """An origin, with what every distance from it reuses."""

    def __init__(self, origin: Location) -> None:
        self.origin = origin
        self.longitude = origin.longitude
        self.lat1 = origin.latitude * RADIANS_PER_DEGREE
        self.cos1 = math.cos(self.lat1)
        self.x, self.y, self.z = unit_vector(self.lat1, self.cos1, origin.longitude)

    def to(self, place: _Place) -> float:
        """`domain.geo.distance_miles` to the place, operation for operation."""
        dlat = place.latitude - self.lat1
        dlon = (place.longitude - self.longitude) * RADIANS_PER_DEGREE
        h = square(math.sin(dlat / 2)) + self.cos1 * place.cos_latitude * square(math.sin(dlon / 2))
        return TWICE_R * _ASIN(min(1.0, math.sqrt(h)))


def _strip(located: list[tuple[School, Location, int]]) -> list[_Place]:
    """A strip's places by longitude, made in the order a question scans them, so neighbours
    lie side by side in memory."""
    located.sort(key=lambda each: (each[1].longitude, each[2]))
    return [_Place(school, where, urn) for school, where, urn in located]


def _first_at_or_east(places: list[_Place], x: float) -> int:
    """`bisect_left` of `x` in the places' longitudes, each read as a C double (the `bisect`
    module would make a Python float of every probe)."""
    low = 0
    high = len(places)
    while low < high:
        middle = (low + high) // 2
        if places[middle].longitude < x:
            low = middle + 1
        else:
            high = middle
    return low


def _first_east_of(places: list[_Place], x: float, low: int) -> int:
    """`bisect_right` of `x` from `low`, galloping first: a run is short, and its first
    entries sit on the cache lines the bisection for its west end just read."""
    end = len(places)
    high = low
    step = 8
    while high < end and places[high].longitude <= x:
        low = high + 1
        high += step
        step += step
    high = min(high, end)
    while low < high:
        middle = (low + high) // 2
        if x < places[middle].longitude:
            high = middle
        else:
            low = middle + 1
    return low


class ProximityStrips:
    def __init__(self, schools: Iterable[School], urns: Iterable[int]) -> None:
        """`urns`: each school's URN value, in the order of `schools`."""
        strips: dict[int, list[tuple[School, Location, int]]] = {}
        for school, urn in zip(schools, urns, strict=True):
            where = school.location
            if where is not None:
                strip = math.floor(where.latitude / STRIP_DEGREES)
                strips.setdefault(strip, []).append((school, where, urn))
        # A list from the southernmost strip: a question's strips are read by position, where
        # a dict would compare each key it finds.
        self._first = min(strips, default=0)
        # A strip without schools is one shared empty list, never changed.
        self._strips: list[list[_Place]] = [[]] * (max(strips, default=-1) - self._first + 1)
        for i, located in strips.items():
            self._strips[i - self._first] = _strip(located)

    def _runs(self, origin: Location, radius: float) -> list[tuple[list[_Place], int, int]]:
        """The strips' runs of places inside the domain's bounding box of the circle."""
        south_edge, north_edge, west, east = box_edges(origin.latitude, origin.longitude, radius)
        runs: list[tuple[list[_Place], int, int]] = []
        strips = self._strips
        south = max(math.floor(south_edge / STRIP_DEGREES) - self._first, 0)
        north = min(math.floor(north_edge / STRIP_DEGREES) - self._first, len(strips) - 1)
        for i in range(south, north + 1):
            places = strips[i]
            if places:
                low = _first_at_or_east(places, west)
                high = _first_east_of(places, east, low)
                if low < high:
                    runs.append((places, low, high))
        return runs

    def _near(self, here: _From, radius: float, keep: Keep | None) -> list[Near]:
        """Every kept place whose chord may lie within `radius` (up to `MARGIN_MILES` past
        it), with its squared chord, in no particular order."""
        x, y, z = here.x, here.y, here.z
        limit = squared_chord_of(radius + MARGIN_MILES)
        found: list[Near] = []
        for places, low, high in self._runs(here.origin, radius):
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
            places[k].school
            for places, low, high in self._runs(origin, radius)
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
        near.sort(key=_BY_CHORD)  # (stable: places of equal chords are never compared)
        page: list[Ranked] = []
        stop = _UNBOUNDED
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
