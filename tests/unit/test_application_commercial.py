"""Commercial list/search/nearby/profile use cases over the in-memory store."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.support.operations import Operations

from schooldata.adapters.memory.store import InMemoryStore
from schooldata.application.commercial import CommercialSchools
from schooldata.domain.errors import (
    InvalidParameter,
    InvalidUrn,
    LimitExceedsPlan,
    SchoolNotFound,
    UnknownParameter,
    UnknownPostcode,
)
from schooldata.domain.geo import Location
from schooldata.domain.phase import GiasPhase, Phase
from schooldata.domain.plans import PlanCatalogue
from schooldata.domain.school import School
from schooldata.domain.urn import Urn

PLANS = PlanCatalogue()
DEVELOPER = PLANS.get("developer")
PROFESSIONAL = PLANS.get("professional")
ENTERPRISE = PLANS.get("enterprise")

LAS = [("202", "Camden"), ("204", "Hackney"), ("213", "Westminster"), ("330", "Birmingham")]
PHASES = [GiasPhase.PRIMARY, GiasPhase.SECONDARY, GiasPhase.NURSERY, GiasPhase.SIXTEEN_PLUS, None]
NAMES = ["Oak", "Elm", "Ash", "Birch", "Cedar", "Maple", "Willow", "Rowan", "Hazel", "Pine"]


def build_schools() -> list[School]:
    schools = []
    for i in range(57):
        code, la = LAS[i % len(LAS)]
        schools.append(
            School(
                urn=Urn(110000 + (i * 37) % 1000),
                name=f"{NAMES[i % len(NAMES)]} {'Primary' if i % 2 else 'Academy'} School",
                la_code=code,
                la_name=la,
                type_name="Academy converter" if i % 3 else "Community school",
                gias_phase=PHASES[i % len(PHASES)],
                gender=["Mixed", "Boys", "Girls"][i % 3],
                location=None if i % 11 == 0 else Location(51.45 + i * 0.002, -0.20 + i * 0.003),
                svc_score=None if i % 4 == 0 else float(i % 10) * 10.0,
                score_suppressed_reason="small_cohort" if i % 4 == 0 else None,
            )
        )
    schools.append(School(urn=Urn(199999), name="Oak Closed School", status="Closed"))
    return schools


SCHOOLS = build_schools()
SERVED = [s for s in SCHOOLS if s.status != "Closed"]


@pytest.fixture(scope="module")
def commercial() -> Operations:
    store = InMemoryStore(SCHOOLS)
    with store.transaction() as tx:
        tx.replace_postcodes(
            postcodes=[
                ("SW1A1AA", Location(51.5010, -0.1416)),
                ("NW15LR", Location(51.539, -0.1426)),
            ],
            source="codepoint_open",
        )
    return Operations(commercial=CommercialSchools(schools=store, postcodes=store, links=store))


# ---------------------------------------------------------------------------- parameters


def test_unknown_parameters_are_rejected_and_named(commercial: Operations) -> None:
    with pytest.raises(UnknownParameter) as caught:
        commercial.call(
            "listSchools", {"phase": "primary", "limit": "5", "colour": "red"}, DEVELOPER
        )
    assert caught.value.code == "unknown_parameter"
    assert caught.value.details == {"parameters": ["colour", "limit"]}


def test_search_does_not_accept_location_parameters(commercial: Operations) -> None:
    with pytest.raises(UnknownParameter) as caught:
        commercial.call("searchSchoolsCommercial", {"q": "oak", "postcode": "SW1A 1AA"}, DEVELOPER)
    assert caught.value.details["parameters"] == ["postcode"]


def test_a_postcode_and_coordinates_together_are_rejected(commercial: Operations) -> None:
    with pytest.raises(InvalidParameter) as caught:
        commercial.call(
            "listSchools",
            {"postcode": "SW1A 1AA", "latitude": "51.5", "longitude": "-0.1"},
            DEVELOPER,
        )
    assert caught.value.parameter == "postcode"


@pytest.mark.parametrize("params", [{"latitude": "51.5"}, {"longitude": "-0.1"}])
def test_latitude_and_longitude_go_together(commercial: Operations, params: dict[str, str]) -> None:
    with pytest.raises(InvalidParameter) as caught:
        commercial.call("listSchools", params, DEVELOPER)
    assert caught.value.parameter == "latitude"


@pytest.mark.parametrize(("name", "value"), [("latitude", "90.5"), ("longitude", "-180.1")])
def test_coordinates_outside_the_globe_are_rejected(
    commercial: Operations, name: str, value: str
) -> None:
    params = {"latitude": "51.5", "longitude": "-0.1", name: value}
    with pytest.raises(InvalidParameter) as caught:
        commercial.call("listSchools", params, DEVELOPER)
    assert caught.value.parameter == name


def test_a_radius_without_an_origin_is_rejected(commercial: Operations) -> None:
    with pytest.raises(InvalidParameter) as caught:
        commercial.call("listSchools", {"radius_miles": "5"}, DEVELOPER)
    assert caught.value.parameter == "radius_miles"


@pytest.mark.parametrize("radius", ["0.09", "100.01"])
def test_a_radius_outside_its_bounds_is_rejected(commercial: Operations, radius: str) -> None:
    with pytest.raises(InvalidParameter) as caught:
        commercial.call("listSchools", {"postcode": "SW1A 1AA", "radius_miles": radius}, DEVELOPER)
    assert caught.value.parameter == "radius_miles"


def test_sort_by_distance_without_an_origin_is_rejected(commercial: Operations) -> None:
    with pytest.raises(InvalidParameter) as caught:
        commercial.call("listSchools", {"sort": "distance"}, DEVELOPER)
    assert caught.value.parameter == "sort"


def test_sort_by_relevance_without_q_is_rejected(commercial: Operations) -> None:
    with pytest.raises(InvalidParameter) as caught:
        commercial.call("listSchools", {"sort": "relevance"}, DEVELOPER)
    assert caught.value.parameter == "sort"


def test_an_unknown_sort_is_rejected(commercial: Operations) -> None:
    with pytest.raises(InvalidParameter) as caught:
        commercial.call("listSchools", {"sort": "popularity"}, DEVELOPER)
    assert caught.value.parameter == "sort"


def test_per_page_above_the_plan_maximum_exceeds_the_plan(commercial: Operations) -> None:
    with pytest.raises(LimitExceedsPlan) as caught:
        commercial.call("listSchools", {"per_page": "26"}, DEVELOPER)
    assert caught.value.details == {"parameter": "per_page", "max": 25}


def test_a_bigger_plan_allows_a_bigger_page(commercial: Operations) -> None:
    assert commercial.call("listSchools", {"per_page": "50"}, PROFESSIONAL).per_page == 50
    with pytest.raises(LimitExceedsPlan):
        commercial.call("listSchools", {"per_page": "51"}, PROFESSIONAL)


def test_per_page_defaults_to_20(commercial: Operations) -> None:
    answer = commercial.call("listSchools", {}, DEVELOPER)
    assert answer.per_page == 20
    assert answer.page == 1
    assert len(answer.result.hits) == 20


@pytest.mark.parametrize("page", ["0", "-1", "abc", "1.5"])
def test_an_invalid_page_is_rejected(commercial: Operations, page: str) -> None:
    with pytest.raises(InvalidParameter) as caught:
        commercial.call("listSchools", {"page": page}, DEVELOPER)
    assert caught.value.parameter == "page"


def test_a_page_with_repeated_signs_is_an_invalid_parameter(commercial: Operations) -> None:
    with pytest.raises(InvalidParameter):
        commercial.call("listSchools", {"page": "--1"}, DEVELOPER)


def test_an_unknown_postcode_is_unknown(commercial: Operations) -> None:
    with pytest.raises(UnknownPostcode):
        commercial.call("nearbySchools", {"postcode": "ZZ9 9ZZ"}, DEVELOPER)


def test_search_requires_q(commercial: Operations) -> None:
    with pytest.raises(InvalidParameter) as caught:
        commercial.call("searchSchoolsCommercial", {"phase": "primary"}, DEVELOPER)
    assert caught.value.parameter == "q"


def test_nearby_requires_an_origin(commercial: Operations) -> None:
    with pytest.raises(InvalidParameter):
        commercial.call("nearbySchools", {"q": "oak"}, DEVELOPER)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("gender", "other"),
        ("ofsted_rating", "5"),
        ("min_score", "101"),
        ("phase", "college"),
        ("q", "a"),
    ],
)
def test_filter_values_are_validated(commercial: Operations, name: str, value: str) -> None:
    with pytest.raises(InvalidParameter) as caught:
        commercial.call("listSchools", {name: value}, DEVELOPER)
    assert caught.value.parameter == name


# ---------------------------------------------------------------------------- answers


@settings(max_examples=30, deadline=None)
@given(
    per_page=st.integers(min_value=1, max_value=25),
    sort=st.sampled_from([None, "name", "urn", "score"]),
)
def test_paging_through_the_list_visits_every_school_exactly_once(
    commercial: Operations, per_page: int, sort: str | None
) -> None:
    params: dict[str, object] = {"per_page": per_page}
    if sort is not None:
        params["sort"] = sort
    first = commercial.call("listSchools", {**params, "page": 1}, DEVELOPER)
    assert first.result.total == len(SERVED)
    assert first.total_pages == -(-len(SERVED) // per_page)
    seen: list[Urn] = []
    for page in range(1, first.total_pages + 1):
        answer = commercial.call("listSchools", {**params, "page": str(page)}, DEVELOPER)
        assert answer.result.total == len(SERVED)
        seen.extend(h.school.urn for h in answer.result.hits)
    assert len(seen) == len(set(seen)) == len(SERVED)
    assert set(seen) == {s.urn for s in SERVED}


def test_a_page_past_the_last_is_empty_with_true_totals(commercial: Operations) -> None:
    answer = commercial.call("listSchools", {"page": "99"}, DEVELOPER)
    assert answer.result.hits == ()
    assert answer.result.total == len(SERVED)
    assert answer.total_pages == 3


def test_closed_schools_are_not_listed(commercial: Operations) -> None:
    answer = commercial.call("listSchools", {"per_page": 100}, ENTERPRISE)
    assert Urn(199999) not in {h.school.urn for h in answer.result.hits}


def test_name_order_breaks_ties_by_urn(commercial: Operations) -> None:
    hits = commercial.call("listSchools", {"per_page": 100, "sort": "name"}, ENTERPRISE).result.hits
    keys = [(h.school.name.lower(), h.school.urn.value) for h in hits]
    assert keys == sorted(keys)


def test_nearby_by_coordinates_is_nearest_first_within_the_radius(
    commercial: Operations,
) -> None:
    answer = commercial.call(
        "nearbySchools",
        {"latitude": "51.5", "longitude": "-0.13", "radius_miles": "3", "per_page": "25"},
        DEVELOPER,
    )
    assert answer.with_distance
    distances = [h.distance_miles for h in answer.result.hits]
    assert distances
    assert distances == sorted(distances)  # type: ignore[type-var]
    assert all(d is not None and d <= 3 for d in distances)


def test_filters_combine(commercial: Operations) -> None:
    answer = commercial.call(
        "listSchools",
        {"phase": "primary", "local_authority": "camden", "gender": "Mixed", "per_page": "25"},
        DEVELOPER,
    )
    expected = {
        s.urn
        for s in SERVED
        if s.phase is Phase.PRIMARY and s.la_name == "Camden" and s.gender == "Mixed"
    }
    assert {h.school.urn for h in answer.result.hits} == expected


def test_local_authority_matches_by_code_too(commercial: Operations) -> None:
    by_code = commercial.call(
        "listSchools", {"local_authority": "213", "per_page": 25}, DEVELOPER
    ).result
    by_name = commercial.call(
        "listSchools", {"local_authority": "Westminster", "per_page": 25}, DEVELOPER
    ).result
    assert by_code == by_name
    assert by_code.total > 0


def test_min_score_excludes_unscored_schools(commercial: Operations) -> None:
    hits = commercial.call(
        "listSchools", {"min_score": "50", "per_page": 100}, ENTERPRISE
    ).result.hits
    assert hits
    assert all(h.school.svc_score is not None and h.school.svc_score >= 50 for h in hits)


def test_the_profile_of_an_open_school(commercial: Operations) -> None:
    profile = commercial.uses.commercial.profile(str(SERVED[0].urn))
    assert profile.school == SERVED[0]
    assert profile.links == ()


def test_the_profile_of_a_closed_school_is_not_found(commercial: Operations) -> None:
    with pytest.raises(SchoolNotFound):
        commercial.uses.commercial.profile("199999")


def test_the_profile_needs_a_valid_urn(commercial: Operations) -> None:
    with pytest.raises(InvalidUrn):
        commercial.uses.commercial.profile("19999")


def test_local_authorities_are_counted_and_filterable(commercial: Operations) -> None:
    page = commercial.call("listLocalAuthorities", {}, DEVELOPER)
    assert [a.name for a in page.items] == ["Birmingham", "Camden", "Hackney", "Westminster"]
    assert sum(a.schools for a in page.items) == len(SERVED)
    filtered = commercial.call("listLocalAuthorities", {"q": "hack"}, DEVELOPER)
    assert [(a.code, a.name) for a in filtered.items] == [("204", "Hackney")]
    with pytest.raises(UnknownParameter):
        commercial.call("listLocalAuthorities", {"phase": "primary"}, DEVELOPER)
