"""The shrink rule: which imports would stop serving too much (domain/shrink.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from schooldata.domain.shrink import MAX_SHRINK_SHARE, count_shrink, register_shrink
from schooldata.domain.urn import Urn

urn_sets = st.sets(st.integers(100_000, 100_400).map(Urn), max_size=300)


@given(before=urn_sets, after=urn_sets, closed=urn_sets)
def test_a_register_is_refused_exactly_when_a_school_goes_unexplained_or_too_many_go(
    before: set[Urn], after: set[Urn], closed: set[Urn]
) -> None:
    shrink = register_shrink(before=before, after=after, listed_closed=closed)
    gone = before - after
    expected = bool(gone - closed) or len(gone) > int(len(before) * MAX_SHRINK_SHARE)
    assert shrink.refused is expected
    assert (shrink.before, shrink.dropped, shrink.unexplained) == (
        len(before),
        len(gone),
        len(gone - closed),
    )


@given(before=urn_sets, added=urn_sets)
def test_a_file_that_keeps_every_school_served_is_never_a_shrink(
    before: set[Urn], added: set[Urn]
) -> None:
    assert not register_shrink(before=before, after=before | added, listed_closed=set()).refused


def test_one_school_missing_from_the_file_is_enough_to_refuse_it() -> None:
    before = {Urn(100_000 + i) for i in range(1_000)}
    shrink = register_shrink(before=before, after=before - {Urn(100_000)}, listed_closed=set())
    assert shrink.refused
    assert "(1 missing from it, 0 listed as closed)" in shrink.message("gias_establishments")


def test_closures_the_file_lists_are_allowed_up_to_the_share() -> None:
    before = {Urn(100_000 + i) for i in range(1_000)}
    closing = {Urn(100_000 + i) for i in range(50)}
    assert not register_shrink(before=before, after=before - closing, listed_closed=closing).refused
    closing.add(Urn(100_999))
    assert register_shrink(before=before, after=before - closing, listed_closed=closing).refused


@given(before=st.integers(0, 2_000_000), after=st.integers(0, 2_000_000))
def test_a_directory_may_lose_at_most_the_share_of_its_records(before: int, after: int) -> None:
    shrink = count_shrink(what="postcodes", before=before, after=after)
    assert shrink.refused is (before - after > int(before * MAX_SHRINK_SHARE))


def test_the_message_is_one_line_naming_the_counts_and_the_flag() -> None:
    message = count_shrink(what="postcodes", before=1_745_849, after=870_000).message(
        "codepoint_open"
    )
    assert "\n" not in message
    assert message.startswith("codepoint_open: this file would leave 870,000 postcodes where ")
    assert "1,745,849 are served now (875,849 fewer)" in message
    assert message.endswith("import it with --allow-shrink.")
