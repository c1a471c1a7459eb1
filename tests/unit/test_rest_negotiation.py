"""Content negotiation of list answers (RFC 9110 12.5.1): JSON or CSV by the client's
`Accept` q-values, the most specific matching range deciding each type's quality."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schooldata.entrypoints.rest.negotiation import CSV, JSON, choose


@pytest.mark.parametrize(
    ("accept", "chosen"),
    [
        (None, JSON),
        ("", JSON),
        ("*/*", JSON),
        ("application/json", JSON),
        ("application/*", JSON),
        ("text/csv", CSV),
        ("TEXT/CSV; charset=utf-8", CSV),
        ("text/*", CSV),
        ("text/csv, application/json", JSON),  # a tie: the API's own form
        ("text/csv;q=0.9, application/json;q=0.8", CSV),
        ("application/json;q=0, */*", CSV),
        ("text/csv;q=0, */*;q=0.1", JSON),
        ("*/*;q=0.5, text/csv;q=0.6", CSV),
        ("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", JSON),
        ("application/xml", None),
        ("text/html, image/png", None),
        ("*/*;q=0", None),
        ("application/json;q=0, text/csv;q=0", None),
        ("text/csv;q=2", None),  # not a quality: names nothing
        ("text/csv;q=high", None),
        ("nonsense", None),
        ("text/csv;q=0.5;ext=1, application/json;q=0.4", CSV),
    ],
)
def test_the_chosen_representation(accept: str | None, chosen: str | None) -> None:
    assert choose(accept) == chosen


qualities = st.sampled_from(["", ";q=0", ";q=0.1", ";q=0.5", ";q=0.9", ";q=1"])
ranges = st.lists(
    st.tuples(
        st.sampled_from(
            ["application/json", "text/csv", "application/*", "text/*", "*/*", "application/xml"]
        ),
        qualities,
    ),
    max_size=5,
    unique_by=lambda r: r[0],
)


@given(ranges, st.randoms())
def test_the_order_of_the_ranges_does_not_matter(
    listed: list[tuple[str, str]], random: object
) -> None:
    shuffled = list(listed)
    random.shuffle(shuffled)  # type: ignore[attr-defined]
    accept = ", ".join(m + q for m, q in listed)
    assert choose(accept or None) == choose(", ".join(m + q for m, q in shuffled) or None)


@given(ranges)
def test_a_type_named_with_a_quality_is_never_refused_and_nothing_matching_is(
    listed: list[tuple[str, str]],
) -> None:
    accept = ", ".join(m + q for m, q in listed)
    chosen = choose(accept or None)
    wanted = {m for m, q in listed if q != ";q=0"}
    if not listed or wanted & {JSON, CSV}:
        assert chosen in (JSON, CSV)
    if listed and not wanted & {JSON, CSV, "application/*", "text/*", "*/*"}:
        assert chosen is None
    if chosen is not None:
        assert (chosen, ";q=0") not in listed, "a type refused by name is never sent"
