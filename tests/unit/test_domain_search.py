"""The search evaluator: which schools answer a question, and in what order."""

from __future__ import annotations

import math

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.domain.errors import InvalidParameter, MissingSearchInput
from schooldata.domain.geo import Location, distance_miles
from schooldata.domain.phase import GiasPhase, Phase
from schooldata.domain.school import School
from schooldata.domain.search import (
    Proximity,
    SchoolQuery,
    SortOrder,
    TextQuery,
    evaluate,
    holds_phrase,
    require_some_input,
    validate_limit,
    validate_radius,
)
from schooldata.domain.text import tokens
from schooldata.domain.urn import Urn

WESTMINSTER = Location(51.5010, -0.1416)
CAMDEN = Location(51.5390, -0.1426)
HACKNEY = Location(51.5450, -0.0553)
CROYDON = Location(51.3762, -0.0982)
BIRMINGHAM = Location(52.4862, -1.8904)
MANCHESTER = Location(53.4808, -2.2426)
LEEDS = Location(53.8008, -1.5491)


def _school(
    urn: int,
    name: str,
    la: str | None,
    type_name: str | None,
    phase: GiasPhase | None,
    location: Location | None,
) -> School:
    return School(
        urn=Urn(urn),
        name=name,
        la_name=la,
        type_name=type_name,
        gias_phase=phase,
        location=location,
    )


def _near(base: Location, dlat: float, dlon: float) -> Location:
    return Location(base.latitude + dlat, base.longitude + dlon)


P, S, N = GiasPhase.PRIMARY, GiasPhase.SECONDARY, GiasPhase.NURSERY

SCHOOLS: list[School] = [
    _school(
        100030, "Oak Primary School", "Camden", "Community school", P, _near(CAMDEN, 0.002, 0.001)
    ),
    _school(
        100002,
        "Oak Primary School Annexe",
        "Camden",
        "Community school",
        P,
        _near(CAMDEN, 0.01, 0.0),
    ),
    _school(100003, "Royal Oak Primary School", "Hackney", "Academy converter", P, HACKNEY),
    _school(
        100004,
        "St Mary’s Catholic Primary School",
        "Westminster",
        "Voluntary aided school",
        P,
        WESTMINSTER,
    ),
    _school(
        100005, "St. Mary's C of E School", "Croydon", "Voluntary controlled school", S, CROYDON
    ),
    _school(100006, "St Marys Academy", "Birmingham", "Academy sponsor led", S, BIRMINGHAM),
    _school(
        100007,
        "Holy Trinity Church of England Primary School",
        "Manchester",
        "Voluntary aided school",
        P,
        MANCHESTER,
    ),
    _school(
        100021,
        "Holy Trinity Church of England Primary School",
        "Leeds",
        "Voluntary aided school",
        P,
        LEEDS,
    ),
    _school(
        100009,
        "Holy Trinity Church of England Primary School",
        "Birmingham",
        "Voluntary aided school",
        P,
        _near(BIRMINGHAM, 0.03, 0.02),
    ),
    _school(
        100010,
        "Camden School for Girls",
        "Camden",
        "Voluntary aided school",
        S,
        _near(CAMDEN, -0.005, 0.004),
    ),
    _school(
        100011, "Hackney New School", "Hackney", "Free schools", S, _near(HACKNEY, 0.004, -0.002)
    ),
    _school(
        100012,
        "Westminster City School",
        "Westminster",
        "Voluntary aided school",
        S,
        _near(WESTMINSTER, 0.003, 0.01),
    ),
    _school(
        100013,
        "Little Acorns Nursery School",
        "Croydon",
        "Local authority nursery school",
        N,
        _near(CROYDON, 0.01, 0.01),
    ),
    _school(
        100014,
        "Birchwood Middle School",
        "Camden",
        "Community school",
        GiasPhase.MIDDLE_DEEMED_PRIMARY,
        _near(CAMDEN, 0.02, -0.01),
    ),
    _school(
        100015,
        "Ashfield Middle School",
        "Leeds",
        "Community school",
        GiasPhase.MIDDLE_DEEMED_SECONDARY,
        _near(LEEDS, -0.01, 0.02),
    ),
    _school(
        100016,
        "Manchester Sixth Form College",
        "Manchester",
        "Sixth form centres",
        GiasPhase.SIXTEEN_PLUS,
        _near(MANCHESTER, 0.01, 0.0),
    ),
    _school(
        100017,
        "Brook Special School",
        "Hackney",
        "Community special school",
        GiasPhase.NOT_APPLICABLE,
        _near(HACKNEY, -0.01, 0.01),
    ),
    _school(100018, "Oakwood Academy", "Croydon", "Academy converter", S, None),
    _school(100019, "Elm Tree Primary", "Camden", "Academy converter", P, None),
    _school(
        100020,
        "École Française de Londres",
        "Westminster",
        "Other independent school",
        GiasPhase.ALL_THROUGH,
        _near(WESTMINSTER, -0.004, -0.006),
    ),
    _school(
        100008,
        "Beech Hill Primary",
        "Birmingham",
        "Community school",
        P,
        _near(BIRMINGHAM, -0.02, 0.01),
    ),
    _school(
        100022, "Willow Park Academy", "Leeds", "Academy converter", S, _near(LEEDS, 0.02, 0.02)
    ),
    _school(
        100023,
        "Maple Grove Primary",
        "Manchester",
        "Foundation school",
        P,
        _near(MANCHESTER, -0.02, -0.03),
    ),
    _school(
        100024,
        "Cedar Secondary School",
        "Hackney",
        "Foundation school",
        S,
        _near(HACKNEY, 0.02, 0.03),
    ),
    _school(
        100025,
        "Pine Infant School",
        "Westminster",
        "Community school",
        P,
        _near(WESTMINSTER, 0.01, -0.01),
    ),
    _school(
        100026,
        "Rowan All-Through School",
        "Croydon",
        "Academy converter",
        GiasPhase.ALL_THROUGH,
        _near(CROYDON, -0.02, 0.0),
    ),
    _school(100027, "Hazel Nursery", "Leeds", "Local authority nursery school", N, None),
    _school(100028, "Sycamore Primary", None, None, P, _near(LEEDS, 0.05, -0.05)),
    _school(
        100029,
        "Camden Primary",
        "Westminster",
        "Community school",
        P,
        _near(WESTMINSTER, 0.02, 0.0),
    ),
    _school(
        100001, "Aspen High", "Birmingham", "Academy converter", None, _near(BIRMINGHAM, 0.05, 0.05)
    ),
]

VOCABULARY = sorted(
    {t for s in SCHOOLS for t in (*tokens(s.name), *tokens(s.la_name), *tokens(s.type_name))}
)
QUERY_WORDS = st.one_of(
    st.sampled_from(VOCABULARY).flatmap(
        lambda w: st.integers(min_value=1, max_value=len(w)).map(lambda n: w[:n])
    ),
    st.sampled_from(["zebra", "xyz", "qq"]),
)


def text_query(raw: str, **kwargs: object) -> SchoolQuery:
    kwargs.setdefault("limit", 100)
    return SchoolQuery(text=TextQuery.parse(raw), **kwargs)  # type: ignore[arg-type]


def urns(query: SchoolQuery) -> list[int]:
    return [hit.school.urn.value for hit in evaluate(query, SCHOOLS).hits]


def oracle_text_match(query_tokens: tuple[str, ...], school: School) -> bool:
    words = [*tokens(school.name), *tokens(school.la_name), *tokens(school.type_name)]
    return bool(query_tokens) and all(any(w.startswith(q) for w in words) for q in query_tokens)


# ---------------------------------------------------------------------------- text


@settings(max_examples=50)
@given(st.lists(QUERY_WORDS, min_size=1, max_size=3))
def test_every_query_token_must_prefix_match_the_name_authority_or_type(
    words: list[str],
) -> None:
    raw = " ".join(words)
    if len(raw.strip()) < 2:
        raw = raw + " " + raw
    query = text_query(raw)
    expected = {s.urn.value for s in SCHOOLS if oracle_text_match(query.text.tokens, s)}  # type: ignore[union-attr]
    page = evaluate(query, SCHOOLS)
    assert {h.school.urn.value for h in page.hits} == expected
    assert page.total == len(expected)


def test_a_token_that_matches_nothing_excludes_the_school() -> None:
    assert urns(text_query("oak zebra")) == []


def test_tokens_match_by_prefix_not_by_substring() -> None:
    assert 100018 in urns(text_query("oakw"))
    assert urns(text_query("akwood")) == []


def test_the_exact_name_ranks_first_even_with_a_higher_urn() -> None:
    found = urns(text_query("Oak Primary School"))
    assert found[0] == 100030
    assert set(found) >= {100002, 100003}


def test_a_name_starting_with_the_query_outranks_one_containing_it() -> None:
    found = urns(text_query("Oak Primary"))
    assert found.index(100002) < found.index(100003)


def test_name_matches_outrank_authority_matches() -> None:
    found = urns(text_query("Camden"))
    # Two schools are named Camden; the rest are only in Camden LA.
    assert set(found[:2]) == {100010, 100029}
    assert {100030, 100002, 100014, 100019} <= set(found[2:])


def test_equally_relevant_schools_are_ordered_by_urn() -> None:
    found = urns(text_query("Holy Trinity Church of England Primary School"))
    assert found == [100007, 100009, 100021]


def test_apostrophes_and_punctuation_do_not_matter_to_search() -> None:
    expected = {100004, 100005, 100006}
    for raw in ("St Mary’s", "St Mary's", "st marys", "ST. MARYS"):
        assert set(urns(text_query(raw))) == expected


def test_accents_do_not_matter_to_search() -> None:
    assert urns(text_query("ecole francaise")) == [100020]


def test_local_authority_and_type_words_match() -> None:
    assert set(urns(text_query("leeds"))) == {100021, 100015, 100022, 100027}
    assert 100016 in urns(text_query("sixth form"))


def test_a_query_of_only_punctuation_matches_nothing() -> None:
    assert evaluate(text_query("!!"), SCHOOLS).total == 0


# ---------------------------------------------------------------------------- proximity

ORIGINS = st.sampled_from([WESTMINSTER, CAMDEN, HACKNEY, CROYDON, BIRMINGHAM, MANCHESTER, LEEDS])


@settings(max_examples=60)
@given(
    origin=ORIGINS,
    radius=st.one_of(st.none(), st.floats(min_value=0.1, max_value=100, allow_nan=False)),
)
def test_proximity_sorts_nearest_first_and_respects_the_radius(
    origin: Location, radius: float | None
) -> None:
    query = SchoolQuery(near=Proximity(origin, radius), limit=100)
    page = evaluate(query, SCHOOLS)
    distances = [h.distance_miles for h in page.hits]
    assert all(d is not None for d in distances)
    assert distances == sorted(distances)  # type: ignore[type-var]
    expected = {
        s.urn.value
        for s in SCHOOLS
        if s.location is not None
        and (radius is None or distance_miles(origin, s.location) <= radius)
    }
    assert {h.school.urn.value for h in page.hits} == expected
    for hit in page.hits:
        assert hit.school.location is not None
        assert hit.distance_miles == pytest.approx(distance_miles(origin, hit.school.location))
        if radius is not None:
            assert hit.distance_miles <= radius  # type: ignore[operator]


def test_schools_without_a_location_never_match_a_proximity_query() -> None:
    no_location = {s.urn.value for s in SCHOOLS if s.location is None}
    assert no_location
    found = urns(SchoolQuery(near=Proximity(CROYDON, None), limit=100))
    assert not no_location & set(found)
    with_text = urns(text_query("oakwood", near=Proximity(CROYDON, None)))
    assert 100018 not in with_text


def test_a_small_radius_keeps_only_the_nearby_schools() -> None:
    found = urns(SchoolQuery(near=Proximity(BIRMINGHAM, 5.0), limit=100))
    assert set(found) == {100006, 100008, 100009, 100001}
    assert found[0] == 100006  # at the origin itself


def test_proximity_with_text_sorts_by_distance_by_default() -> None:
    query = text_query("holy trinity", near=Proximity(LEEDS, None))
    assert query.effective_sort is SortOrder.DISTANCE
    assert urns(query) == [100021, 100007, 100009]


# ---------------------------------------------------------------------------- filters


@pytest.mark.parametrize("phase", list(Phase))
def test_the_phase_filter_keeps_exactly_the_schools_of_that_phase(phase: Phase) -> None:
    found = urns(SchoolQuery(phases=frozenset({phase}), limit=100))
    assert set(found) == {s.urn.value for s in SCHOOLS if s.phase is phase}


def test_middle_deemed_primary_answers_a_primary_filter() -> None:
    assert 100014 in urns(SchoolQuery(phases=frozenset({Phase.PRIMARY}), limit=100))
    assert 100015 not in urns(SchoolQuery(phases=frozenset({Phase.PRIMARY}), limit=100))


def test_a_school_without_a_phase_matches_no_phase_filter() -> None:
    every_phase = frozenset(Phase)
    found = urns(SchoolQuery(phases=every_phase, limit=100))
    assert 100017 not in found  # Not applicable
    assert 100001 not in found  # unknown


def test_phase_filter_combines_with_text() -> None:
    assert urns(text_query("st marys", phases=frozenset({Phase.SECONDARY}))) == [100005, 100006]


# ---------------------------------------------------------------------------- paging


@settings(max_examples=40)
@given(
    page_size=st.integers(min_value=1, max_value=12),
    sort=st.sampled_from([None, SortOrder.NAME, SortOrder.URN, SortOrder.DISTANCE]),
)
def test_paging_visits_every_match_exactly_once_with_a_stable_total(
    page_size: int, sort: SortOrder | None
) -> None:
    near = Proximity(CAMDEN, None) if sort is SortOrder.DISTANCE else None
    everything = evaluate(SchoolQuery(near=near, sort=sort, limit=1000), SCHOOLS)
    seen: list[int] = []
    offset = 0
    while True:
        page = evaluate(SchoolQuery(near=near, sort=sort, offset=offset, limit=page_size), SCHOOLS)
        assert page.total == everything.total
        if not page.hits:
            break
        assert len(page.hits) <= page_size
        seen.extend(h.school.urn.value for h in page.hits)
        offset += page_size
    assert seen == [h.school.urn.value for h in everything.hits]
    assert len(seen) == len(set(seen)) == everything.total


def test_a_page_past_the_end_is_empty_with_the_true_total() -> None:
    page = evaluate(SchoolQuery(offset=500, limit=10), SCHOOLS)
    assert page.hits == ()
    assert page.total == len(SCHOOLS)


def test_the_total_counts_every_match_not_just_the_page() -> None:
    page = evaluate(SchoolQuery(phases=frozenset({Phase.PRIMARY}), limit=2), SCHOOLS)
    assert len(page.hits) == 2
    assert page.total == sum(1 for s in SCHOOLS if s.phase is Phase.PRIMARY)


def test_the_result_does_not_depend_on_candidate_order() -> None:
    query = text_query("school", limit=7)
    forward = evaluate(query, SCHOOLS)
    backward = evaluate(query, list(reversed(SCHOOLS)))
    assert forward == backward


def test_score_order_puts_unscored_schools_last_and_breaks_ties_by_urn() -> None:
    scored = [
        attrs.evolve(SCHOOLS[0], svc_score=50.0),
        attrs.evolve(SCHOOLS[1], svc_score=90.0),
        attrs.evolve(SCHOOLS[2], svc_score=50.0),
        SCHOOLS[3],
    ]
    page = evaluate(SchoolQuery(sort=SortOrder.SCORE, limit=10), scored)
    assert [h.school.urn.value for h in page.hits] == [100002, 100003, 100030, 100004]


# ---------------------------------------------------------------------------- validation


def test_effective_sort_defaults_to_relevance_for_text_and_name_otherwise() -> None:
    assert text_query("oak").effective_sort is SortOrder.RELEVANCE
    assert SchoolQuery().effective_sort is SortOrder.NAME
    assert SchoolQuery(sort=SortOrder.URN, near=Proximity(CAMDEN)).effective_sort is SortOrder.URN


@pytest.mark.parametrize("raw", ["", "a", " "])
def test_a_query_shorter_than_two_characters_is_rejected(raw: str) -> None:
    with pytest.raises(InvalidParameter) as caught:
        TextQuery.parse(raw)
    assert caught.value.parameter == "query"


@pytest.mark.parametrize("raw", [" a ", "  ", "--"])
def test_the_two_character_bound_is_on_the_text_as_sent(raw: str) -> None:
    assert TextQuery.parse(raw).raw == raw


def test_a_two_character_query_is_accepted() -> None:
    assert TextQuery.parse("ab").tokens == ("ab",)


@pytest.mark.parametrize("radius", [0.09, 100.01, 0, -1, math.nan, math.inf])
def test_a_radius_outside_0_1_to_100_is_rejected(radius: float) -> None:
    with pytest.raises(InvalidParameter) as caught:
        validate_radius(radius)
    assert caught.value.parameter == "radius_miles"


@pytest.mark.parametrize("radius", [0.1, 1, 100])
def test_a_radius_from_0_1_to_100_is_accepted(radius: float) -> None:
    assert validate_radius(radius) == radius


def test_no_radius_means_unbounded() -> None:
    assert validate_radius(None) is None


@pytest.mark.parametrize("limit", [0, -1, 26])
def test_a_limit_outside_its_bounds_is_rejected(limit: int) -> None:
    with pytest.raises(InvalidParameter):
        validate_limit(limit, default=10, maximum=25)


def test_a_missing_limit_takes_the_default() -> None:
    assert validate_limit(None, default=10, maximum=25) == 10


def test_some_search_input_is_required() -> None:
    with pytest.raises(MissingSearchInput):
        require_some_input(None, None)
    require_some_input("oak", None)
    require_some_input(None, "SW1A")


_words = st.lists(st.sampled_from(["a", "ab", "b", "ba", "aba"]), min_size=1, max_size=6)


@given(_words, _words)
def test_a_phrase_is_held_exactly_when_it_appears_as_whole_words_of_the_name(
    name: list[str], phrase: list[str]
) -> None:
    joined_name, joined_phrase = " ".join(name), " ".join(phrase)
    expected = f" {joined_phrase} " in f" {joined_name} "
    assert holds_phrase(joined_name, joined_phrase) is expected
