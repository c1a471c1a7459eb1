"""The bulk lookup's rules (application/lookup.py): every rule about the URNs asked is checked
before anything is looked up; the answer is each open school's profile in the order asked,
and the others listed as not found, never refused."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.support.operations import Operations

from schooldata.adapters.memory.store import InMemoryStore
from schooldata.application.commercial import CommercialSchools
from schooldata.domain.errors import InvalidParameter, InvalidUrn, LimitExceedsPlan
from schooldata.domain.plans import PlanCatalogue
from schooldata.domain.school import School
from schooldata.domain.urn import Urn

PLANS = PlanCatalogue()
DEVELOPER = PLANS.get("developer")
ENTERPRISE = PLANS.get("enterprise")
OPEN = tuple(range(100_001, 100_011))
CLOSED = 100_020


def build() -> Operations:
    schools = [School(urn=Urn(u), name=f"School {u}") for u in OPEN]
    store = InMemoryStore([*schools, School(urn=Urn(CLOSED), name="Gone", status="Closed")])
    return Operations(commercial=CommercialSchools(schools=store, postcodes=store, links=store))


OPERATIONS = build()


def prepare(urns: Any, plan: Any = DEVELOPER) -> Any:
    return OPERATIONS.prepare("lookupSchools", {"urns": urns}, plan)


def test_urns_are_taken_as_text_or_as_the_integers_they_spell_in_the_order_asked() -> None:
    assert prepare(["100002", 100001, 100003.0]) == (Urn(100002), Urn(100001), Urn(100003))


def test_the_plans_per_page_maximum_bounds_a_lookup() -> None:
    assert len(prepare([str(u) for u in range(100_000, 100_025)])) == 25
    with pytest.raises(LimitExceedsPlan) as refused:
        prepare([str(u) for u in range(100_000, 100_026)])
    assert refused.value.details == {"parameter": "urns", "max": 25}
    assert len(prepare([str(u) for u in range(100_000, 100_100)], ENTERPRISE)) == 100


@pytest.mark.parametrize(
    ("urns", "error"),
    [
        ([], InvalidParameter),
        (None, InvalidParameter),
        ("100001", InvalidParameter),
        ({"urn": "100001"}, InvalidParameter),
        (["100001", "100001"], InvalidParameter),
        (["100001", 100001], InvalidParameter),
        (["10000"], InvalidUrn),
        (["100001", " 100002"], InvalidUrn),
        ([True], InvalidUrn),
    ],
)
def test_a_lookup_that_breaks_a_rule_is_refused_naming_urns(urns: Any, error: type) -> None:
    with pytest.raises(error) as refused:
        prepare(urns)
    assert refused.value.details["parameter"] == "urns"


def test_the_plan_bound_is_checked_before_each_urn_is_read() -> None:
    """As compare: a too-long list is refused for its length, whatever it holds."""
    with pytest.raises(LimitExceedsPlan):
        prepare(["bad"] * 26)


@given(st.lists(st.sampled_from([*OPEN, CLOSED, 999_999, 100_000]), min_size=1, unique=True))
def test_the_answer_is_every_open_school_in_the_order_asked_and_the_rest_not_found(
    asked: list[int],
) -> None:
    answer = OPERATIONS.call("lookupSchools", {"urns": asked}, ENTERPRISE)
    assert [p.school.urn.value for p in answer.profiles] == [u for u in asked if u in OPEN]
    assert [u.value for u in answer.not_found] == [u for u in asked if u not in OPEN]
    assert answer.asked == len(asked)
