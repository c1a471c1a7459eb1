"""A 2026-07-28 reply writes a payload's JSON as the text of its second content block by
escaping its backslashes and quotes: the same bytes as encoding the decoded text."""

from __future__ import annotations

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from schooldata.entrypoints.mcp_server.replies import json_string_of

_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(_values)
def test_a_payloads_json_as_a_string_is_its_text_encoded(value: object) -> None:
    payload = msgspec.json.encode(value)
    assert json_string_of(payload) == msgspec.json.encode(payload.decode())
