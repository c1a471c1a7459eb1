"""The index's hits built through their slots are the hits the domain's class builds."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schooldata.adapters.memory.hits import search_hit
from schooldata.domain.school import School
from schooldata.domain.search import SearchHit
from schooldata.domain.urn import Urn


@given(
    st.integers(min_value=100_000, max_value=999_999),
    st.none() | st.floats(min_value=0, max_value=200),
    st.floats(min_value=-10, max_value=10),
)
def test_a_hit_built_by_search_hit_is_the_hit_its_class_builds(
    urn: int, distance: float | None, relevance: float
) -> None:
    school = School(urn=Urn(urn), name="A school")
    hit = search_hit(school, distance, relevance)
    built = SearchHit(school=school, distance_miles=distance, relevance=relevance)
    assert type(hit) is SearchHit
    assert hit == built and hash(hit) == hash(built) and repr(hit) == repr(built)
    assert search_hit(school) == SearchHit(school)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        hit.relevance = 1.0  # type: ignore[misc]
