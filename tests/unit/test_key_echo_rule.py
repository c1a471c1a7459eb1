"""The one rule for repeating what a caller sent (`domain.errors.without_keys`): anything shaped
like an API key is cut to its display prefix; the bytes form (an encoded answer) agrees with
the text form, and leaves an answer with no key untouched (the very same object)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from schooldata.domain.errors import without_keys, without_keys_in

KEY = "svc_live_AbCd" + "e" * 34
PIECES = st.lists(
    st.sampled_from([KEY, "svc_test_WXYZ0123456789", "svc_live_", "svc_", "abc", " ", '"', "é"]),
    max_size=6,
).map("".join)


def test_a_key_is_cut_to_its_display_prefix_wherever_it_stands() -> None:
    assert without_keys(KEY) == "svc_live_AbCd..."
    assert without_keys(f"x{KEY}y") == "xsvc_live_AbCd..."
    assert without_keys("svc_live_Ab") == "svc_live_Ab"  # no key: too short to be one


@given(PIECES)
def test_the_bytes_form_agrees_with_the_text_form(text: str) -> None:
    encoded = json.dumps({"echo": text}).encode()
    assert without_keys_in(encoded) == json.dumps({"echo": without_keys(text)}).encode()


def test_an_answer_without_a_key_is_returned_as_it_is() -> None:
    body = b'{"result": "svc_score"}'
    assert without_keys_in(body) is body
