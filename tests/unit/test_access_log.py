"""The access log's direct path writes exactly the line the logging path writes."""

from __future__ import annotations

import datetime as dt
import io
import json
import logging
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schooldata.entrypoints.observability.access import AccessLog
from schooldata.entrypoints.observability.logs import _timestamp, configure_logging

ENTRY = {
    "request_id": "req_abcdefghij0123456789",
    "tier": "public",
    "route": "/api/v1/search",
    "method": "GET",
    "path": "/api/v1/search",
    "status": 200,
    "latency_ms": 0.42,
    "bytes": 1234,
    "query": "query=st%20mary&api_key=secret",
}


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


def lines(buffer: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in buffer.getvalue().splitlines()]


def test_the_direct_line_is_the_formatted_line(stream: io.StringIO) -> None:
    root = logging.getLogger()
    # pytest adds its capturing handlers to the root logger for the test body: keep only ours.
    root.handlers[:] = [h for h in root.handlers if type(h) is logging.StreamHandler]
    log = AccessLog()
    assert log._direct_handler() is not None  # the standard configuration: direct
    log.write(dict(ENTRY))
    access = logging.getLogger("schooldata.access")
    always = logging.Filter("")  # any filter (this one lets everything through)...
    access.addFilter(always)
    try:
        assert log._direct_handler() is None  # ...sends lines down the logging path
        log.write(dict(ENTRY))
    finally:
        access.removeFilter(always)
    direct, standard = lines(stream)
    assert direct.pop("ts") and standard.pop("ts")
    assert direct == standard
    assert direct["query"] == "query=st%20mary&api_key=[redacted]"
    assert list(direct)[:3] == ["level", "logger", "message"]


def test_a_capturing_handler_still_sees_every_access_record(
    stream: io.StringIO, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="schooldata.access"):
        AccessLog().write(dict(ENTRY))
    (record,) = [r for r in caplog.records if r.name == "schooldata.access"]
    assert record.getMessage() == "request"
    assert record.__dict__["request_id"] == ENTRY["request_id"]


def test_nothing_is_written_below_the_access_loggers_level(stream: io.StringIO) -> None:
    access = logging.getLogger("schooldata.access")
    access.setLevel(logging.WARNING)
    try:
        AccessLog().write(dict(ENTRY))
    finally:
        access.setLevel(logging.NOTSET)
    assert stream.getvalue() == ""


@given(st.floats(min_value=0, max_value=4e9, allow_nan=False, allow_infinity=False))
def test_a_log_timestamp_is_what_datetime_writes_for_the_same_instant(created: float) -> None:
    expected = dt.datetime.fromtimestamp(created, dt.UTC).isoformat(timespec="milliseconds")
    assert _timestamp(created) == expected
    assert _timestamp(created) == expected  # and again, from the per-millisecond reuse
