"""Public search use case: validation order, errors, and answers over the in-memory store."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.adapters.memory.store import InMemoryStore
from schooldata.application.search_schools import (
    PublicSearchRequest,
    SearchSchools,
)
from schooldata.domain.errors import InvalidParameter, MissingSearchInput, UnknownPostcode
from schooldata.domain.geo import Location, distance_miles
from schooldata.domain.phase import GiasPhase, Phase
from schooldata.domain.school import School
from schooldata.domain.search import Proximity, SchoolQuery, TextQuery, evaluate
from schooldata.domain.urn import Urn

WESTMINSTER = Location(51.5010, -0.1416)
WHITEHALL = Location(51.5034, -0.1276)
CAMDEN = Location(51.5390, -0.1426)
HACKNEY = Location(51.5450, -0.0553)
BIRMINGHAM = Location(52.4862, -1.8904)

POSTCODES = [
    ("SW1A1AA", WESTMINSTER),
    ("SW1A2AA", WHITEHALL),
    ("NW15LR", CAMDEN),
    ("E83RL", HACKNEY),
    ("B11BB", BIRMINGHAM),
]


def school(
    urn: int, name: str, phase: GiasPhase | None, at: Location | None, **kw: object
) -> School:
    return School(urn=Urn(urn), name=name, gias_phase=phase, location=at, la_name="Testshire", **kw)  # type: ignore[arg-type]


P, S = GiasPhase.PRIMARY, GiasPhase.SECONDARY
SCHOOLS = [
    school(100001, "Abbey Primary School", P, Location(51.5020, -0.1400)),
    school(100002, "Abbey Secondary School", S, Location(51.5100, -0.1300)),
    school(100003, "Camden Oak Primary", P, Location(51.5395, -0.1430)),
    school(100004, "Hackney Downs School", S, Location(51.5460, -0.0560)),
    school(100005, "Birmingham Abbey Academy", S, Location(52.4870, -1.8900)),
    school(100006, "Abbey Nursery", GiasPhase.NURSERY, Location(51.5000, -0.1500)),
    school(100007, "Abbey Lost Location School", P, None),
    school(100008, "Abbey Closed School", P, Location(51.5011, -0.1417), status="Closed"),
    school(
        100009,
        "Abbey Closing School",
        P,
        Location(51.5012, -0.1418),
        status="Open, but proposed to close",
    ),
    *[
        school(100100 + i, f"Abbey Grove {i} Primary", P, Location(51.50 + i / 200, -0.14))
        for i in range(14)
    ],
]


@pytest.fixture(scope="module")
def store() -> InMemoryStore:
    data = InMemoryStore(SCHOOLS)
    with data.transaction() as tx:
        tx.replace_postcodes(postcodes=POSTCODES, source="codepoint_open")
    return data


@pytest.fixture(scope="module")
def search(store: InMemoryStore) -> SearchSchools:
    return SearchSchools(schools=store, postcodes=store)


def run(search: SearchSchools, **kwargs: object) -> list[int]:
    answer = search.execute(PublicSearchRequest(**kwargs))  # type: ignore[arg-type]
    return [hit.school.urn.value for hit in answer.page.hits]


# ---------------------------------------------------------------------------- validation


def test_neither_query_nor_postcode_is_missing_search_input(search: SearchSchools) -> None:
    with pytest.raises(MissingSearchInput) as caught:
        search.execute(PublicSearchRequest(phase="primary", limit=5))
    assert caught.value.code == "invalid_parameter"


@pytest.mark.parametrize("query", ["", "a", " "])
def test_a_query_under_two_characters_is_rejected(search: SearchSchools, query: str) -> None:
    with pytest.raises(InvalidParameter) as caught:
        search.execute(PublicSearchRequest(query=query))
    assert caught.value.parameter == "query"


def test_a_two_character_query_is_accepted(search: SearchSchools) -> None:
    search.execute(PublicSearchRequest(query="ab"))


def test_the_query_is_checked_before_the_phase(search: SearchSchools) -> None:
    with pytest.raises(InvalidParameter) as caught:
        search.execute(PublicSearchRequest(query="a", phase="college"))
    assert caught.value.parameter == "query"


def test_the_postcode_shape_is_checked_before_the_phase(search: SearchSchools) -> None:
    with pytest.raises(InvalidParameter) as caught:
        search.execute(PublicSearchRequest(postcode="!!", phase="college"))
    assert caught.value.parameter == "postcode"
    assert not isinstance(caught.value, UnknownPostcode)


@pytest.mark.parametrize("phase", ["college", "sixth-form", "16 plus", ""])
def test_a_phase_outside_the_five_values_is_rejected(search: SearchSchools, phase: str) -> None:
    with pytest.raises(InvalidParameter) as caught:
        search.execute(PublicSearchRequest(query="abbey", phase=phase))
    assert caught.value.parameter == "phase"


@pytest.mark.parametrize("radius", [0.09, 100.01, 0.0, -1.0])
def test_a_radius_outside_0_1_to_100_is_rejected(search: SearchSchools, radius: float) -> None:
    with pytest.raises(InvalidParameter) as caught:
        search.execute(PublicSearchRequest(postcode="SW1A 1AA", radius_miles=radius))
    assert caught.value.parameter == "radius_miles"


@pytest.mark.parametrize("radius", [0.1, 100.0])
def test_radius_bounds_0_1_and_100_are_accepted(search: SearchSchools, radius: float) -> None:
    answer = search.execute(PublicSearchRequest(postcode="SW1A 1AA", radius_miles=radius))
    assert answer.request.radius_miles == radius


@pytest.mark.parametrize("limit", [0, 26, -1])
def test_a_limit_outside_1_to_25_is_rejected(search: SearchSchools, limit: int) -> None:
    with pytest.raises(InvalidParameter) as caught:
        search.execute(PublicSearchRequest(query="abbey", limit=limit))
    assert caught.value.parameter == "limit"


@pytest.mark.parametrize("limit", [1, 25])
def test_limit_bounds_1_and_25_are_accepted(search: SearchSchools, limit: int) -> None:
    answer = search.execute(PublicSearchRequest(query="abbey", limit=limit))
    assert answer.limit == limit
    assert len(answer.page.hits) == min(limit, answer.page.total)


def test_the_limit_defaults_to_10_and_the_total_counts_every_match(search: SearchSchools) -> None:
    answer = search.execute(PublicSearchRequest(query="abbey"))
    assert answer.limit == 10
    assert len(answer.page.hits) == 10
    assert answer.page.total > 10


def test_an_unknown_postcode_is_reported_as_unknown(search: SearchSchools) -> None:
    with pytest.raises(UnknownPostcode) as caught:
        search.execute(PublicSearchRequest(postcode="ZZ9 9ZZ"))
    assert caught.value.code == "unknown_postcode"
    assert caught.value.parameter == "postcode"


def test_an_unknown_outward_code_is_reported_as_unknown(search: SearchSchools) -> None:
    with pytest.raises(UnknownPostcode):
        search.execute(PublicSearchRequest(postcode="ZZ9"))


def test_parameters_are_validated_before_the_postcode_is_looked_up(search: SearchSchools) -> None:
    with pytest.raises(InvalidParameter) as caught:
        search.execute(PublicSearchRequest(postcode="ZZ9 9ZZ", radius_miles=500.0))
    assert caught.value.parameter == "radius_miles"


# ---------------------------------------------------------------------------- answers


def test_a_postcode_search_is_nearest_first_with_distances(search: SearchSchools) -> None:
    answer = search.execute(PublicSearchRequest(postcode="SW1A 1AA", limit=25))
    assert answer.with_distance
    distances = [hit.distance_miles for hit in answer.page.hits]
    assert all(d is not None for d in distances)
    assert distances == sorted(distances)  # type: ignore[type-var]
    assert answer.page.hits[0].school.urn == Urn(100009)


def test_postcode_case_and_spacing_do_not_change_the_answer(search: SearchSchools) -> None:
    assert run(search, postcode=" sw1a1aa ", limit=25) == run(search, postcode="SW1A 1AA", limit=25)


def test_an_outward_code_searches_from_the_centroid_of_its_postcodes(
    search: SearchSchools,
) -> None:
    answer = search.execute(PublicSearchRequest(postcode="SW1A", limit=1))
    centroid = Location(
        (WESTMINSTER.latitude + WHITEHALL.latitude) / 2,
        (WESTMINSTER.longitude + WHITEHALL.longitude) / 2,
    )
    hit = answer.page.hits[0]
    assert hit.school.location is not None
    assert hit.distance_miles == pytest.approx(distance_miles(centroid, hit.school.location))


def test_the_radius_bounds_the_distance(search: SearchSchools) -> None:
    answer = search.execute(PublicSearchRequest(postcode="B1 1BB", radius_miles=1.0))
    assert [h.school.urn.value for h in answer.page.hits] == [100005]
    assert answer.page.total == 1


def test_schools_without_a_location_never_answer_a_postcode_search(search: SearchSchools) -> None:
    assert 100007 not in run(search, query="abbey", postcode="SW1A 1AA", limit=25)
    assert 100007 in run(search, query="abbey lost", limit=25)


def test_closed_schools_are_never_found(search: SearchSchools) -> None:
    assert run(search, query="abbey closed") == []
    assert run(search, query="abbey closing") == [100009]


def test_the_phase_filter_applies_to_search(search: SearchSchools) -> None:
    answer = search.execute(PublicSearchRequest(query="abbey", phase="Secondary", limit=25))
    assert {h.school.urn.value for h in answer.page.hits} == {100002, 100005}
    assert all(h.school.phase is Phase.SECONDARY for h in answer.page.hits)


def test_a_text_only_search_has_no_distances(search: SearchSchools) -> None:
    answer = search.execute(PublicSearchRequest(query="camden"))
    assert not answer.with_distance
    assert all(h.distance_miles is None for h in answer.page.hits)


@settings(max_examples=40, deadline=None)
@given(
    query=st.sampled_from([None, "abbey", "abbey primary", "grove 1", "school", "ab"]),
    origin=st.sampled_from([None, WESTMINSTER, CAMDEN, BIRMINGHAM]),
    radius=st.sampled_from([None, 0.5, 2.0, 50.0]),
    phase=st.sampled_from([None, Phase.PRIMARY, Phase.SECONDARY]),
)
def test_the_in_memory_store_answers_exactly_like_the_pure_evaluator(
    store: InMemoryStore,
    query: str | None,
    origin: Location | None,
    radius: float | None,
    phase: Phase | None,
) -> None:
    question = SchoolQuery(
        text=TextQuery.parse(query) if query else None,
        near=Proximity(origin, radius) if origin else None,
        phases=frozenset({phase}) if phase else frozenset(),
        limit=100,
    )
    served = [s for s in SCHOOLS if s.status != "Closed"]
    assert store.search(query=question) == evaluate(question, served)


# ---------------------------------------------------------------------------- text parameters


@pytest.mark.parametrize(
    ("raw", "value"), [("10", 10), (" 7 ", 7), ("+3", 3), ("-2", -2), (None, None)]
)
def test_integer_text_parses(raw: str | None, value: int | None) -> None:
    assert PublicSearchRequest.from_params({"query": "st", "limit": raw}).limit == value


@pytest.mark.parametrize("raw", ["", "1.5", "ten", "١٢", "1e3", "-", "+"])
def test_non_integer_text_is_an_invalid_parameter(raw: str) -> None:
    with pytest.raises(InvalidParameter) as caught:
        PublicSearchRequest.from_params({"limit": raw})
    assert caught.value.parameter == "limit"


@pytest.mark.parametrize("raw", ["+-3", "--3", "++3"])
def test_an_integer_with_repeated_signs_is_an_invalid_parameter(raw: str) -> None:
    with pytest.raises(InvalidParameter):
        PublicSearchRequest.from_params({"limit": raw})


@pytest.mark.parametrize(("raw", "value"), [("0.5", 0.5), (" 2 ", 2.0), ("1e1", 10.0)])
def test_number_text_parses(raw: str, value: float) -> None:
    assert PublicSearchRequest.from_params({"radius_miles": raw}).radius_miles == value


@pytest.mark.parametrize("raw", ["", "far", "nan", "inf", "-inf", "1e999", "1_0", "\uff11"])
def test_non_finite_or_non_numeric_text_is_an_invalid_parameter(raw: str) -> None:
    with pytest.raises(InvalidParameter) as caught:
        PublicSearchRequest.from_params({"radius_miles": raw})
    assert caught.value.parameter == "radius_miles"


@pytest.mark.parametrize(
    "question",
    [
        {"query": "abbey"},
        {"query": "school", "phase": "secondary"},
        {"postcode": "SW1A 1AA"},
        {"postcode": "SW1A", "radius_miles": 3.0},
        {"query": "abbey", "postcode": "B11BB"},
        {"query": "zzzz"},
    ],
)
@pytest.mark.parametrize("batch", [1, 2, 1000])
def test_every_match_is_the_public_answer_not_cut_at_its_limit(
    search: SearchSchools, question: dict[str, object], batch: int
) -> None:
    answer = search.execute(PublicSearchRequest(**question, limit=25))  # type: ignore[arg-type]
    every = list(search.every(PublicSearchRequest(**question), batch=batch))  # type: ignore[arg-type]
    assert every == list(answer.page.hits)  # the same hits, distances and order
    assert len(every) == answer.page.total
    limited = search.execute(PublicSearchRequest(**question, limit=2))  # type: ignore[arg-type]
    assert every[:2] == list(limited.page.hits)


def test_every_match_checks_the_question_as_the_search_does(search: SearchSchools) -> None:
    with pytest.raises(UnknownPostcode):
        list(search.every(PublicSearchRequest(postcode="ZZ99 9ZZ")))
