"""Every log line's long values are cut with a marker, and a cut never leaves part of a key
that redaction would have masked (observability.capped)."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schooldata.domain.keys import KeyKind, compose_key
from schooldata.entrypoints.observability.access import AccessLog
from schooldata.entrypoints.observability.logs import (
    MAX_LOGGED_VALUE,
    JsonFormatter,
    TextFormatter,
    capped,
    configure_logging,
)

KEY = compose_key(KeyKind.LIVE, "Zq8" * 10 + "Kp")
SECRET_PART = KEY[len("svc_live_") + 4 :]  # all but the display prefix


def leaked(text: str) -> bool:
    """Whether any six consecutive characters of the key past its display prefix show."""
    return any(SECRET_PART[i : i + 6] in text for i in range(len(SECRET_PART) - 5))


@pytest.fixture
def stream() -> Iterator[io.StringIO]:
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    configure_logging("json")
    (handler,) = logging.getLogger().handlers
    buffer = io.StringIO()
    handler.setStream(buffer)  # type: ignore[attr-defined]
    try:
        yield buffer
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])


def test_a_60_kb_query_string_makes_one_short_access_line_that_says_what_was_cut(
    stream: io.StringIO,
) -> None:
    query = "&".join(f"name{i}=value{i}" for i in range(6000))[:60_000]
    AccessLog().write({"path": "/api/v1/search", "query": query, "status": 400})
    (line,) = stream.getvalue().splitlines()
    assert len(line) < MAX_LOGGED_VALUE + 400
    logged = json.loads(line)["query"]
    assert logged == query[:MAX_LOGGED_VALUE] + f"...[cut {60_000 - MAX_LOGGED_VALUE} chars]"


def test_short_values_are_logged_whole(stream: io.StringIO) -> None:
    AccessLog().write({"path": "/api/v1/schools/100001", "query": "q=st+mary&per_page=10"})
    logged = json.loads(stream.getvalue())
    assert (logged["path"], logged["query"]) == ("/api/v1/schools/100001", "q=st+mary&per_page=10")


def test_long_paths_and_messages_are_cut_in_both_formats_and_on_the_logging_path() -> None:
    record = logging.LogRecord("schooldata.test", logging.WARNING, "", 0, "m" * 5000, (), None)
    record.path = "/" + "p" * 9000
    record.user_agent = "agent/" + "u" * 3000
    for formatter in (JsonFormatter(), TextFormatter()):
        line = formatter.format(record)
        assert len(line) < 4 * MAX_LOGGED_VALUE
        assert "...[cut 3976 chars]" in line  # the message
        assert "...[cut 7977 chars]" in line  # the path
        assert "...[cut 1982 chars]" in line  # the user agent


@settings(max_examples=300)
@given(
    before=st.integers(min_value=0, max_value=2 * MAX_LOGGED_VALUE),
    wrapper=st.sampled_from(["{}", "Bearer {}", "X-API-Key: {}", "?api_key={}", "&token={}"]),
)
def test_no_cut_leaves_part_of_a_key_showing(before: int, wrapper: str) -> None:
    value = "x" * before + wrapper.format(KEY) + "y" * MAX_LOGGED_VALUE
    logged = capped(value)
    assert not leaked(logged), logged[max(0, before - 20) : before + 60]
    assert len(logged) <= MAX_LOGGED_VALUE + len("...[cut 999999 chars]")


def test_a_key_right_at_the_cut_is_masked_before_the_cut() -> None:
    for offset in range(MAX_LOGGED_VALUE - len(KEY) - 2, MAX_LOGGED_VALUE + 2):
        logged = capped("/" * offset + KEY + "/" * MAX_LOGGED_VALUE)
        assert not leaked(logged)
        assert "...[cut " in logged
