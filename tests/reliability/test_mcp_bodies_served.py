"""MCP request bodies over one kept-alive connection to the real server (granian).

The endpoint stops reading a body once its Content-Length bytes are in, without waiting for
the server's closing message (`routing._peek`). Served by granian, that must leave the
connection as a full read would: every later request on it answered, whether its body came
whole, in parts or chunked.
"""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.test_mcp_support import MODERN, envelope_meta
from tests.reliability.serving import ServeProcess, fixture_environment, serving

HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": MODERN,
    "Mcp-Method": "tools/call",
    "Mcp-Name": "search_schools",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    directory = tmp_path_factory.mktemp("mcp-bodies")
    with serving(fixture_environment(directory), directory, workers=1) as running:
        yield running


def _call(request_id: int, query: str) -> bytes:
    params = {"name": "search_schools", "arguments": {"query": query}, "_meta": envelope_meta()}
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    return json.dumps(message).encode()


def _answer(connection: http.client.HTTPConnection) -> dict[str, Any]:
    response = connection.getresponse()
    body = response.read()
    assert response.status == 200, body[:300]
    decoded: dict[str, Any] = json.loads(body)
    assert decoded["result"]["isError"] is False, body[:300]
    return decoded


def _send_whole(connection: http.client.HTTPConnection, body: bytes) -> None:
    connection.request("POST", "/mcp", body=body, headers=HEADERS)


def _send_in_parts(connection: http.client.HTTPConnection, body: bytes) -> None:
    connection.putrequest("POST", "/mcp")
    for name, value in {**HEADERS, "Content-Length": str(len(body))}.items():
        connection.putheader(name, value)
    connection.endheaders()
    half = len(body) // 2
    connection.send(body[:half])
    time.sleep(0.2)  # the server has the first part, alone, before the rest is sent
    connection.send(body[half:])


def _send_chunked(connection: http.client.HTTPConnection, body: bytes) -> None:
    half = len(body) // 2
    connection.request(
        "POST", "/mcp", body=iter([body[:half], body[half:]]), headers=HEADERS, encode_chunked=True
    )


def test_bodies_whole_in_parts_and_chunked_are_all_answered_on_one_kept_alive_connection(
    server: ServeProcess,
) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    senders = [_send_whole, _send_whole, _send_in_parts, _send_whole, _send_chunked, _send_whole]
    try:
        first = None
        for request_id, send in enumerate(senders, start=1):
            send(connection, _call(request_id, "school"))
            assert _answer(connection)["id"] == request_id
            first = first or connection.sock  # (http.client opens a new one if it was closed)
            assert connection.sock is first, "every answer came on the same connection"
    finally:
        connection.close()
