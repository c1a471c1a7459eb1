"""Raw parameters to validated values: one set of rules for every face."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.application import parameters as p
from schooldata.application.operations.param import Place
from schooldata.application.operations.registry import REGISTRY
from schooldata.application.pipeline import reject_unknown
from schooldata.domain.errors import InvalidParameter, UnknownParameter

SEARCH = REGISTRY["searchSchoolsCommercial"]


def test_unknown_parameters_are_rejected_all_at_once_sorted() -> None:
    with pytest.raises(UnknownParameter) as caught:
        reject_unknown(SEARCH, {"zeta": 1, "q": "x", "alpha": 2}, None)
    assert caught.value.details == {"parameters": ["alpha", "zeta"]}
    assert "alpha, zeta" in caught.value.message


def test_known_parameters_pass() -> None:
    reject_unknown(SEARCH, {"q": "x", "page": 2}, {"q": Place.QUERY, "page": Place.QUERY})
    reject_unknown(SEARCH, {}, None)


def test_a_declared_parameter_sent_elsewhere_than_declared_is_unknown() -> None:
    with pytest.raises(UnknownParameter) as caught:
        reject_unknown(SEARCH, {"q": "x"}, {"q": Place.BODY})
    assert caught.value.details == {"parameters": ["q"]}


def test_text_is_stripped_and_absent_is_none() -> None:
    assert p.text({"q": "  oak  "}, "q") == "oak"
    assert p.text({}, "q") is None


@pytest.mark.parametrize("value", ["a", " ", ""])
def test_text_shorter_than_the_minimum_is_rejected(value: str) -> None:
    with pytest.raises(InvalidParameter) as caught:
        p.text({"q": value}, "q", min_length=2)
    assert caught.value.parameter == "q"


def test_text_bounds_count_the_text_as_sent_and_the_value_loses_its_spaces() -> None:
    assert p.text({"q": "   a  "}, "q", min_length=2) == "a"
    with pytest.raises(InvalidParameter, match="at most 5"):
        p.text({"q": " abcd "}, "q", max_length=5)


def test_text_longer_than_the_maximum_is_rejected() -> None:
    assert p.text({"q": "x" * 200}, "q") == "x" * 200
    with pytest.raises(InvalidParameter, match="at most 200"):
        p.text({"q": "x" * 201}, "q")


@pytest.mark.parametrize("value", [1, 1.5, ["oak"], True])
def test_text_must_be_a_string(value: object) -> None:
    with pytest.raises(InvalidParameter, match="string"):
        p.text({"q": value}, "q")


@pytest.mark.parametrize(
    ("value", "expected"), [("10", 10), (" 7 ", 7), ("+3", 3), (7, 7), (7.0, 7), ("007", 7)]
)
def test_integers_are_read_from_text_and_numbers(value: object, expected: int) -> None:
    assert p.integer({"n": value}, "n") == expected


@pytest.mark.parametrize(
    "value", ["1.5", "ten", "", "١٢", "1e3", "9 9", True, False, 1.5, [1], "-", "0x10"]
)
def test_non_integers_are_rejected(value: object) -> None:
    with pytest.raises(InvalidParameter) as caught:
        p.integer({"n": value}, "n")
    assert caught.value.parameter == "n"


@pytest.mark.parametrize("value", ["--5", "+-5", "-+5"])
def test_integers_with_repeated_signs_are_rejected(value: str) -> None:
    with pytest.raises(InvalidParameter):
        p.integer({"n": value}, "n")


@pytest.mark.parametrize(("value", "message"), [(0, "between 1 and 4"), (5, "between 1 and 4")])
def test_integer_bounds_name_the_range(value: int, message: str) -> None:
    with pytest.raises(InvalidParameter, match=message):
        p.integer({"n": value}, "n", minimum=1, maximum=4)


def test_a_one_sided_integer_bound_is_enforced() -> None:
    with pytest.raises(InvalidParameter, match="at least 1"):
        p.integer({"page": "0"}, "page", minimum=1)
    with pytest.raises(InvalidParameter, match="at most 9"):
        p.integer({"n": "10"}, "n", maximum=9)


@pytest.mark.parametrize(
    "value", ["9223372036854775807", "2147483648", "9" * 200, "-" + "9" * 200, "+" + "9" * 5000]
)
def test_an_integer_too_large_for_its_bound_is_refused_by_that_bound(value: str) -> None:
    with pytest.raises(InvalidParameter, match=r"^page must be between 1 and 2147483647\.$"):
        p.integer({"page": value}, "page", minimum=1, maximum=p.MAX_PAGE)


def test_a_very_long_integer_is_refused_by_the_bound_on_its_side() -> None:
    with pytest.raises(InvalidParameter, match=r"^n must be at least 1\.$"):
        p.integer({"n": "-" + "9" * 200}, "n", minimum=1)
    with pytest.raises(InvalidParameter, match=r"^n must be at most 9\.$"):
        p.integer({"n": "9" * 200}, "n", maximum=9)
    with pytest.raises(InvalidParameter, match=r"^n must be an integer of at most 100 digits\.$"):
        p.integer({"n": "9" * 200}, "n", minimum=1)


def test_long_integers_within_the_digit_bound_are_read_exactly() -> None:
    # Unbounded here: the caller checks them (per_page against the plan, limit against 25).
    assert p.integer({"n": "9" * 100}, "n") == int("9" * 100)
    assert p.integer({"n": "0" * 300 + "7"}, "n") == 7


@settings(max_examples=100)
@given(st.from_regex(r"[+-]?[0-9]{1,300}", fullmatch=True))
def test_any_written_integer_is_a_page_or_names_the_page_bounds(written: str) -> None:
    if 1 <= int(written) <= p.MAX_PAGE:
        assert p.integer({"page": written}, "page", minimum=1, maximum=p.MAX_PAGE) == int(written)
        return
    with pytest.raises(InvalidParameter, match=r"^page must be between 1 and 2147483647\.$"):
        p.integer({"page": written}, "page", minimum=1, maximum=p.MAX_PAGE)


@settings(max_examples=50)
@given(st.integers(min_value=-(10**11 - 1), max_value=10**11 - 1))
def test_any_written_integer_reads_back(value: int) -> None:
    assert p.integer({"n": str(value)}, "n") == value


@pytest.mark.parametrize(("value", "expected"), [("0.5", 0.5), (" 2 ", 2.0), (3, 3.0), (2.5, 2.5)])
def test_numbers_are_read_from_text_and_numbers(value: object, expected: float) -> None:
    assert p.number({"x": value}, "x") == expected


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999", "abc", "", True, math.nan, [1.0]])
def test_non_finite_or_non_numeric_values_are_rejected(value: object) -> None:
    with pytest.raises(InvalidParameter) as caught:
        p.number({"x": value}, "x")
    assert caught.value.parameter == "x"


def test_number_bounds_are_inclusive() -> None:
    assert p.number({"r": "0.1"}, "r", minimum=0.1, maximum=100) == 0.1
    assert p.number({"r": "100"}, "r", minimum=0.1, maximum=100) == 100
    with pytest.raises(InvalidParameter, match=r"between 0\.1 and 100"):
        p.number({"r": "100.01"}, "r", minimum=0.1, maximum=100)


def test_choice_is_case_insensitive_and_returns_the_lower_case_option() -> None:
    assert p.choice({"sort": " Name "}, "sort", ("name", "urn")) == "name"
    assert p.choice({}, "sort", ("name",)) is None
    with pytest.raises(InvalidParameter, match="name, urn"):
        p.choice({"sort": "size"}, "sort", ("name", "urn"))


@given(st.text(alphabet="0123456789", min_size=1, max_size=400), st.sampled_from(["", " ", "\t"]))
def test_a_number_of_ascii_digits_alone_is_read_as_float_reads_it_or_refused_when_infinite(
    digits: str, pad: str
) -> None:
    written = pad + digits + pad
    if math.isfinite(float(digits)):
        assert p.decimal("radius_miles", written) == float(digits)
    else:
        with pytest.raises(InvalidParameter):
            p.decimal("radius_miles", written)


@pytest.mark.parametrize("written", ["²", "١٢", "1²", "٣.5"])
def test_digits_outside_ascii_are_not_a_number(written: str) -> None:
    with pytest.raises(InvalidParameter):
        p.decimal("radius_miles", written)
