"""Schools within a radius of a point: strips of latitude sorted by longitude, chords measured
in C, and the domain's own haversine wherever a distance is shown or an inclusion is close.

Each located school sits in a strip of latitude (`STRIP_DEGREES`), sorted by longitude, with
its unit vector on the sphere. A question's bounding box (the domain's) is a few slices of a few
strips, found by binary search. The straight-line chord to every candidate is
`math.dist` from the origin's unit vector, one C call each; a chord is monotonic in the
great-circle distance, so it orders and counts the candidates. Only where the answer shows a
distance (the page) or where a chord lies within `MARGIN_MILES` of the radius is the
distance computed with the very operations of `domain.geo.distance_miles`, so every
distance, inclusion and order is bit for bit the one the domain's evaluator finds.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from itertools import repeat
from operator import itemgetter

from schooldata.domain.geo import EARTH_RADIUS_MILES, SHOWN_DISTANCE_STEP, Location, bounding_box
from schooldata.domain.school import School

STRIP_DEGREES = 0.02
# A chord and the haversine agree to ~1e-12 miles at these sizes: a chord this much inside or
# outside the radius decides on its own; nearer the edge the haversine decides.
MARGIN_MILES = 1e-7
TWICE_R = 2 * EARTH_RADIUS_MILES

Entry = tuple[float, float, float, School]  # latitude (radians), longitude, cos(latitude), school
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


class _From:
    """An origin, with what every distance from it reuses."""

    def __init__(self, origin: Location) -> None:
        self.longitude = origin.longitude
        self.lat1 = math.radians(origin.latitude)
        self.cos1 = math.cos(self.lat1)
        self.point = unit_vector(self.lat1, self.cos1, origin.longitude)

    def to(self, entry: Entry) -> float:
        """`domain.geo.distance_miles` to the entry's school, operation for operation."""
        lat2, lon2, cos2, _ = entry
        dlat = lat2 - self.lat1
        dlon = math.radians(lon2 - self.longitude)
        h = math.sin(dlat / 2) ** 2 + self.cos1 * cos2 * math.sin(dlon / 2) ** 2
        return TWICE_R * math.asin(min(1.0, math.sqrt(h)))


class _Strip:
    __slots__ = ("entries", "longitudes", "points")

    def __init__(self, entries: list[Entry]) -> None:
        entries.sort(key=lambda e: (e[1], e[3].urn.value))
        self.entries = entries
        # The entries' own float objects: bisecting a list reads them as they are, where an
        # array("d") makes a new float object for every probe.
        self.longitudes: list[float] = list(map(itemgetter(1), entries))
        self.points = [unit_vector(e[0], e[2], e[1]) for e in entries]


class ProximityStrips:
    def __init__(self, schools: Iterable[School]) -> None:
        strips: dict[int, list[Entry]] = {}
        for school in schools:
            where = school.location
            if where is None:
                continue
            latitude = math.radians(where.latitude)
            entry = (latitude, where.longitude, math.cos(latitude), school)
            strips.setdefault(math.floor(where.latitude / STRIP_DEGREES), []).append(entry)
        self._strips = {i: _Strip(entries) for i, entries in strips.items()}

    def _candidates(self, origin: Location, radius: float) -> tuple[list[Point], list[Entry]]:
        """Every located school in the domain's bounding box of the circle, and more."""
        box = bounding_box(origin, radius)
        west, east = box.min_longitude, box.max_longitude
        points: list[Point] = []
        entries: list[Entry] = []
        strips = self._strips
        first = math.floor(box.min_latitude / STRIP_DEGREES)
        for i in range(first, math.floor(box.max_latitude / STRIP_DEGREES) + 1):
            strip = strips.get(i)
            if strip is not None:
                low = bisect_left(strip.longitudes, west)
                high = bisect_right(strip.longitudes, east)
                if low < high:
                    points += strip.points[low:high]
                    entries += strip.entries[low:high]
        return points, entries

    def in_box(self, origin: Location, radius: float) -> list[School]:
        """A superset of the schools within `radius`: those in its bounding box's strips."""
        return [e[3] for e in self._candidates(origin, radius)[1]]

    def within(self, origin: Location, radius: float) -> list[tuple[float, School]]:
        """(distance in miles, school) of every located school at most `radius` away."""
        here = _From(origin)
        points, entries = self._candidates(origin, radius)
        unsure = chord_of(radius + MARGIN_MILES)
        found: list[tuple[float, School]] = []
        for chord, entry in zip(map(math.dist, repeat(here.point), points), entries, strict=True):
            if chord <= unsure:
                distance = here.to(entry)
                if distance <= radius:
                    found.append((distance, entry[3]))
        return found

    def nearest(
        self, origin: Location, radius: float, wanted: int, keep: Keep | None
    ) -> tuple[int, list[Ranked]]:
        """How many kept schools lie within `radius`, and the first `wanted` of them by
        (shown distance, URN), each with its exact distance.

        The total counts chords surely inside; the page takes candidates in chord order,
        measuring each, until the next cannot be shown as near as the page's last entry."""
        here = _From(origin)
        points, entries = self._candidates(origin, radius)
        if keep is not None:
            kept = [k for k, e in enumerate(entries) if keep(e[3])]
            points, entries = [points[k] for k in kept], [entries[k] for k in kept]
        chords = list(map(math.dist, repeat(here.point, len(points)), points))
        order = sorted(range(len(chords)), key=chords.__getitem__)
        ranked = [chords[k] for k in order]
        sure, unsure = chord_of(radius - MARGIN_MILES), chord_of(radius + MARGIN_MILES)
        total = bisect_right(ranked, sure)
        if bisect_right(ranked, unsure) > total:  # some lie on the edge: the haversine says
            total += sum(
                1
                for chord, entry in zip(chords, entries, strict=True)
                if sure < chord <= unsure and here.to(entry) <= radius
            )
        if not total or wanted <= 0:
            return total, []
        page: list[Ranked] = []
        stop = unsure
        for k in order:
            if chords[k] > stop:
                break
            entry = entries[k]
            distance = here.to(entry)
            if distance <= radius:
                shown = math.floor(distance * 10_000) / 10_000
                page.append((shown, entry[3].urn.value, distance, entry[3]))
                if len(page) == wanted:
                    # Later chords are no nearer: only one shown as near as the last can enter.
                    last = max(page)[0]
                    stop = min(unsure, chord_of(last + SHOWN_DISTANCE_STEP + MARGIN_MILES))
        page.sort()
        return total, page[:wanted]
