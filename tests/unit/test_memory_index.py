"""The in-memory index answers exactly as the plain evaluator over every school."""

from __future__ import annotations

import bisect
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.support.dataset import SCHOOLS

from schooldata.adapters.memory import proximity, relevance
from schooldata.adapters.memory.index import SchoolIndex
from schooldata.domain.geo import Location, distance_miles, shown_distance
from schooldata.domain.phase import GiasPhase, Phase
from schooldata.domain.school import School
from schooldata.domain.search import Proximity, SchoolQuery, SortOrder, TextQuery, evaluate
from schooldata.domain.urn import Urn

INDEX = SchoolIndex(s for s in SCHOOLS if s.status in ("Open", "Open, but proposed to close"))
ALL = INDEX.ordered

origins = st.builds(
    Location,
    latitude=st.floats(min_value=51.3, max_value=52.7),
    longitude=st.floats(min_value=-2.1, max_value=0.1),
)
queries = st.builds(
    SchoolQuery,
    text=st.one_of(
        st.none(),
        st.sampled_from(["st mary", "school", "westminster", "academy", "zz"]).map(TextQuery.parse),
    ),
    near=st.one_of(
        st.none(),
        st.builds(
            Proximity, origins, st.one_of(st.none(), st.floats(min_value=0.1, max_value=100))
        ),
    ),
    phases=st.one_of(
        st.just(frozenset()), st.sampled_from(list(Phase)).map(lambda p: frozenset({p}))
    ),
    sort=st.one_of(st.none(), st.sampled_from([SortOrder.NAME, SortOrder.URN, SortOrder.SCORE])),
    offset=st.integers(min_value=0, max_value=12),
    limit=st.integers(min_value=1, max_value=25),
)


@settings(max_examples=300, deadline=None)
@given(queries)
def test_the_index_gives_the_same_page_as_evaluating_every_school(query: SchoolQuery) -> None:
    assert INDEX.answer(query) == evaluate(query, ALL)


def _crowded_school(urn: int, location: Location) -> School:
    return School(
        urn=Urn(urn),
        name=f"School {urn}",
        la_code="201",
        la_name="City of London",
        gias_phase=GiasPhase.PRIMARY,
        type_name="Academy converter",
        location=location,
    )


# Schools a few metres apart around one spot (1e-6 degrees of latitude is ~11 cm), so many
# distances share their four shown decimals: there the order falls back to URN order.
crowds = st.lists(
    st.tuples(
        st.integers(min_value=100_000, max_value=999_999),
        st.floats(min_value=-0.0004, max_value=0.0004),
        st.floats(min_value=-0.0004, max_value=0.0004),
    ),
    min_size=1,
    max_size=60,
    unique_by=lambda t: t[0],
)


@settings(max_examples=200, deadline=None)
@given(crowds, st.integers(min_value=0, max_value=10), st.integers(min_value=1, max_value=25))
def test_nearest_first_compares_shown_distances_then_urns(
    crowd: list[tuple[int, float, float]], offset: int, limit: int
) -> None:
    schools = [_crowded_school(u, Location(51.5 + dy, -0.1 + dx)) for u, dy, dx in crowd]
    index = SchoolIndex(schools)
    origin = Location(51.5 + 0.015, -0.1)  # about a mile north of the crowd
    query = SchoolQuery(near=Proximity(origin), offset=offset, limit=limit)
    page = index.answer(query)
    assert page == evaluate(query, index.ordered)
    keys = [(shown_distance(h.distance_miles or 0.0), h.school.urn.value) for h in page.hits]
    assert keys == sorted(keys)


@settings(max_examples=200, deadline=None)
@given(
    crowd=crowds,
    offset=st.integers(min_value=0, max_value=10),
    limit=st.integers(min_value=1, max_value=25),
    radius=st.floats(min_value=1.0, max_value=1.1),
)
def test_radius_pages_over_crowds_break_shown_ties_by_urn_as_the_domain_does(
    crowd: list[tuple[int, float, float]], offset: int, limit: int, radius: float
) -> None:
    """The strips rank only schools that can still enter a full page: with many shown
    distances tied at the page's last entry, the page is still the domain's."""
    schools = [_crowded_school(u, Location(51.5 + dy, -0.1 + dx)) for u, dy, dx in crowd]
    index = SchoolIndex(schools)
    origin = Location(51.5 + 0.015, -0.1)  # about a mile north of the crowd
    query = SchoolQuery(near=Proximity(origin, radius), offset=offset, limit=limit)
    assert index.answer(query) == evaluate(query, index.ordered)


def test_a_tie_with_the_full_page_found_later_still_enters_it_by_urn() -> None:
    """Two spots the same distance west and east of the origin: whichever spot's schools
    fill the page first, the east spot's, shown at the same distance with smaller URNs,
    take their places."""
    origin = Location(51.51, -0.1)
    west = [_crowded_school(900_001 + n, Location(51.51, -0.105)) for n in range(5)]
    east = [_crowded_school(100_001 + n, Location(51.51, -0.095)) for n in range(5)]
    index = SchoolIndex(west + east)
    query = SchoolQuery(near=Proximity(origin, 2.0), limit=5)
    page = index.answer(query)
    assert page == evaluate(query, index.ordered)
    assert [h.school.urn.value for h in page.hits] == [100_001 + n for n in range(5)]


# ---- radius questions over a dense area, where strips, boundaries and ties matter ----------

DENSE = [
    School(
        urn=Urn(200_000 + n),
        name=f"Dense {n}",
        la_code="202",
        la_name="Camden",
        gias_phase=(GiasPhase.PRIMARY, GiasPhase.SECONDARY, None)[n % 3],
        type_name="Community school",
        location=None
        if n % 97 == 0
        else Location(51.50 + (n * 7919 % 1000) / 10_000, -0.20 + (n * 104_729 % 1000) / 5_000),
    )
    for n in range(1, 1_500)
]
DENSE_INDEX = SchoolIndex(DENSE)
dense_origins = st.builds(
    Location,
    latitude=st.floats(min_value=51.49, max_value=51.61),
    longitude=st.floats(min_value=-0.21, max_value=0.01),
)


@settings(max_examples=300, deadline=None)
@given(
    origin=dense_origins,
    radius=st.floats(min_value=0.1, max_value=6),
    phases=st.one_of(st.just(frozenset()), st.just(frozenset({Phase.PRIMARY}))),
    sort=st.sampled_from([None, SortOrder.DISTANCE, SortOrder.NAME, SortOrder.URN]),
    offset=st.integers(min_value=0, max_value=40),
    limit=st.integers(min_value=1, max_value=25),
)
def test_radius_questions_from_the_strips_equal_evaluating_every_school(
    origin: Location,
    radius: float,
    phases: frozenset[Phase],
    sort: SortOrder | None,
    offset: int,
    limit: int,
) -> None:
    query = SchoolQuery(
        near=Proximity(origin, radius), phases=phases, sort=sort, offset=offset, limit=limit
    )
    assert DENSE_INDEX.answer(query) == evaluate(query, DENSE_INDEX.ordered)


@settings(max_examples=300, deadline=None)
@given(
    origin=dense_origins,
    school=st.sampled_from([s for s in DENSE if s.location is not None]),
    ulps=st.integers(min_value=-3, max_value=3),
    phases=st.one_of(st.just(frozenset()), st.just(frozenset({Phase.PRIMARY}))),
    limit=st.integers(min_value=1, max_value=25),
)
def test_a_radius_within_ulps_of_a_schools_distance_counts_it_as_the_domain_does(
    origin: Location, school: School, ulps: int, phases: frozenset[Phase], limit: int
) -> None:
    """Where a school's chord and the radius's nearly agree the haversine decides: the total
    and the page are the domain's whether the radius is just short of, at or past it."""
    assert school.location is not None
    radius = distance_miles(origin, school.location)
    for _ in range(abs(ulps)):
        radius = math.nextafter(radius, math.inf if ulps > 0 else 0.0)
    query = SchoolQuery(near=Proximity(origin, radius), phases=phases, limit=limit)
    assert DENSE_INDEX.answer(query) == evaluate(query, DENSE_INDEX.ordered)


def test_a_school_exactly_on_the_radius_is_within_it_on_the_strips_as_in_the_domain() -> None:
    origin = Location(51.55, -0.1)
    edge = next(s for s in DENSE if s.location is not None)
    assert edge.location is not None
    radius = distance_miles(origin, edge.location)
    query = SchoolQuery(near=Proximity(origin, radius), limit=25)
    answer = DENSE_INDEX.answer(query)
    assert answer == evaluate(query, DENSE_INDEX.ordered)
    assert edge.urn in {h.school.urn for h in evaluate(query, DENSE_INDEX.ordered).hits} or (
        answer.total > 25
    )


_WORDS = ["st", "mary", "marys", "marylebone", "school", "sch", "academy", "oak", "oaks", "c"]


def _named_school(urn: int, words: list[str], authority: str) -> School:
    return School(
        urn=Urn(urn),
        name=" ".join(words),
        la_code="201",
        la_name=authority,
        gias_phase=GiasPhase.PRIMARY,
        type_name="Academy converter",
    )


# Many names built from a few words that prefix one another, so whole-name, name-start, phrase
# and per-token relevance classes all occur and tie.
named_schools = st.lists(
    st.tuples(
        st.integers(min_value=100_000, max_value=999_999),
        st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4),
        st.sampled_from(["Westminster", "Oakham", "St Albans"]),
    ),
    min_size=1,
    max_size=80,
    unique_by=lambda t: t[0],
)
texts = (
    st.lists(
        st.sampled_from([*_WORDS, "m", "ma", "o", "s", "west", "academ"]), min_size=1, max_size=3
    )
    .map(" ".join)
    .filter(lambda text: len(text) >= 2)
    .map(TextQuery.parse)
)


@pytest.mark.parametrize(
    "one_by_one",
    [relevance.SCORED_ONE_BY_ONE, 0, 1_000],
    ids=["as shipped", "every page by set operations", "every match scored one by one"],
)
@settings(max_examples=300, deadline=None)
@given(
    named_schools,
    texts,
    st.integers(min_value=0, max_value=30),
    st.integers(min_value=1, max_value=40),
)
def test_relevance_pages_over_colliding_names_equal_evaluating_every_school(
    one_by_one: int,
    listed: list[tuple[int, list[str], str]],
    text: TextQuery,
    offset: int,
    limit: int,
) -> None:
    """A few matches are scored one by one, many split by set operations: each way alone
    gives the evaluator's page for any number of matches."""
    schools = [_named_school(urn, words, authority) for urn, words, authority in listed]
    query = SchoolQuery(text=text, offset=offset, limit=limit)
    kept = relevance.SCORED_ONE_BY_ONE
    relevance.SCORED_ONE_BY_ONE = one_by_one
    try:
        assert SchoolIndex(schools).answer(query) == evaluate(query, schools)
    finally:
        relevance.SCORED_ONE_BY_ONE = kept


def test_postings_and_orders_hold_the_schools_own_urn_values_not_copies() -> None:
    """Compiled, an int passed through an `int` variable is stored as a new object: one copy per
    posting would cost ~20 MB at national scale (docs/performance.md)."""
    index = SchoolIndex(SCHOOLS)
    own = {id(s.urn.value) for s in index.ordered}
    held = [v for values in index._every._postings.values() for v in values]
    held += [v for order in index._orders.values() for v in order]
    assert held
    assert all(id(v) in own for v in held)


def test_proximity_strips_hold_their_places_in_order_of_longitude() -> None:
    """Each place is its school's location and holds its school's URN; a strip's places run
    west to east (what its bisections read)."""
    strips = [s for s in SchoolIndex(SCHOOLS)._near._strips if s]
    assert strips
    for places in strips:
        longitudes = [p.longitude for p in places]
        assert longitudes == sorted(longitudes)
        for place in places:
            assert place.urn == place.school.urn.value
            where = place.school.location
            assert where is not None
            assert (place.longitude, place.latitude) == (
                where.longitude,
                math.radians(where.latitude),
            )


sorted_floats = st.lists(
    st.sampled_from([-3.5, -1.25, -1.0, 0.0, 0.5, 1.0, 2.75]) | st.floats(-10, 10), max_size=40
).map(sorted)


def _places_at(longitudes: list[float]) -> list[proximity._Place]:
    return [
        proximity._Place(_crowded_school(100_000 + i, Location(51.5, x)), Location(51.5, x), i)
        for i, x in enumerate(longitudes)
    ]


@given(sorted_floats, st.floats(-12, 12) | st.sampled_from([-1.0, 0.0, 1.0]))
def test_the_strips_searches_find_what_the_bisect_module_finds(
    values: list[float], x: float
) -> None:
    places = _places_at(values)
    assert proximity._first_at_or_east(places, x) == bisect.bisect_left(values, x)
    for low in range(bisect.bisect_left(values, x) + 1):
        assert proximity._first_east_of(places, x, low) == bisect.bisect_right(values, x, low)


@settings(max_examples=100, deadline=None)
@given(
    latitude=st.floats(min_value=40.0, max_value=70.0),
    longitude=st.floats(min_value=-8.0, max_value=2.0),
    radius=st.floats(min_value=0.1, max_value=100),
)
def test_circles_reaching_past_the_first_or_last_strip_find_what_the_domain_finds(
    latitude: float, longitude: float, radius: float
) -> None:
    """Origins south and north of every school, and circles wider than the strips span."""
    query = SchoolQuery(near=Proximity(Location(latitude, longitude), radius), limit=25)
    assert DENSE_INDEX.answer(query) == evaluate(query, DENSE_INDEX.ordered)
