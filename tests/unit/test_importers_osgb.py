"""British National Grid -> WGS84: usable grid references, vectorised conversion, batching."""

from __future__ import annotations

import math
from array import array

import pytest

from schooldata.adapters.importers.osgb import (
    convert,
    convert_all,
    grid_point,
    locate_in_batches,
    to_wgs84,
)
from schooldata.domain.geo import Location, distance_miles

METRES_PER_MILE = 1609.344
# SW1A 1AA (Buckingham Palace): Code-Point grid reference and its published WGS84 position.
PALACE_GRID = (529090.0, 179645.0)
PALACE = Location(51.50101, -0.14156)


def metres(a: Location, b: Location) -> float:
    return distance_miles(a, b) * METRES_PER_MILE


@pytest.mark.parametrize(
    ("easting", "northing"),
    [
        (None, None),
        ("", ""),
        ("0", "0"),
        ("529090", ""),
        ("abc", "1"),
        ("-5", "100"),
        ("800000", "100"),
        ("100", "1400000"),
        ("nan", "5"),
        ("inf", "5"),
    ],
)
def test_unusable_grid_references_are_none_never_zero(
    easting: str | None, northing: str | None
) -> None:
    assert grid_point(easting, northing) is None


def test_a_grid_reference_parses() -> None:
    assert grid_point("529090", " 179645 ") == PALACE_GRID


def test_converts_within_a_few_metres_of_the_published_position() -> None:
    (location,) = to_wgs84([PALACE_GRID])
    assert location is not None
    assert metres(location, PALACE) < 50


def test_a_point_proj_cannot_convert_is_none_and_its_neighbours_are_kept() -> None:
    eastings = array("d", [PALACE_GRID[0], math.inf])
    northings = array("d", [PALACE_GRID[1], 1.0])
    first, second = convert(eastings, northings)
    assert first is not None
    assert second is None
    assert convert_all(eastings, northings) is None


def test_nothing_to_convert() -> None:
    assert convert(array("d"), array("d")) == []
    assert convert_all(array("d"), array("d")) == []


@pytest.mark.parametrize("batch_size", [1, 2, 3, 1000])
def test_batches_keep_order_and_missing_points(batch_size: int) -> None:
    items = [("a", PALACE_GRID), ("b", None), ("c", (394235.0, 806529.0)), ("d", None)]
    out = list(locate_in_batches(items, batch_size))
    assert [key for key, _ in out] == ["a", "b", "c", "d"]
    assert [loc is None for _, loc in out] == [False, True, False, True]
    aberdeen = out[2][1]
    assert aberdeen is not None
    assert 57.1 < aberdeen.latitude < 57.2


def test_batching_is_lazy() -> None:
    consumed = []

    def items() -> object:
        for key in "abcdef":
            consumed.append(key)
            yield key, PALACE_GRID

    batches = locate_in_batches(items(), 2)  # type: ignore[arg-type]
    next(batches)
    assert consumed == ["a", "b"]
