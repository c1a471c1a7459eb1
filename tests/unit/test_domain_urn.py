"""Urn.parse: exactly six ASCII digits, nothing repaired."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.domain.errors import InvalidParameter, InvalidUrn
from schooldata.domain.urn import Urn

SIX_ASCII_DIGITS = re.compile(r"[0-9]{6}")


@settings(max_examples=50)
@given(st.from_regex(r"[0-9]{6}", fullmatch=True))
def test_any_six_digit_string_round_trips_through_str(raw: str) -> None:
    assert str(Urn.parse(raw)) == raw


@settings(max_examples=50)
@given(
    st.one_of(
        st.text(max_size=12),
        st.from_regex(r"[0-9]{0,5}|[0-9]{7,10}", fullmatch=True),
        st.text(alphabet=st.characters(categories=["Nd"]), min_size=6, max_size=6),
        st.from_regex(r"[ \t\n+\-]?[0-9]{6}[ \t\n]?", fullmatch=True),
    ).filter(lambda s: SIX_ASCII_DIGITS.fullmatch(s) is None)
)
def test_any_other_text_is_an_invalid_urn(raw: str) -> None:
    with pytest.raises(InvalidUrn):
        Urn.parse(raw)


def test_parses_six_digits_to_their_number() -> None:
    assert Urn.parse("100000").value == 100000
    assert Urn.parse("012345").value == 12345


def test_keeps_leading_zeros_when_printed() -> None:
    assert str(Urn.parse("000042")) == "000042"
    assert str(Urn(42)) == "000042"


def test_accepts_a_six_digit_integer() -> None:
    assert Urn.parse(123456) == Urn(123456)


@pytest.mark.parametrize(
    "raw",
    [
        "12345",
        "1234567",
        "",
        " 123456",
        "123456 ",
        "123 456",
        "+12345",
        "-12345",
        "+123456",
        "12345a",
        "１２３４５６",  # fullwidth digits
        "١٢٣٤٥٦",  # Arabic-Indic digits
        "12345\n",
        "0x1234",
        "1e5000",
    ],
)
def test_rejects_text_that_is_not_exactly_six_ascii_digits(raw: str) -> None:
    with pytest.raises(InvalidUrn):
        Urn.parse(raw)


def test_rejects_a_five_digit_urn() -> None:
    with pytest.raises(InvalidUrn):
        Urn.parse("10000")


def test_rejects_a_seven_digit_urn() -> None:
    with pytest.raises(InvalidUrn):
        Urn.parse("1000000")


@pytest.mark.parametrize("raw", [12345, 1234567, -123456, True, 123456.5, None, b"123456"])
def test_rejects_values_that_are_not_six_digit_text_or_integers(raw: object) -> None:
    with pytest.raises(InvalidUrn):
        Urn.parse(raw)


def test_an_integral_float_is_the_integer_json_schema_calls_it() -> None:
    assert Urn.parse(123456.0) == Urn.parse("123456")


def test_invalid_urn_is_an_invalid_parameter_named_urn_with_its_own_code() -> None:
    with pytest.raises(InvalidUrn) as caught:
        Urn.parse("abc")
    assert isinstance(caught.value, InvalidParameter)
    assert caught.value.code == "invalid_urn"
    assert caught.value.details == {"parameter": "urn"}


def test_invalid_urn_message_does_not_echo_a_huge_input_whole() -> None:
    with pytest.raises(InvalidUrn) as caught:
        Urn.parse("9" * 10_000)
    assert len(caught.value.message) < 120


def test_orders_urns_numerically() -> None:
    assert sorted([Urn.parse("100010"), Urn.parse("000100"), Urn.parse("099999")]) == [
        Urn(100),
        Urn(99999),
        Urn(100010),
    ]


def test_a_parsed_urn_parses_to_itself() -> None:
    urn = Urn(100001)
    assert Urn.parse(urn) is urn


def test_an_invalid_urn_can_name_the_argument_it_came_in() -> None:
    with pytest.raises(InvalidUrn) as caught:
        Urn.parse("100484\n", parameter="urns")
    assert caught.value.details == {"parameter": "urns"}


@settings(max_examples=100)
@given(st.integers(min_value=0, max_value=999_999))
def test_a_urn_equals_its_integer_and_its_six_digit_text_and_hashes_as_the_integer(n: int) -> None:
    urn = Urn(n)
    assert urn == n and n == urn and int(urn) == n
    assert urn == f"{n:06d}" and f"{n:06d}" == urn
    assert hash(urn) == hash(n)
    assert urn != n + 1 and urn != str(n + 1).zfill(6)


@settings(max_examples=50)
@given(st.integers(min_value=0, max_value=999_999))
def test_a_urn_and_its_integer_are_one_key_of_a_dict_never_two(n: int) -> None:
    held = {n: "int", Urn(n): "urn"}
    assert held == {n: "urn"}
    assert {Urn(n): 1}[n] == 1 and {n: 1}[Urn(n)] == 1
    assert len({Urn(n), n, Urn(n)}) == 1


def test_a_urn_is_not_equal_to_other_kinds_of_value() -> None:
    urn = Urn(100001)
    assert urn != True  # noqa: E712 (a bool is never a URN, though bool is an int)
    assert urn != 100001.5 and urn != "100001 " and urn != "0100001" and urn != None  # noqa: E711
    assert urn != b"100001"


def test_a_urn_is_immutable_and_survives_pickling_and_copying() -> None:
    import copy
    import pickle

    urn = Urn(138180)
    with pytest.raises(AttributeError):
        urn.value = 1  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(urn)) == urn
    assert copy.deepcopy(urn) == urn
    assert repr(urn) == "Urn(138180)"


def test_urns_order_against_urns_only() -> None:
    assert Urn(1) < Urn(2) <= Urn(2) and Urn(3) > Urn(2) >= Urn(2)
    with pytest.raises(TypeError):
        _ = Urn(1) < 2  # type: ignore[operator]
