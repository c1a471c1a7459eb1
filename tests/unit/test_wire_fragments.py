"""The answers REST sends from fragments are, byte for byte, their Structs encoded: the search
answer (with and without distances), the commercial lists, and every other answer of the
registry."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.contract.answers_calls import BASE_URL, REQUEST_ID, application, calls, outcome

from schooldata.application.pipeline import Refused
from schooldata.application.search_schools import PublicSearchAnswer, PublicSearchRequest
from schooldata.domain.geo import Location
from schooldata.domain.phase import GiasPhase
from schooldata.domain.school import School
from schooldata.domain.search import SearchHit, SearchPage
from schooldata.domain.urn import Urn
from schooldata.entrypoints import answers
from schooldata.entrypoints.wire.public import (
    search_response,
    search_response_json,
)

_texts = st.none() | st.text(max_size=30)
_finite = st.floats(allow_nan=False, allow_infinity=False)

schools = st.builds(
    School,
    urn=st.integers(100000, 999999).map(Urn),
    name=st.text(min_size=1, max_size=40),
    la_name=_texts,
    type_name=_texts,
    gias_phase=st.none() | st.sampled_from(GiasPhase),
    location=st.none() | st.builds(Location, st.floats(49.0, 61.0), st.floats(-8.0, 2.0)),
    svc_score=st.none() | st.floats(0.0, 100.0),
    postcode=_texts,
    website=_texts,
)

hits = st.builds(SearchHit, school=schools, distance_miles=st.none() | st.floats(0.0, 100.0))

search_answers = st.builds(
    PublicSearchAnswer,
    request=st.builds(
        PublicSearchRequest,
        query=_texts,
        postcode=_texts,
        phase=_texts,
        radius_miles=st.none() | _finite,
    ),
    limit=st.integers(1, 25),
    page=st.builds(
        SearchPage,
        total=st.integers(0, 30_000),
        hits=st.lists(hits, max_size=12).map(tuple),
    ),
    with_distance=st.booleans(),
)

bases = st.sampled_from(["http://testserver", "https://api.example.org/v1", "http://h:8080"])


@settings(max_examples=300)
@given(search_answers, bases)
def test_the_search_answer_from_fragments_is_its_struct_encoded(
    answer: PublicSearchAnswer, base_url: str
) -> None:
    expected = msgspec.json.encode(search_response(answer, base_url=base_url))
    assert search_response_json(answer, base_url=base_url) == expected
    # and again, from the fragments already made
    assert search_response_json(answer, base_url=base_url) == expected


def test_every_answer_rest_sends_is_byte_for_byte_its_structs_encoded() -> None:
    app = application()
    compared = 0
    for label, call in calls():
        result = outcome(app, call)
        if isinstance(result, Refused):
            continue
        expected = msgspec.json.encode(
            answers.shape(result, base_url=BASE_URL, request_id=REQUEST_ID, page_url=_page_url)
        )
        sent = answers.encoded(result, base_url=BASE_URL, request_id=REQUEST_ID, page_url=_page_url)
        assert sent == expected, label
        compared += 1
    assert compared > 30


def _page_url(page: int) -> str:
    return f"{BASE_URL}/api/v1/schools?page={page}"
