"""Search text normalisation: case, accents, apostrophes and punctuation fold away."""

from __future__ import annotations

import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.domain.school import School
from schooldata.domain.text import normalise, tokens
from schooldata.domain.urn import Urn

NORMAL_FORM = re.compile(r"([0-9a-z]+( [0-9a-z]+)*)?")


def test_curly_straight_and_missing_apostrophes_are_the_same_name() -> None:
    assert normalise("St Mary’s") == normalise("St Mary's") == normalise("st marys") == "st marys"


@pytest.mark.parametrize("variant", ["St Mary‘s", "St Mary`s", "ST. MARY'S"])
def test_other_apostrophe_marks_join_the_word_too(variant: str) -> None:
    assert normalise(variant) == "st marys"


def test_an_acute_accent_used_as_an_apostrophe_joins_the_word() -> None:
    assert normalise("St Mary´s") == "st marys"


def test_punctuation_runs_become_single_spaces() -> None:
    assert normalise("St. Mary’s C of E (VA) School") == "st marys c of e va school"
    assert normalise("  Oak -- Tree / Primary!! ") == "oak tree primary"


def test_ampersand_reads_as_and() -> None:
    assert normalise("Arts & Science") == normalise("Arts and Science") == "arts and science"
    assert normalise("Arts&Science") == "arts and science"


@pytest.mark.parametrize(
    ("accented", "folded"),
    [
        ("École Élémentaire", "ecole elementaire"),
        ("Ysgol Bro Ŵyr", "ysgol bro wyr"),
        ("Ysgol Gymraeg Llundain Ÿ", "ysgol gymraeg llundain y"),
        ("Crème Brûlée", "creme brulee"),
    ],
)
def test_accents_fold_to_their_base_letters(accented: str, folded: str) -> None:
    assert normalise(accented) == folded


def test_tokens_split_the_normalised_text() -> None:
    assert tokens("St Mary’s C.E. Primary") == ("st", "marys", "c", "e", "primary")


@pytest.mark.parametrize("empty", [None, "", "   ", "--", "’"])
def test_tokens_of_nothing_is_empty(empty: str | None) -> None:
    assert tokens(empty) == ()


@settings(max_examples=50)
@given(st.text(max_size=40))
def test_normalised_text_is_lower_case_alphanumeric_words_single_spaced(raw: str) -> None:
    assert NORMAL_FORM.fullmatch(normalise(raw))


@settings(max_examples=50)
@given(st.text(max_size=40))
def test_normalise_is_idempotent(raw: str) -> None:
    once = normalise(raw)
    assert normalise(once) == once


@settings(max_examples=50)
@given(st.text(alphabet=string.ascii_letters + string.digits + " '’.,-&()", max_size=40))
def test_normalise_ignores_case_of_ascii_text(raw: str) -> None:
    assert normalise(raw.upper()) == normalise(raw.lower()) == normalise(raw)


def _normalise_always_folding(text: str) -> str:
    """The rule as first written: every text through NFKD and the combining-mark filter."""
    import unicodedata

    folded = unicodedata.normalize("NFKD", re.sub(r"['’‘`´]", "", text))
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    folded = folded.lower().replace("&", " and ")
    return re.sub(r"[^0-9a-z]+", " ", folded).strip()


@given(st.one_of(st.text(max_size=40), st.text(alphabet=string.printable, max_size=40)))
def test_the_ascii_shortcut_gives_what_folding_every_text_gives(text: str) -> None:
    assert normalise(text) == _normalise_always_folding(text)


def test_schools_share_their_search_words_rather_than_each_holding_a_copy() -> None:
    a, b = (
        School(urn=Urn(urn), name=f"St Mary's Primary {urn}", la_name="Tower Hamlets")
        for urn in (100001, 100002)
    )
    assert a.search_text.name_tokens[:3] == ("st", "marys", "primary")
    for mine, theirs in zip(
        a.search_text.name_tokens[:3], b.search_text.name_tokens[:3], strict=True
    ):
        assert mine is theirs
    assert a.search_text.authority is b.search_text.authority
    assert a.search_text.other_tokens[0] is b.search_text.other_tokens[0]


def _by_the_rules(text: str) -> str:
    """ASCII text normalised by the rules alone (no shortcut for text already normal)."""
    joined = re.sub(r"['`]", "", text).lower().replace("&", " and ")
    return re.sub(r"[^0-9a-z]+", " ", joined).strip()


@settings(max_examples=500)
@given(st.text(alphabet="aZ09 '`&.-\t", max_size=12) | st.sampled_from(["a b", " a", "a ", "ab"]))
def test_ascii_text_already_normal_or_not_normalises_as_the_rules_say(text: str) -> None:
    assert normalise(text) == _by_the_rules(text)
