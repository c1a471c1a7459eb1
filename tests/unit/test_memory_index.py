"""The in-memory index answers exactly as the plain evaluator over every school."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.support.dataset import SCHOOLS

from schooldata.adapters.memory.index import SchoolIndex
from schooldata.domain.geo import Location
from schooldata.domain.phase import Phase
from schooldata.domain.search import Proximity, SchoolQuery, SortOrder, TextQuery, evaluate

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
