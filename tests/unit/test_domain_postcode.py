"""Postcodes: case and spacing normalised once, junk refused before any lookup."""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.domain.errors import InvalidParameter
from schooldata.domain.postcode import (
    canonical_postcode,
    outward_of,
    parse_postcode,
    without_spaces,
)

LETTER = st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
DIGIT = st.sampled_from("0123456789")

# The six outward shapes: A9, A99, AA9, AA99, A9A, AA9A.
OUTWARD = st.one_of(
    st.tuples(LETTER, DIGIT),
    st.tuples(LETTER, DIGIT, DIGIT),
    st.tuples(LETTER, LETTER, DIGIT),
    st.tuples(LETTER, LETTER, DIGIT, DIGIT),
    st.tuples(LETTER, DIGIT, LETTER),
    st.tuples(LETTER, LETTER, DIGIT, LETTER),
).map("".join)
INWARD = st.tuples(DIGIT, LETTER, LETTER).map("".join)


@st.composite
def as_typed(draw: st.DrawFn, canonical: str) -> str:
    """The canonical text with random case per letter and random whitespace anywhere."""
    out = [draw(st.sampled_from(["", " ", "  ", "\t"]))]
    for ch in canonical:
        out.append(ch.lower() if draw(st.booleans()) else ch)
        out.append(draw(st.sampled_from(["", "", " ", "  "])))
    return "".join(out)


@settings(max_examples=50)
@given(data=st.data(), outward=OUTWARD, inward=INWARD)
def test_normalises_case_and_spacing_of_full_postcodes(
    data: st.DataObject, outward: str, inward: str
) -> None:
    typed = data.draw(as_typed(outward + inward))
    parsed = parse_postcode(typed)
    assert str(parsed) == f"{outward} {inward}"
    assert parsed.compact == outward + inward
    assert parsed.outward == outward
    assert parsed.inward == inward
    assert not parsed.is_outward_only


@settings(max_examples=50)
@given(data=st.data(), outward=OUTWARD)
def test_accepts_outward_only_codes_in_any_case_and_spacing(
    data: st.DataObject, outward: str
) -> None:
    typed = data.draw(as_typed(outward))
    parsed = parse_postcode(typed)
    assert parsed.is_outward_only
    assert parsed.inward is None
    assert str(parsed) == outward
    assert parsed.compact == outward


@settings(max_examples=60)
@given(outward=OUTWARD, inward=INWARD)
def test_outward_of_a_compact_postcode_is_its_parsed_outward_code(
    outward: str, inward: str
) -> None:
    compact = parse_postcode(f" {outward.lower()} {inward} ").compact
    assert compact == outward + inward
    assert outward_of(compact) == parse_postcode(compact).outward == outward


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("sw1a1aa", "SW1A 1AA"),
        ("  Sw1A   1aA ", "SW1A 1AA"),
        ("m1 1ae", "M1 1AE"),
        ("b33 8th", "B33 8TH"),
        ("CR2 6XH", "CR2 6XH"),
        ("dn551pt", "DN55 1PT"),
        ("W1A 0AX", "W1A 0AX"),
        ("ec1a 1bb", "EC1A 1BB"),
    ],
)
def test_parses_real_postcodes_to_their_canonical_form(typed: str, canonical: str) -> None:
    assert str(parse_postcode(typed)) == canonical


@pytest.mark.parametrize("typed", ["sw1a", "M1", " b33 ", "ec1a", "W1A"])
def test_parses_outward_codes_as_outward_only(typed: str) -> None:
    assert parse_postcode(typed).is_outward_only


@pytest.mark.parametrize(
    "junk",
    [
        "",
        " ",
        "a",
        "12",
        "!!",
        "SW1A 1A",
        "SW1A 1AAA",
        "SW1A-1AA",
        "1AA",
        "ABC1 1AA",
        "SW1A 1AA; DROP TABLE schools",
        "ＳＷ１Ａ １ＡＡ",  # fullwidth
        "SW1A 1AA SW1A 1AA",
        "postcode",
    ],
)
def test_rejects_junk_as_an_invalid_postcode_parameter(junk: str) -> None:
    with pytest.raises(InvalidParameter) as caught:
        parse_postcode(junk)
    assert caught.value.details == {"parameter": "postcode"}


def test_rejects_a_one_character_postcode_with_the_minimum_length_message() -> None:
    with pytest.raises(InvalidParameter, match="at least 2"):
        parse_postcode("W")


@pytest.mark.parametrize("junk", ["ß1", "ﬀ1 1aa"])
def test_rejects_non_ascii_letters_that_upper_case_into_a_postcode_shape(junk: str) -> None:
    with pytest.raises(InvalidParameter):
        parse_postcode(junk)


@pytest.mark.parametrize(
    ("compact", "outward"),
    [("AB101AB", "AB10"), ("W1A1AA", "W1A"), ("M11AE", "M1"), ("SW1A1AA", "SW1A")],
)
def test_outward_of_drops_the_three_character_inward_code(compact: str, outward: str) -> None:
    assert outward_of(compact) == outward


@pytest.mark.parametrize(
    ("raw", "served"),
    [
        ("nw1 2db", "NW1 2DB"),
        ("NW12DB", "NW1 2DB"),
        (" sw1a  1aa ", "SW1A 1AA"),
        ("SW1A 1AA", "SW1A 1AA"),
        ("BFPO 105", "BFPO 105"),  # not a UK unit postcode: kept exactly as written
        ("Dubai", "Dubai"),
    ],
)
def test_a_publishers_postcode_is_served_in_its_standard_form(raw: str, served: str) -> None:
    assert canonical_postcode(raw) == served


def test_every_character_a_regex_takes_for_whitespace_is_one_str_split_takes() -> None:
    spaces = re.compile(r"\s")
    assert [
        c for c in map(chr, range(sys.maxunicode + 1)) if bool(spaces.fullmatch(c)) != c.isspace()
    ] == []


@given(st.text())
def test_spaces_are_removed_as_the_regex_removes_them(raw: str) -> None:
    assert without_spaces(raw) == re.sub(r"\s+", "", raw)
