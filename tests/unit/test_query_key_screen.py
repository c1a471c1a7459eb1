"""The edge's cheap screen for a key in the query string never lets one through: whenever the
full parse finds a key name, the screen said one may be there."""

from __future__ import annotations

from urllib.parse import parse_qsl, quote

from hypothesis import given
from hypothesis import strategies as st

from schooldata.entrypoints.rest.transport import (
    QUERY_KEY_NAMES,
    _escaped_name,
    _may_name_a_key,
    carries_key_in_query,
)

_names = st.one_of(
    st.sampled_from(sorted(QUERY_KEY_NAMES)).map(
        lambda n: "".join(c.upper() if i % 2 else c for i, c in enumerate(n))
    ),
    st.text(alphabet="abcdefkKyY_+% 0123456789", max_size=12),
)
_spellings = st.sampled_from(["plain", "quoted", "spaced"])


def _spell(name: str, how: str) -> str:
    if how == "quoted":
        return quote(name, safe="")
    if how == "spaced":
        return "+" + name + "+"
    return name


@given(st.lists(st.tuples(_names, _spellings, st.text(max_size=5)), max_size=8))
def test_the_screen_passes_every_query_the_full_parse_finds_a_key_in(
    parameters: list[tuple[str, str, str]],
) -> None:
    query = "&".join(f"{_spell(n, how)}={quote(v)}" for n, how, v in parameters).encode()
    pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True)
    named = any(name.strip().lower() in QUERY_KEY_NAMES for name, _ in pairs)
    if named:
        assert _may_name_a_key(query)
    assert carries_key_in_query(query) == named


def test_escaped_and_spaced_key_names_are_found() -> None:
    assert carries_key_in_query(b"q=x&%6Bey=abc")
    assert carries_key_in_query(b"q=x&+api_key+=abc")
    assert carries_key_in_query(b"ACCESS_TOKEN=abc")
    assert not carries_key_in_query(b"name00001=1&" * 1000)
    assert not carries_key_in_query(b"query=" + b"oak+" * 20_000)  # escapes in a value
    assert carries_key_in_query(b"query=" + b"oak+" * 20_000 + b"&api%5Fkey=abc")


@given(st.text(alphabet="ab=&%+k", max_size=40))
def test_the_escaped_name_screen_reads_each_pairs_name_as_a_split_would(query: str) -> None:
    raw = query.encode()
    names = [pair.partition(b"=")[0] for pair in raw.split(b"&")]
    assert _escaped_name(raw) == any(b"%" in n or b"+" in n for n in names)
