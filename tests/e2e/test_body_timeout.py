"""A request body must arrive within the body timeout (`SCHOOLDATA_BODY_TIMEOUT_SECONDS`): past
it the HTTP edge answers 408 in the tier's error shape, with a request id and `Connection:
close`, whatever the route would have answered, and nothing is metered. Driven through the
served ASGI app with a client that sends one byte of its body and then nothing (the server-level
test with thousands of them is tests/reliability/test_bounded_bodies.py)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import issue_key
from tests.support.http import bearer

from schooldata.application.service import Application
from schooldata.bootstrap import build_asgi
from schooldata.settings import load_settings

HOST = (b"host", b"localhost:8000")


def _scope(path: str, headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [HOST, (b"content-type", b"application/json"), *headers],
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 5000),
    }


def _stalled_call(asgi: Any, scope: dict[str, Any]) -> tuple[list[dict[str, Any]], float]:
    """Send one byte of a 60,000-byte body, then nothing; the messages sent back, and how
    long the answer took."""

    async def run() -> tuple[list[dict[str, Any]], float]:
        sent: list[dict[str, Any]] = []
        first = True
        never = asyncio.Event()

        async def receive() -> dict[str, Any]:
            nonlocal first
            if first:
                first = False
                return {"type": "http.request", "body": b"{", "more_body": True}
            await never.wait()  # the rest of the body never comes
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        lifespan_started = asyncio.Event()
        started = time.monotonic()

        # The app's lifespan (the MCP session manager) runs around the call.
        async def lifespan_receive() -> dict[str, Any]:
            if not lifespan_started.is_set():
                lifespan_started.set()
                return {"type": "lifespan.startup"}
            await never.wait()
            return {"type": "lifespan.shutdown"}

        async def lifespan_send(_message: dict[str, Any]) -> None:
            return None

        task = asyncio.create_task(asgi({"type": "lifespan"}, lifespan_receive, lifespan_send))
        await asyncio.sleep(0.2)
        started = time.monotonic()
        await asyncio.wait_for(asgi(scope, receive, send), timeout=10)
        took = time.monotonic() - started
        task.cancel()
        return sent, took

    return asyncio.run(run())


@pytest.fixture
def asgi(app: Application, tmp_path: Path) -> Any:
    settings = load_settings(environ={}, home=tmp_path, body_timeout_seconds=1)
    return build_asgi(app, settings)


def _answer(sent: list[dict[str, Any]]) -> tuple[int, dict[bytes, bytes], Any]:
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], dict(start["headers"]), json.loads(body)


def test_a_body_that_never_finishes_is_408_on_a_commercial_route(
    app: Application, asgi: Any
) -> None:
    key = issue_key(app, "enterprise", org="stalled")
    headers = [
        (b"content-length", b"60000"),
        *((k.lower().encode(), v.encode()) for k, v in bearer(key).items()),
    ]
    sent, took = _stalled_call(asgi, _scope("/api/v1/schools/lookup", headers))
    status, answered, body = _answer(sent)
    assert status == 408 and 0.9 <= took < 3, (status, took)
    assert answered[b"connection"] == b"close"
    assert body["error"]["code"] == "request_timeout"
    assert body["error"]["request_id"] == answered[b"x-request-id"].decode()
    period = app.ports.clock.now().strftime("%Y-%m")
    assert app.ports.quota.used(organisation="stalled-enterprise", period=period) == 0
    assert len([m for m in sent if m["type"] == "http.response.start"]) == 1  # only the 408


def test_a_body_that_never_finishes_is_408_as_json_rpc_on_mcp(asgi: Any) -> None:
    sent, _ = _stalled_call(asgi, _scope("/mcp", [(b"content-length", b"60000")]))
    status, answered, body = _answer(sent)
    assert status == 408
    assert body["id"] is None and body["error"]["code"] == -32600
    assert body["error"]["data"] == {
        "code": "request_timeout",
        "request_id": answered[b"x-request-id"].decode(),
    }


def test_a_chunked_body_that_never_finishes_is_408_too(asgi: Any) -> None:
    sent, _ = _stalled_call(
        asgi, _scope("/api/v1/schools/compare", [(b"transfer-encoding", b"chunked")])
    )
    status, _, body = _answer(sent)
    assert status == 408 and body["error"]["code"] == "request_timeout"
