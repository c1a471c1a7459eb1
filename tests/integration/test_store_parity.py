"""Every store gives the in-memory store's answers: same pages, same records, same lookups.

The same assertions run over memory, SQLite and PostgreSQL (the `loaded_store` fixture); the
in-memory store loaded with the same data (`reference`) is the expected answer, and a few
hand-checked facts keep the reference itself honest.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from attrs import frozen

from schooldata.adapters.memory.store import InMemoryStore
from schooldata.adapters.sql import SqlStore
from schooldata.domain.geo import Location
from schooldata.domain.phase import parse_phase
from schooldata.domain.postcode import parse_postcode
from schooldata.domain.school import School
from schooldata.domain.search import (
    Proximity,
    SchoolQuery,
    SearchPage,
    SortOrder,
    TextQuery,
)
from schooldata.domain.text import normalise
from schooldata.domain.urn import Urn

pytestmark = pytest.mark.integration

Store = InMemoryStore | SqlStore


@frozen(kw_only=True)
class Ask:
    """A question in the words a caller uses; `build` turns it into a SchoolQuery per store."""

    text: str | None = None
    postcode: str | None = None
    origin: Location | None = None
    radius: float | None = None
    phases: tuple[str, ...] = ()
    la: str | None = None
    type_name: str | None = None
    gender: str | None = None
    ofsted: int | None = None
    min_score: float | None = None
    sort: str | None = None
    offset: int = 0
    limit: int = 25

    def build(self, store: Store) -> SchoolQuery:
        origin = self.origin
        if self.postcode is not None:
            origin = store.locate(postcode=parse_postcode(self.postcode))
            assert origin is not None, self.postcode
        return SchoolQuery(
            text=None if self.text is None else TextQuery.parse(self.text),
            near=None if origin is None else Proximity(origin, self.radius),
            phases=frozenset(parse_phase(p) for p in self.phases),
            local_authority=None if self.la is None else normalise(self.la),
            type_name=None if self.type_name is None else normalise(self.type_name),
            gender=None if self.gender is None else normalise(self.gender),
            ofsted_rating=self.ofsted,
            min_score=self.min_score,
            sort=None if self.sort is None else SortOrder(self.sort),
            offset=self.offset,
            limit=self.limit,
        )


QUESTIONS: dict[str, Ask] = {
    "text-words": Ask(text="st marys"),
    "text-exact-name": Ask(text="St Mary’s Church of England Primary School"),
    "text-prefix": Ask(text="oak"),
    "text-two-prefixes": Ask(text="st mar"),
    "text-phase": Ask(text="st mary", phases=("primary",)),
    "text-authority-word": Ask(text="camden"),
    "text-type-words": Ask(text="voluntary aided"),
    "text-accents": Ask(text="ecole francaise"),
    "text-ampersand": Ask(text="st mary and st john"),
    "text-no-match": Ask(text="zzzz"),
    "text-punctuation-only": Ask(text="!!"),
    "postcode-no-radius": Ask(postcode="NW1 7AA"),
    "postcode-radius": Ask(postcode="NW1 7AA", radius=1.0),
    "postcode-radius-phase": Ask(postcode="SW1P 3PB", radius=3.0, phases=("secondary",)),
    "outward-radius": Ask(postcode="B15", radius=5.0),
    "outward-phase": Ask(postcode="NW1", phases=("nursery", "sixth form")),
    "authority-near": Ask(postcode="E8 1HP", la="Westminster"),
    "authority-code": Ask(text="school", la="330"),
    "text-near-radius": Ask(text="primary", postcode="B1 1BB", radius=10.0),
    "sort-name-page": Ask(text="school", sort="name", offset=5, limit=7),
    "sort-urn": Ask(text="high", sort="urn"),
    "sort-score-min": Ask(text="academy", sort="score", min_score=50.0),
    "sort-score-near": Ask(postcode="SW1A 1AA", sort="score"),
    "sort-relevance-near": Ask(text="st", postcode="SE1 2JH", sort="relevance"),
    "ofsted": Ask(postcode="NW1 8NP", ofsted=1),
    "gender": Ask(text="school", gender="Girls"),
    "type": Ask(postcode="B15 2TT", radius=100.0, type_name="Academy sponsor led"),
    "nothing-near": Ask(origin=Location(50.0, -10.0), radius=0.1),
}


def assert_same_page(actual: SearchPage, expected: SearchPage) -> None:
    assert actual.total == expected.total
    assert [h.school.urn for h in actual.hits] == [h.school.urn for h in expected.hits]
    for got, want in zip(actual.hits, expected.hits, strict=True):
        assert got.school == want.school
        assert got.relevance == want.relevance
        if want.distance_miles is None:
            assert got.distance_miles is None
        else:
            assert got.distance_miles == pytest.approx(want.distance_miles, abs=1e-9)


@pytest.mark.parametrize("ask", QUESTIONS.values(), ids=QUESTIONS.keys())
def test_search_answers_as_the_reference_does(
    loaded_store: Store, reference: Store, ask: Ask
) -> None:
    expected = reference.search(query=ask.build(reference))
    assert_same_page(loaded_store.search(query=ask.build(loaded_store)), expected)


def test_an_exact_name_ranks_first(loaded_store: Store) -> None:
    page = loaded_store.search(query=QUESTIONS["text-exact-name"].build(loaded_store))
    assert page.hits[0].school.urn == Urn(100001)


def test_equal_names_tie_break_by_urn(loaded_store: Store) -> None:
    page = loaded_store.search(query=Ask(text="Oakfield Academy").build(loaded_store))
    assert [h.school.urn.value for h in page.hits[:3]] == [100003, 100030, 100060]


def test_without_a_radius_every_located_school_is_counted(
    loaded_store: Store, all_schools: list[School], served_urns: set[Urn]
) -> None:
    located = {s.urn for s in all_schools if s.location is not None} & served_urns
    page = loaded_store.search(query=QUESTIONS["postcode-no-radius"].build(loaded_store))
    assert page.total == len(located)


def test_equal_distances_tie_break_by_urn(loaded_store: Store) -> None:
    site = Ask(origin=Location(51.5412, -0.1390), radius=0.1).build(loaded_store)
    page = loaded_store.search(query=site)
    assert [h.school.urn.value for h in page.hits] == [100002, 100003]
    assert [h.distance_miles for h in page.hits] == [0.0, 0.0]


def test_closed_schools_are_never_found(loaded_store: Store, served_urns: set[Urn]) -> None:
    page = loaded_store.search(query=Ask(text="school", limit=100).build(loaded_store))
    assert {h.school.urn for h in page.hits} <= served_urns
    assert loaded_store.get(urn=Urn(100025)) is None


PAGED: dict[str, Ask] = {
    "name": Ask(origin=Location(52.0, -1.0), sort="name", limit=7),
    "distance": Ask(postcode="B1 1BB", limit=7),
    "relevance": Ask(text="sc", sort="relevance", limit=7),
    "score": Ask(postcode="NW1 7AA", sort="score", limit=7),
    "urn-with-filter": Ask(postcode="NW1 7AA", phases=("primary",), sort="urn", limit=3),
}


@pytest.mark.parametrize("ask", PAGED.values(), ids=PAGED.keys())
def test_offset_paging_visits_each_match_exactly_once(
    loaded_store: Store, reference: Store, ask: Ask
) -> None:
    seen: list[Urn] = []
    total = loaded_store.search(query=ask.build(loaded_store)).total
    for offset in range(0, total + ask.limit, ask.limit):
        query = ask.build(loaded_store)
        page = loaded_store.search(query=_at(query, offset))
        assert page.total == total
        assert_same_page(page, reference.search(query=_at(ask.build(reference), offset)))
        seen += [h.school.urn for h in page.hits]
    assert len(seen) == len(set(seen)) == total > 0


def _at(query: SchoolQuery, offset: int) -> SchoolQuery:
    fields: dict[str, Any] = {
        name: getattr(query, name)
        for name in ("text", "near", "phases", "local_authority", "type_name", "gender")
    }
    fields |= {"ofsted_rating": query.ofsted_rating, "min_score": query.min_score}
    return SchoolQuery(**fields, sort=query.sort, offset=offset, limit=query.limit)


# ------------------------------------------------------------------------ records and lookups


def test_every_school_round_trips_field_for_field(
    loaded_store: Store, all_schools: list[School], served_urns: set[Urn]
) -> None:
    for school in all_schools:
        expected = school if school.urn in served_urns else None
        assert loaded_store.get(urn=school.urn) == expected


def test_iter_all_streams_every_served_school_in_urn_order(
    loaded_store: Store, reference: Store
) -> None:
    assert list(loaded_store.iter_all()) == list(reference.iter_all())


def test_local_authorities_are_counted_and_ordered_by_name(
    loaded_store: Store, reference: Store
) -> None:
    authorities = loaded_store.local_authorities()
    assert authorities == reference.local_authorities()
    assert ("330", "Birmingham", 16) in authorities
    assert [name for _, name, _ in authorities][:2] == ["Birmingham", "Camden"]


def test_postcodes_resolve_with_the_last_source_winning(
    loaded_store: Store, reference: Store, all_postcodes: dict[str, list[tuple[str, Location]]]
) -> None:
    compacts = {compact for rows in all_postcodes.values() for compact, _ in rows}
    for compact in sorted(compacts):
        postcode = parse_postcode(compact)
        assert loaded_store.locate(postcode=postcode) == reference.locate(postcode=postcode)
    assert loaded_store.locate(postcode=parse_postcode("nw1 7aa")) == Location(51.5391, -0.1441)
    assert loaded_store.locate(postcode=parse_postcode("B152TT")) == Location(52.4513, -1.9302)
    assert loaded_store.locate(postcode=parse_postcode("ZZ9 9ZZ")) is None


@pytest.mark.parametrize("outward", ["NW1", "NW3", "SW1A", "B15", "B1", "E8"])
def test_outward_codes_resolve_to_the_centroid_of_live_postcodes(
    loaded_store: Store, reference: Store, outward: str
) -> None:
    got = loaded_store.locate(postcode=parse_postcode(outward))
    want = reference.locate(postcode=parse_postcode(outward))
    assert got is not None and want is not None
    assert math.isclose(got.latitude, want.latitude, abs_tol=1e-12)
    assert math.isclose(got.longitude, want.longitude, abs_tol=1e-12)


def test_unknown_outward_code_is_none(loaded_store: Store) -> None:
    assert loaded_store.locate(postcode=parse_postcode("ZZ9")) is None


def test_dataset_records_round_trip(loaded_store: Store, reference: Store) -> None:
    assert loaded_store.current() == reference.current()
    assert loaded_store.current()[0].imported_at.utcoffset() is not None


@pytest.mark.parametrize("urn", [100001, 100004, 100007, 100030, 100035, 100049, 100002])
def test_measures_links_and_inspections_of_a_school(
    loaded_store: Store, reference: Store, urn: int
) -> None:
    key = Urn(urn)
    assert loaded_store.measures_for(urn=key) == reference.measures_for(urn=key)
    assert loaded_store.links_for(urn=key) == reference.links_for(urn=key)
    assert loaded_store.inspections_for(urn=key) == reference.inspections_for(urn=key)


def test_measures_with_code(loaded_store: Store, reference: Store) -> None:
    code = "ks2_rwm_expected_percent"
    assert loaded_store.measures_with_code(code=code) == reference.measures_with_code(code=code)
    assert len(loaded_store.measures_with_code(code=code)) == 5


def test_every_measure_and_inspection_streams_in_urn_order_as_each_school_reads_them(
    loaded_store: Store, reference: Store
) -> None:
    measures = list(loaded_store.iter_measures())
    inspections = list(loaded_store.iter_inspections())
    assert measures == list(reference.iter_measures()) and measures
    assert inspections == list(reference.iter_inspections()) and inspections
    for records, per_school in (
        (measures, loaded_store.measures_for),
        (inspections, loaded_store.inspections_for),
    ):
        urns = [r.urn.value for r in records]
        assert urns == sorted(urns)
        for urn in dict.fromkeys(urns):
            assert [r for r in records if r.urn == urn] == per_school(urn=Urn(urn))
