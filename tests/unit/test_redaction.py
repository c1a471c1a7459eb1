"""`redact` screens each line with substring scans before any regex runs: it must agree with
running every pattern over the whole text, whatever the text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.entrypoints.observability.logs import redact, redact_fully

# Fragments that make each pattern (nearly) match, in both cases, among ordinary text.
FRAGMENTS = st.sampled_from(
    [
        "svc_live_",
        "svc_test_",
        "SVC_LIVE_",
        "ABCD",
        "abcde12345",
        "Bearer ",
        "bEaReR\t",
        "api_key=",
        "APIKEY=",
        "token=",
        "?token=",
        "&TOKEN=",
        ";access_token=",
        "?api_key=",
        "&key=",
        "key=",
        "?",
        "&",
        ";",
        "x-api-key",
        "X-Api-Key",
        '"x-api-key": "',
        "X-API-KEY=",
        "svc_live_ABCDefghijklmnopqrstuvwxyz0123456789ab",
        '": "',
        ": ",
        "=",
        " ",
        '"',
        "'",
        ",",
        "_",
        "é",
        "\u212a",  # KELVIN SIGN: matches "k" case-insensitively
        "\u0131",  # dotless i
    ]
)
TEXTS = st.lists(st.one_of(FRAGMENTS, st.text(max_size=6)), max_size=14).map("".join)


@settings(max_examples=600)
@given(TEXTS)
def test_redact_always_agrees_with_every_pattern_over_the_whole_text(text: str) -> None:
    assert redact(text) == redact_fully(text)


def test_a_keyed_access_line_keeps_its_display_prefix_and_loses_nothing_else() -> None:
    line = '{"key_prefix": "svc_live_abcd", "query": "q=st+mary&per_page=10"}'
    assert redact(line) == line


def test_a_key_in_a_non_ascii_line_is_still_masked() -> None:
    key = "svc_live_ABCDefghijklmnopqrstuvwxyz0123456789ab"
    assert redact(f"école {key}") == "école svc_live_ABCD[redacted]"
