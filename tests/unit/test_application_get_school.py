"""GetSchool: a valid URN of an open school, or a precise error."""

from __future__ import annotations

import pytest

from schooldata.adapters.memory.store import InMemoryStore
from schooldata.application.get_school import GetSchool
from schooldata.domain.errors import InvalidUrn, SchoolNotFound
from schooldata.domain.school import School
from schooldata.domain.urn import Urn

SCHOOLS = [
    School(urn=Urn(100001), name="Open School"),
    School(urn=Urn(100002), name="Closing School", status="Open, but proposed to close"),
    School(urn=Urn(100003), name="Closed School", status="Closed"),
    School(urn=Urn(100004), name="Proposed School", status="Proposed to open"),
    School(urn=Urn(12), name="Leading Zeros School"),
]


@pytest.fixture(scope="module")
def get_school() -> GetSchool:
    return GetSchool(schools=InMemoryStore(SCHOOLS))


def test_returns_an_open_school(get_school: GetSchool) -> None:
    assert get_school.execute("100001").name == "Open School"


def test_returns_a_school_open_but_proposed_to_close(get_school: GetSchool) -> None:
    assert get_school.execute("100002").name == "Closing School"


def test_accepts_a_urn_with_leading_zeros(get_school: GetSchool) -> None:
    assert get_school.execute("000012").name == "Leading Zeros School"


@pytest.mark.parametrize("urn", ["100003", "100004"])
def test_a_school_that_is_not_open_is_not_found(get_school: GetSchool, urn: str) -> None:
    with pytest.raises(SchoolNotFound) as caught:
        get_school.execute(urn)
    assert caught.value.code == "not_found"
    assert caught.value.details == {"urn": urn}


def test_an_unknown_urn_is_not_found(get_school: GetSchool) -> None:
    with pytest.raises(SchoolNotFound):
        get_school.execute("999999")


@pytest.mark.parametrize("urn", ["10001", "1000011", "abcdef", " 100001", "１００００１", "", "12"])
def test_an_invalid_urn_is_rejected_before_any_lookup(get_school: GetSchool, urn: str) -> None:
    with pytest.raises(InvalidUrn) as caught:
        get_school.execute(urn)
    assert caught.value.code == "invalid_urn"
