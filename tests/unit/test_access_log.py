"""The access log's direct path writes exactly the line the logging path writes."""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import json
import logging
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schooldata.bootstrap import bootstrap_memory
from schooldata.entrypoints.http.route_table import RouteTable
from schooldata.entrypoints.observability.access import (
    FLUSH_SECONDS,
    MAX_WAITING_CHARS,
    STALE_SECONDS,
    AccessLog,
    milliseconds,
)
from schooldata.entrypoints.observability.logs import configure_logging, timestamp
from schooldata.entrypoints.observability.metrics import Metrics
from schooldata.entrypoints.rest.cors import Cors
from schooldata.entrypoints.rest.edge import HttpEdge
from schooldata.entrypoints.rest.routes import Routes

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


REQUEST_FIELDS = st.fixed_dictionaries(
    {
        "request_id": st.one_of(st.none(), st.just("req_abcdefghij0123456789")),
        "tier": st.sampled_from(["public", "commercial"]),
        "route": st.sampled_from(["/api/v1/search", "/api/v1/schools/{urn}", "(unmatched)"]),
        "method": st.one_of(st.sampled_from(["GET", "HEAD", "POST"]), st.text(max_size=1100)),
        "path": st.one_of(
            st.just("/api/v1/schools/123456"),
            st.text(max_size=1300),
            st.just("/x/svc_live_abcdefghijklmnopqrstuvwxyz" * 40),
        ),
        "status": st.sampled_from([200, 304, 400, 404, 500]),
        "seconds": st.floats(min_value=0, max_value=30, allow_nan=False),
        "size": st.integers(min_value=0, max_value=10**7),
        "query": st.one_of(
            st.none(),
            st.just(b""),
            st.just(b"query=st%20mary&api_key=svc_live_abcdefghijklmnop"),
            st.binary(max_size=1300),
            st.just(b"token=" + b"a" * 1200),
        ),
        "key_prefix": st.one_of(st.none(), st.just("svc_live_ab12")),
    }
)


def _written(fields: dict[str, Any], *, direct: bool) -> str:
    """The line `AccessLog.request` writes, directly or (a filter on the access logger)
    down the logging path."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    configure_logging("json")
    (handler,) = root.handlers
    buffer = io.StringIO()
    handler.setStream(buffer)  # type: ignore[attr-defined]
    access = logging.getLogger("schooldata.access")
    always = logging.Filter("")
    if not direct:
        access.addFilter(always)
    try:
        log = AccessLog()
        assert (log._direct_handler() is not None) is direct
        log.request(**fields)
        log.drain()
    finally:
        access.removeFilter(always)
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
    return buffer.getvalue()


@given(REQUEST_FIELDS)
def test_a_request_line_written_directly_is_the_line_the_formatter_writes(
    fields: dict[str, Any],
) -> None:
    direct, standard = _written(fields, direct=True), _written(fields, direct=False)
    stamp = len('{"ts":"2026-11-28T04:00:00.000+00:00",')
    assert direct.endswith("\n") and direct.count("\n") == 1
    assert direct[:7] == standard[:7] == '{"ts":"'
    assert direct[stamp:] == standard[stamp:]  # the same fields, values and order
    assert "abcdefghijklmnop" not in direct  # never more of a key than its display prefix


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
    assert timestamp(created) == expected
    assert timestamp(created) == expected  # and again, from the per-second reuse


class CountingStream(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)


def direct_log(stream: io.StringIO) -> AccessLog:
    root = logging.getLogger()
    root.handlers[:] = [h for h in root.handlers if type(h) is logging.StreamHandler]
    (handler,) = root.handlers
    handler.setStream(stream)  # type: ignore[attr-defined]
    log = AccessLog()
    assert log._direct_handler() is handler
    return log


def test_on_an_event_loop_lines_are_written_together_soon_after(stream: io.StringIO) -> None:
    counting = CountingStream()
    log = direct_log(counting)

    async def serve() -> tuple[int, int]:
        for n in range(5):
            log.write({**ENTRY, "status": 200 + n})
        waiting = len(lines(counting))
        await asyncio.sleep(FLUSH_SECONDS * 4)
        return waiting, counting.writes

    waiting, writes = asyncio.run(serve())
    assert waiting == 0  # not yet: they wait for one another
    assert [line["status"] for line in lines(counting)] == [200, 201, 202, 203, 204]
    assert writes == 1  # one write for the five


def test_lines_never_wait_past_the_bound_on_what_may_wait(stream: io.StringIO) -> None:
    counting = CountingStream()
    log = direct_log(counting)
    long_path = "/api/v1/search" + "x" * 1000
    per_line = MAX_WAITING_CHARS // 1000

    async def serve() -> int:
        for _ in range(per_line * 3):
            log.write({**ENTRY, "path": long_path})
        return len(lines(counting))

    written_before_the_timer = asyncio.run(serve())
    assert written_before_the_timer >= per_line * 2


def test_the_lines_waiting_are_written_when_the_server_shuts_down(stream: io.StringIO) -> None:
    counting = CountingStream()
    direct_log(counting)
    edge = HttpEdge(
        app=_lifespan_app,
        routes=Routes(bootstrap_memory().pipeline, base_url=None),
        table=RouteTable(),
        new_request_id=lambda: "req_abcdefghij0123456789",
        metrics=Metrics(),
        cors=Cors(()),
    )
    sent: list[str] = []

    async def serve() -> None:
        edge._access.write(dict(ENTRY))
        assert lines(counting) == []
        messages = iter([{"type": "lifespan.shutdown"}])

        async def receive() -> dict[str, object]:
            return next(messages)

        async def send(message: dict[str, object]) -> None:
            sent.append(str(message["type"]))
            if message["type"] == "lifespan.shutdown.complete":
                assert len(lines(counting)) == 1  # written before the server says it is done

        await edge({"type": "lifespan"}, receive, send)

    asyncio.run(serve())
    assert sent == ["lifespan.shutdown.complete"]


async def _lifespan_app(scope: Any, receive: Any, send: Any) -> None:
    message = await receive()
    if message["type"] == "lifespan.shutdown":
        await send({"type": "lifespan.shutdown.complete"})


def test_lines_waiting_for_a_handler_reconfigured_meanwhile_go_to_their_own(
    stream: io.StringIO,
) -> None:
    first, second = io.StringIO(), io.StringIO()
    log = direct_log(first)

    async def serve() -> None:
        log.write({**ENTRY, "status": 200})
        (handler,) = logging.getLogger().handlers
        new = logging.StreamHandler(second)
        new.setFormatter(handler.formatter)
        logging.getLogger().handlers[:] = [new]
        log.write({**ENTRY, "status": 201})
        await asyncio.sleep(FLUSH_SECONDS * 4)

    asyncio.run(serve())
    assert [line["status"] for line in lines(first)] == [200]
    assert [line["status"] for line in lines(second)] == [201]


def test_lines_whose_loop_closed_before_they_were_written_are_not_left_waiting(
    stream: io.StringIO,
) -> None:
    counting = CountingStream()
    log = direct_log(counting)

    async def one_request(status: int) -> None:
        log.write({**ENTRY, "status": status})

    asyncio.run(one_request(200))  # the loop closes before its drain runs
    time.sleep(STALE_SECONDS + 0.1)
    log.write({**ENTRY, "status": 201})  # off any loop: written at once, after the first
    assert [line["status"] for line in lines(counting)] == [200, 201]


@given(st.floats(min_value=0, max_value=3600, allow_nan=False))
def test_a_latency_is_written_in_milliseconds_to_the_hundredth(seconds: float) -> None:
    shown = milliseconds(seconds)
    exact = seconds * 1000
    assert abs(shown - exact) <= 0.005 + 1e-9 * max(1.0, exact)
    assert round(shown, 2) == shown  # no more than two decimals, as written
    if abs(abs(seconds * 100_000 % 1) - 0.5) > 1e-6:  # not on a half: round(ms, 2) exactly
        assert shown == round(exact, 2)
