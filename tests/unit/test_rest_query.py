"""The query string's decoding is `urllib`'s, `+` read as a space, whatever the escapes."""

from __future__ import annotations

from urllib.parse import unquote_to_bytes

from hypothesis import given
from hypothesis import strategies as st

from schooldata.entrypoints.rest.query import _decode, parse_query


@given(st.text(alphabet="%20+aFg5", max_size=24))
def test_a_value_decodes_exactly_as_urllib_decodes_it(text: str) -> None:
    raw = text.encode()
    assert _decode(raw) == unquote_to_bytes(raw.replace(b"+", b" "))


def test_an_escaped_escape_stays_a_percent_sign_and_digits() -> None:
    assert parse_query(b"query=st%2520mary%20school") == {"query": "st%20mary school"}
