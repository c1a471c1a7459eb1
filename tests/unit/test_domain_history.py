"""Data versions, release statuses, changed fields and predecessors: the domain's rules."""

from __future__ import annotations

import datetime as dt

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schooldata.domain.changes import changed_fields
from schooldata.domain.errors import InvalidParameter, SinceExpired
from schooldata.domain.links import MAX_PREDECESSOR_DEPTH, EstablishmentLink, predecessors
from schooldata.domain.ofsted import HistoricGrade
from schooldata.domain.releases import (
    ReleaseStatus,
    parse_release_status,
    release_status_in_name,
)
from schooldata.domain.school import School
from schooldata.domain.urn import Urn
from schooldata.domain.versions import (
    DataVersion,
    check_since,
    next_made_at,
    parse_version,
    version_id,
)

NOON = dt.datetime(2026, 12, 7, 12, 0, 0, 250_000, tzinfo=dt.UTC)


# ------------------------------------------------------------------------ versions


@given(
    st.integers(min_value=0, max_value=10**12),
    st.datetimes(
        min_value=dt.datetime(2000, 1, 1),
        max_value=dt.datetime(2999, 1, 1),
        timezones=st.just(dt.UTC),
    ),
)
def test_a_version_id_reads_back_as_its_second_and_sequence(
    sequence: int, made: dt.datetime
) -> None:
    ref = parse_version(version_id(sequence, made), parameter="since")
    assert ref.sequence == sequence
    assert ref.made_at == made.replace(microsecond=0)


@given(
    st.lists(
        st.tuples(
            st.datetimes(min_value=dt.datetime(2020, 1, 1), max_value=dt.datetime(2099, 1, 1)),
            st.integers(min_value=0, max_value=99),
        ),
        min_size=2,
        max_size=20,
    )
)
def test_versions_made_in_turn_have_ids_that_sort_in_time(
    clock: list[tuple[dt.datetime, int]],
) -> None:
    """Whatever the clock says (set back included), each version's id sorts after the last."""
    previous: DataVersion | None = None
    ids = []
    for sequence, (now, _) in enumerate(clock, start=1):
        made = next_made_at(now.replace(tzinfo=dt.UTC), previous)
        previous = DataVersion(sequence=sequence, made_at=made)
        ids.append(previous.id)
    assert ids == sorted(ids)


@pytest.mark.parametrize(
    "raw",
    ["", "20261207", "20261207T120000Z", "20261207T120000Z-42", "20261307T120000Z-000001",
     " 20261207T120000Z-000001x", 20261207, None, "２０２６1207T120000Z-000001"],
)  # fmt: skip
def test_anything_but_a_version_id_is_an_invalid_parameter(raw: object) -> None:
    with pytest.raises(InvalidParameter) as refused:
        parse_version(raw, parameter="since")
    assert refused.value.details == {"parameter": "since"}


def test_since_the_oldest_kept_version_is_held_and_anything_older_has_expired() -> None:
    oldest = DataVersion(sequence=40, made_at=NOON)
    held = check_since(parse_version(oldest.id, parameter="since"), held=oldest, oldest=oldest)
    assert held == oldest
    for older in ("20261207T115959Z-000040", "20261207T120000Z-000039"):
        with pytest.raises(SinceExpired) as expired:
            check_since(parse_version(older, parameter="since"), held=None, oldest=oldest)
        assert expired.value.details["oldest"] == oldest.id


def test_a_version_never_made_is_unknown() -> None:
    oldest = DataVersion(sequence=40, made_at=NOON)
    later = parse_version("20261208T000000Z-000041", parameter="since")
    with pytest.raises(InvalidParameter, match="names no data version"):
        check_since(later, held=None, oldest=oldest)
    other = DataVersion(sequence=41, made_at=NOON + dt.timedelta(hours=3))
    with pytest.raises(InvalidParameter):
        check_since(later, held=other, oldest=oldest)  # the same number, another time


# ------------------------------------------------------------------------ releases


@pytest.mark.parametrize(
    ("cell", "status"),
    [("Provisional", ReleaseStatus.PROVISIONAL), (" revised ", ReleaseStatus.REVISED),
     ("FINAL", ReleaseStatus.FINAL), ("", None), ("Amended", None), (None, None)],
)  # fmt: skip
def test_a_version_cell_says_the_release_as_dfe_writes_it(
    cell: str | None, status: ReleaseStatus | None
) -> None:
    assert parse_release_status(cell) is status


@pytest.mark.parametrize(
    ("name", "status"),
    [("202425_performance_tables_schools_revised.csv", ReleaseStatus.REVISED),
     ("202425_information_about_schools_provisional.csv", ReleaseStatus.PROVISIONAL),
     ("england_ks4final.csv", ReleaseStatus.FINAL),
     ("england_ks2provisional.csv", ReleaseStatus.PROVISIONAL),
     ("ks2_school_attainment_data.csv", None), ("finalists.csv", None)],
)  # fmt: skip
def test_a_file_name_says_the_release_when_its_rows_do_not(
    name: str, status: ReleaseStatus | None
) -> None:
    assert release_status_in_name(name) is status


# ------------------------------------------------------------------------ changed fields


def test_an_update_names_each_licensed_field_that_changed_and_never_a_withheld_one() -> None:
    before = School(urn=Urn(100001), name="Alpha", la_name="Camden", head_name="Ms A")
    after = attrs.evolve(before, la_name="Islington", head_name="Mr B", pupils=200)
    assert changed_fields(before, after) == ("la_name", "pupils")


def test_the_score_and_the_grade_are_named_by_their_parts() -> None:
    before = School(urn=Urn(100001), name="Alpha", svc_score=50.0)
    after = attrs.evolve(
        before,
        svc_score=None,
        score_suppressed_reason="stale_evidence",
        ofsted=HistoricGrade(2, dt.date(2020, 1, 1)),
    )
    assert changed_fields(before, after) == (
        "ofsted_rating",
        "ofsted",
        "svc_score",
        "score_suppressed",
        "score_suppressed_reason",
    )


# ------------------------------------------------------------------------ predecessors


def link(urn: int, linked: int, kind: str = "Predecessor", day: int = 1) -> EstablishmentLink:
    return EstablishmentLink(Urn(urn), Urn(linked), f"School {linked}", kind, dt.date(2020, 1, day))


def follow(links: list[EstablishmentLink], urn: int) -> list[tuple[int, int, int]]:
    found = predecessors(Urn(urn), lambda at: [k for k in links if k.urn == at])
    return [(p.urn.value, p.depth, p.via.urn.value) for p in found]


def test_predecessors_are_followed_transitively_nearest_first() -> None:
    links = [
        link(300000, 200000),
        link(200000, 100000, "Predecessor - amalgamated"),
        link(200000, 100001, "Predecessor - merged", day=2),
        link(300000, 400000, "Successor"),
        link(300000, 500000, "Predecessor - Split School"),
        link(300000, 600000, "Result of Amalgamation"),
    ]
    assert follow(links, 300000) == [
        (200000, 1, 300000),
        (100001, 2, 200000),  # the newer link first
        (100000, 2, 200000),
    ]


def test_cycles_end_and_the_school_is_never_its_own_predecessor() -> None:
    links = [link(100000, 200000), link(200000, 300000), link(300000, 100000)]
    assert follow(links, 100000) == [(200000, 1, 100000), (300000, 2, 200000)]


@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), max_size=40))
def test_any_links_give_each_predecessor_once_within_the_depth(
    pairs: list[tuple[int, int]],
) -> None:
    links = [link(100000 + a, 100000 + b) for a, b in pairs]
    found = follow(links, 100000)
    urns = [urn for urn, _, _ in found]
    assert len(urns) == len(set(urns))
    assert 100000 not in urns
    assert all(1 <= depth <= MAX_PREDECESSOR_DEPTH for _, depth, _ in found)


def test_no_link_is_followed_further_than_the_documented_depth() -> None:
    chain = [link(100000 + i, 100001 + i) for i in range(MAX_PREDECESSOR_DEPTH + 3)]
    assert [depth for _, depth, _ in follow(chain, 100000)] == list(
        range(1, MAX_PREDECESSOR_DEPTH + 1)
    )
