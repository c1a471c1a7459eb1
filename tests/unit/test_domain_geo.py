"""Great-circle distance in miles and the bounding-box prefilter."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.domain.geo import (
    EARTH_RADIUS_MILES,
    MILES_PER_DEGREE_LATITUDE,
    BoundingBox,
    Location,
    bounding_box,
    distance_miles,
)

LONDON = Location(51.5074, -0.1278)
BIRMINGHAM = Location(52.4862, -1.8904)

LATITUDES = st.floats(min_value=-80, max_value=80, allow_nan=False)
LONGITUDES = st.floats(min_value=-170, max_value=170, allow_nan=False)
LOCATIONS = st.builds(Location, LATITUDES, LONGITUDES)
RADII = st.floats(min_value=0.1, max_value=100, allow_nan=False)


def destination(origin: Location, bearing_degrees: float, miles: float) -> Location:
    """The point `miles` from `origin` along the initial bearing (spherical formula)."""
    delta = miles / EARTH_RADIUS_MILES
    theta = math.radians(bearing_degrees)
    phi1 = math.radians(origin.latitude)
    lambda1 = math.radians(origin.longitude)
    phi2 = math.asin(
        math.sin(phi1) * math.cos(delta) + math.cos(phi1) * math.sin(delta) * math.cos(theta)
    )
    lambda2 = lambda1 + math.atan2(
        math.sin(theta) * math.sin(delta) * math.cos(phi1),
        math.cos(delta) - math.sin(phi1) * math.sin(phi2),
    )
    return Location(math.degrees(phi2), math.degrees(lambda2))


def test_london_to_birmingham_is_about_101_miles() -> None:
    assert distance_miles(LONDON, BIRMINGHAM) == pytest.approx(101, abs=2)


def test_one_degree_of_latitude_is_about_69_miles() -> None:
    assert distance_miles(Location(51.0, -1.0), Location(52.0, -1.0)) == pytest.approx(
        69.1, abs=0.2
    )


@settings(max_examples=50)
@given(LOCATIONS, LOCATIONS)
def test_distance_is_symmetric_and_never_negative(a: Location, b: Location) -> None:
    there = distance_miles(a, b)
    back = distance_miles(b, a)
    assert there >= 0
    assert there == pytest.approx(back, abs=1e-9)


@settings(max_examples=60)
@given(LOCATIONS)
def test_distance_from_a_point_to_itself_is_zero(a: Location) -> None:
    assert distance_miles(a, a) == 0


@settings(max_examples=60)
@given(LOCATIONS, LOCATIONS, LOCATIONS)
def test_distance_obeys_the_triangle_inequality(a: Location, b: Location, c: Location) -> None:
    assert distance_miles(a, c) <= distance_miles(a, b) + distance_miles(b, c) + 1e-6


@settings(max_examples=50)
@given(
    centre=LOCATIONS,
    radius=RADII,
    bearing=st.floats(min_value=0, max_value=360, allow_nan=False),
    fraction=st.floats(min_value=0, max_value=1, allow_nan=False),
)
def test_bounding_box_contains_every_point_within_the_radius(
    centre: Location, radius: float, bearing: float, fraction: float
) -> None:
    point = destination(centre, bearing, radius * fraction)
    assert distance_miles(centre, point) <= radius * (1 + 1e-9) + 1e-9
    assert holds(bounding_box(centre, radius), point)


@settings(max_examples=50)
@given(
    centre=LOCATIONS,
    radius=RADII,
    bearing=st.sampled_from([0.0, 45.0, 90.0, 135.0, 180.0, 225.0, 270.0, 315.0]),
)
def test_bounding_box_contains_points_exactly_on_the_radius(
    centre: Location, radius: float, bearing: float
) -> None:
    assert holds(bounding_box(centre, radius), destination(centre, bearing, radius))


@settings(max_examples=50)
@given(centre=LOCATIONS, radius=RADII)
def test_bounding_box_excludes_points_well_beyond_the_radius_north_and_south(
    centre: Location, radius: float
) -> None:
    box = bounding_box(centre, radius)
    assert not holds(box, destination(centre, 0, radius * 1.5))
    assert not holds(box, destination(centre, 180, radius * 1.5))


def test_bounding_box_around_london_holds_birmingham_only_when_the_radius_reaches_it() -> None:
    assert holds(bounding_box(LONDON, 102), BIRMINGHAM)
    assert not holds(bounding_box(LONDON, 50), BIRMINGHAM)


def holds(box: BoundingBox, point: Location) -> bool:
    """Whether `point` lies inside `box`, edges included (as the SQL prefilter reads it)."""
    return (
        box.min_latitude <= point.latitude <= box.max_latitude
        and box.min_longitude <= point.longitude <= box.max_longitude
    )


def textbook_haversine(a: Location, b: Location) -> float:
    """The haversine with `math.radians`, interpreted (each sine squared as a product)."""
    lat1, lat2 = math.radians(a.latitude), math.radians(b.latitude)
    dlat = lat2 - lat1
    dlon = math.radians(b.longitude - a.longitude)
    half_dlat, half_dlon = math.sin(dlat / 2), math.sin(dlon / 2)
    h = half_dlat * half_dlat + math.cos(lat1) * math.cos(lat2) * (half_dlon * half_dlon)
    return 2 * EARTH_RADIUS_MILES * math.asin(min(1.0, math.sqrt(h)))


def textbook_box(centre: Location, radius: float) -> BoundingBox:
    dlat = radius / MILES_PER_DEGREE_LATITUDE * 1.01
    cos_lat = max(math.cos(math.radians(min(89.0, abs(centre.latitude) + dlat))), 1e-6)
    dlon = min(180.0, dlat / cos_lat)
    return BoundingBox(
        centre.latitude - dlat,
        centre.latitude + dlat,
        centre.longitude - dlon,
        centre.longitude + dlon,
    )


@settings(max_examples=300)
@given(LOCATIONS, LOCATIONS)
def test_the_distance_is_the_textbook_haversine_to_the_last_bit(a: Location, b: Location) -> None:
    assert distance_miles(a, b) == textbook_haversine(a, b)


@settings(max_examples=200)
@given(centre=LOCATIONS, radius=RADII)
def test_the_bounding_box_is_the_textbook_box_to_the_last_bit(
    centre: Location, radius: float
) -> None:
    assert bounding_box(centre, radius) == textbook_box(centre, radius)
