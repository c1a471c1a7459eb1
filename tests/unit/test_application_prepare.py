"""Every use case that takes parameters prepares them first: each argument rule, cross-argument
ones included, is checked before anything is looked up. A face that meters only calls whose
arguments validated (MCP) relies on it: what `prepare_*` raises is the caller's mistake, what
the answering step raises (an unknown postcode, a URN no open school has) is a finding."""

from __future__ import annotations

from typing import Any

import pytest
from tests.support.operations import Operations

from schooldata.adapters.memory.store import InMemoryStore
from schooldata.application.commercial import CommercialSchools, PostcodeOrigin
from schooldata.application.school_data import SchoolData
from schooldata.application.search_schools import PublicSearchRequest, SearchSchools
from schooldata.domain.errors import (
    InvalidParameter,
    InvalidUrn,
    LimitExceedsPlan,
    SchoolNotFound,
    UnknownPostcode,
)
from schooldata.domain.geo import Location
from schooldata.domain.phase import GiasPhase
from schooldata.domain.plans import PlanCatalogue
from schooldata.domain.postcode import PostcodeQuery
from schooldata.domain.school import School
from schooldata.domain.search import validate_limit
from schooldata.domain.urn import Urn

PLANS = PlanCatalogue()
DEVELOPER = PLANS.get("developer")
PROFESSIONAL = PLANS.get("professional")
WESTMINSTER = Location(51.5010, -0.1416)


class CountingPostcodes:
    """The in-memory postcode directory, counting lookups."""

    def __init__(self, directory: InMemoryStore) -> None:
        self._directory = directory
        self.lookups = 0

    def locate(self, *, postcode: PostcodeQuery) -> Location | None:
        self.lookups += 1
        return self._directory.locate(postcode=postcode)


@pytest.fixture
def store() -> InMemoryStore:
    schools = [
        School(
            urn=Urn(100000 + i),
            name=f"Abbey {i} School",
            gias_phase=GiasPhase.PRIMARY,
            location=Location(51.50 + i / 100, -0.14),
            la_name="Westminster",
        )
        for i in range(1, 6)
    ]
    data = InMemoryStore(schools)
    with data.transaction() as tx:
        tx.replace_postcodes(postcodes=[("SW1A1AA", WESTMINSTER)], source="codepoint_open")
    return data


@pytest.fixture
def postcodes(store: InMemoryStore) -> CountingPostcodes:
    return CountingPostcodes(store)


@pytest.fixture
def commercial(store: InMemoryStore, postcodes: CountingPostcodes) -> Operations:
    return Operations(commercial=CommercialSchools(schools=store, postcodes=postcodes, links=store))


@pytest.fixture
def school_data(store: InMemoryStore) -> Operations:
    return Operations(
        school_data=SchoolData(schools=store, measures=store, inspections=store, links=store)
    )


# ---------------------------------------------------------------------------- lists


@pytest.mark.parametrize(
    ("params", "parameter"),
    [
        ({}, "postcode"),
        ({"latitude": 51.5}, "latitude"),
        ({"postcode": "SW1A 1AA", "latitude": 51.5, "longitude": -0.1}, "postcode"),
        ({"radius_miles": 1}, "postcode"),
        ({"postcode": "SW1A 1AA", "sort": "relevance"}, "sort"),
        ({"postcode": "not a postcode"}, "postcode"),
        ({"postcode": "SW1A 1AA", "phase": "college"}, "phase"),
    ],
)
def test_preparing_a_nearby_question_refuses_bad_arguments_without_a_lookup(
    commercial: Operations,
    postcodes: CountingPostcodes,
    params: dict[str, Any],
    parameter: str,
) -> None:
    with pytest.raises(InvalidParameter) as caught:
        commercial.prepare("nearbySchools", params, DEVELOPER)
    assert not isinstance(caught.value, UnknownPostcode)
    assert caught.value.parameter == parameter
    assert postcodes.lookups == 0


def test_sort_by_distance_without_an_origin_is_refused_when_a_search_is_prepared(
    commercial: Operations,
) -> None:
    with pytest.raises(InvalidParameter) as caught:
        commercial.prepare("searchSchoolsCommercial", {"q": "st", "sort": "distance"}, DEVELOPER)
    assert caught.value.parameter == "sort"


def test_a_well_formed_postcode_is_looked_up_only_when_the_question_is_answered(
    commercial: Operations, postcodes: CountingPostcodes
) -> None:
    request = commercial.prepare("nearbySchools", {"postcode": "ZZ9 9ZZ"}, DEVELOPER)
    assert isinstance(request.origin, PostcodeOrigin)
    assert postcodes.lookups == 0
    with pytest.raises(UnknownPostcode):
        commercial.uses.commercial.find(request)
    assert postcodes.lookups == 1


def test_a_prepared_question_answers_as_the_one_step_use_case(
    commercial: Operations,
) -> None:
    params = {"postcode": "sw1a 1aa", "radius_miles": "3", "per_page": "2"}
    prepared = commercial.uses.commercial.find(
        commercial.prepare("nearbySchools", params, DEVELOPER)
    )
    assert prepared == commercial.call("nearbySchools", params, DEVELOPER)
    assert prepared.with_distance
    assert prepared.per_page == 2


def test_an_integral_number_is_an_integer_and_a_fraction_is_not(
    commercial: Operations,
) -> None:
    assert commercial.prepare("listSchools", {"per_page": 5.0}, DEVELOPER).per_page == 5
    with pytest.raises(LimitExceedsPlan):
        commercial.prepare("listSchools", {"per_page": 60.0}, DEVELOPER)
    with pytest.raises(InvalidParameter) as caught:
        commercial.prepare("listSchools", {"page": 1.5}, DEVELOPER)
    assert caught.value.parameter == "page"


def test_enum_parameters_are_read_in_any_case(commercial: Operations) -> None:
    request = commercial.prepare("listSchools", {"phase": "Primary", "gender": "Mixed"}, DEVELOPER)
    assert request.gender == "mixed"
    assert {phase.value for phase in request.phases} == {"primary"}


# ---------------------------------------------------------------------------- compare


def test_compare_takes_urns_written_as_text_or_as_the_integers_they_spell(
    school_data: Operations,
) -> None:
    urns = school_data.prepare("compareSchools", {"urns": ["100001", 100002]}, PROFESSIONAL)
    assert urns == (Urn(100001), Urn(100002))
    compared = school_data.uses.school_data.compare_schools(urns)
    assert [s.urn.value for s in compared.schools] == [100001, 100002]


@pytest.mark.parametrize("bad", ["100484\n", "abc", 12345, True, None, 100002.5])
def test_a_malformed_urn_in_a_comparison_is_an_invalid_urn_naming_urns(
    school_data: Operations, bad: object
) -> None:
    with pytest.raises(InvalidUrn) as caught:
        school_data.prepare("compareSchools", {"urns": ["100001", bad]}, PROFESSIONAL)
    assert caught.value.code == "invalid_urn"
    assert caught.value.details == {"parameter": "urns"}


def test_the_same_urn_as_text_and_as_a_number_is_a_duplicate(school_data: Operations) -> None:
    with pytest.raises(InvalidParameter) as caught:
        school_data.prepare("compareSchools", {"urns": ["100001", 100001]}, PROFESSIONAL)
    assert caught.value.code == "invalid_parameter"
    assert caught.value.parameter == "urns"


def test_a_urn_no_open_school_has_is_found_out_only_when_compared(
    school_data: Operations,
) -> None:
    urns = school_data.prepare("compareSchools", {"urns": ["100001", "999999"]}, PROFESSIONAL)
    with pytest.raises(SchoolNotFound):
        school_data.uses.school_data.compare_schools(urns)


def test_more_urns_than_the_plan_allows_exceed_the_plan(school_data: Operations) -> None:
    with pytest.raises(LimitExceedsPlan):
        school_data.prepare(
            "compareSchools", {"urns": [str(100001 + i) for i in range(11)]}, PROFESSIONAL
        )


# ---------------------------------------------------------------------------- rankings


@pytest.mark.parametrize(
    ("params", "parameter"),
    [
        ({"phase": "primary"}, "metric"),
        ({"metric": "svc_score"}, "phase"),
        ({"metric": "svc_score", "phase": "primary", "order": "up"}, "order"),
        ({"metric": "svc_score", "phase": "primary", "page": 0}, "page"),
    ],
)
def test_preparing_rankings_refuses_bad_arguments(
    school_data: Operations, params: dict[str, Any], parameter: str
) -> None:
    with pytest.raises(InvalidParameter) as caught:
        school_data.prepare("getRankings", params, PROFESSIONAL)
    assert caught.value.parameter == parameter


def test_prepared_rankings_answer_as_the_one_step_use_case(school_data: Operations) -> None:
    params = {"metric": "SVC_SCORE", "phase": "Primary", "order": "asc", "per_page": 2.0}
    request = school_data.prepare("getRankings", params, PROFESSIONAL)
    assert request.metric == "svc_score"
    assert not request.descending
    assert school_data.uses.school_data.rank(request) == school_data.call(
        "getRankings", params, PROFESSIONAL
    )


# ---------------------------------------------------------------------------- public search


def test_a_public_search_limit_sent_as_an_integral_number_is_that_integer() -> None:
    assert PublicSearchRequest.from_params({"query": "st", "limit": 2.0}).limit == 2
    assert PublicSearchRequest.from_params({"query": "st", "limit": "2"}).limit == 2


@pytest.mark.parametrize("limit", [2.5, "2.0", "two", True])
def test_a_public_search_limit_that_is_not_an_integer_is_refused(limit: object) -> None:
    with pytest.raises(InvalidParameter) as caught:
        PublicSearchRequest.from_params({"query": "st", "limit": limit})
    assert caught.value.parameter == "limit"


def test_public_search_texts_are_kept_as_given_and_must_be_text() -> None:
    request = PublicSearchRequest.from_params({"query": " St Mary ", "phase": "Primary"})
    assert (request.query, request.phase) == (" St Mary ", "Primary")  # they are echoed
    with pytest.raises(InvalidParameter) as caught:
        PublicSearchRequest.from_params({"query": 42})
    assert caught.value.parameter == "query"


def test_preparing_a_public_search_looks_nothing_up(
    store: InMemoryStore, postcodes: CountingPostcodes
) -> None:
    search = SearchSchools(schools=store, postcodes=postcodes)
    prepared = search.prepare(PublicSearchRequest(postcode="ZZ9 9ZZ", limit=3))
    assert postcodes.lookups == 0
    with pytest.raises(UnknownPostcode):
        search.run(prepared)
    with pytest.raises(InvalidParameter):
        search.prepare(PublicSearchRequest(postcode="ZZ9 9ZZ", limit=26))
    assert postcodes.lookups == 1


def test_a_limit_that_is_not_an_integer_is_an_invalid_parameter_never_a_crash() -> None:
    with pytest.raises(InvalidParameter):
        validate_limit(2.0, default=10, maximum=25)  # type: ignore[arg-type]
