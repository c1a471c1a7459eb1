"""Malformed `Host` values and request targets, sent raw to `schooldata serve --workers 2`
(granian, as an operator runs it), on `/health`, `/mcp` and API routes: each is a 4xx in the
tier's error shape with a request id, never a 500 (issue 51: `Host: a:/b` was granian's plain
500 on every route), and an absolute request target naming another host never reaches an
answer. What is not HTTP at all (a NUL or bare CR in a header, a space in the target, a
non-numeric Content-Length, an unknown HTTP version) never reaches the app: granian's parser
answers a bare 400 and closes (docs/security.md)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from schooldata.bootstrap import bootstrap
from schooldata.settings import load_settings
from tests.e2e.test_hosts_corpus import MALFORMED_HOSTS
from tests.reliability.serving import ServeProcess, fixture_environment, serving
from tests.reliability.support import KEY_SECRET


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServeProcess, str]]:
    tmp_path = tmp_path_factory.mktemp("malformed")
    env = fixture_environment(tmp_path)
    app = bootstrap(
        load_settings(
            {}, database_url=env["SCHOOLDATA_DATABASE_URL"], key_secret=KEY_SECRET, home=tmp_path
        )
    )
    key = app.keys.create_key(organisation="malformed", name="t", plan="enterprise").key
    app.ports.store.close()  # type: ignore[attr-defined]
    with serving(env, tmp_path) as server:
        yield server, key


class Answer:
    def __init__(self, raw: bytes) -> None:
        head, _, self.body = raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        self.status = int(lines[0].split()[1]) if lines[0].startswith("HTTP/") else 0
        self.headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            self.headers[name.strip().lower()] = value.strip()

    def json(self) -> dict[str, object]:
        decoded: dict[str, object] = json.loads(self.body)
        return decoded


def exchange(port: int, request: bytes) -> Answer:
    """One request on a new connection; its whole answer (read until the server closes or
    the declared length has come)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
            head, found, body = data.partition(b"\r\n\r\n")
            length = [
                line.split(b":", 1)[1]
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            ]
            if found and length and len(body) >= int(length[0]):
                break
    return Answer(data)


def routes(key: str) -> list[tuple[bytes, bytes, str]]:
    """(request line, extra header lines and body, the error shape expected)."""
    mcp_body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'
    mcp = (
        b"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        b"MCP-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s"
        % (len(mcp_body), mcp_body)
    )
    keyed = f"Authorization: Bearer {key}\r\n\r\n".encode()
    return [
        (b"GET /health HTTP/1.1", b"\r\n", "public"),
        (b"GET /ready HTTP/1.1", b"\r\n", "public"),
        (b"GET /api/v1/search?query=st HTTP/1.1", b"\r\n", "public"),
        (b"GET /api/get-school?urn=100001 HTTP/1.1", b"\r\n", "public"),
        (b"GET /api/v1/schools?per_page=1 HTTP/1.1", keyed, "commercial"),
        (b"POST /mcp HTTP/1.1", mcp, "mcp"),
    ]


def assert_refused(answer: Answer, status: int, shape: str) -> None:
    assert answer.status == status, (answer.status, answer.body[:200])
    request_id = answer.headers["x-request-id"]
    assert request_id.startswith("req_")
    body = answer.json()
    if shape == "mcp":
        assert body["error"]["data"]["request_id"] == request_id  # type: ignore[index]
    elif shape == "public":
        assert isinstance(body["error"], str) and body["code"]
    else:
        assert body["error"]["request_id"] == request_id  # type: ignore[index]


@pytest.mark.parametrize("host", [*MALFORMED_HOSTS, "two"])
def test_a_malformed_host_is_a_400_with_a_request_id_on_every_route(
    served: tuple[ServeProcess, str], host: str
) -> None:
    server, key = served
    hosts = b"Host: a\r\nHost: a\r\n" if host == "two" else b"Host: %s\r\n" % host.encode()
    for line, rest, shape in routes(key):
        answer = exchange(server.port, line + b"\r\n" + hosts + rest)
        assert_refused(answer, 400, shape)


def test_another_host_is_421_and_never_echoed(served: tuple[ServeProcess, str]) -> None:
    server, key = served
    for line, rest, shape in routes(key):
        answer = exchange(server.port, line + b"\r\nHost: evil.example\r\n" + rest)
        assert_refused(answer, 421, shape)
        assert b"evil" not in answer.body and "evil" not in str(answer.headers)


def test_a_request_target_that_is_no_path_is_a_400_with_a_request_id(
    served: tuple[ServeProcess, str],
) -> None:
    server, _ = served
    for target in (b"*", b"health", b"mcp"):
        for method in (b"GET", b"OPTIONS", b"POST"):
            answer = exchange(
                server.port, method + b" " + target + b" HTTP/1.1\r\nHost: localhost\r\n\r\n"
            )
            assert_refused(answer, 400, "public")


def test_an_http11_request_without_a_host_is_a_400(served: tuple[ServeProcess, str]) -> None:
    server, _ = served
    assert_refused(exchange(server.port, b"GET /health HTTP/1.1\r\n\r\n"), 400, "public")
    empty = b"GET /health HTTP/1.1\r\nHost:\r\n\r\n"
    assert_refused(exchange(server.port, empty), 400, "public")
    assert exchange(server.port, b"GET /health HTTP/1.0\r\n\r\n").status == 200


def test_an_absolute_target_naming_another_host_never_reaches_an_answer(
    served: tuple[ServeProcess, str],
) -> None:
    server, key = served
    local = f"127.0.0.1:{server.port}".encode()
    target = b"GET http://evil.example/api/v1/search?query=st HTTP/1.1\r\n"
    answer = exchange(server.port, target + b"Host: " + local + b"\r\n\r\n")
    assert answer.status == 200
    assert b"evil" not in answer.body and "evil" not in str(answer.headers)
    assert b'"url":"http://' + local + b"/api/v1/schools/" in answer.body
    keyed = b"GET http://evil.example/api/v1/schools?per_page=1 HTTP/1.1\r\n"
    answer = exchange(
        server.port, keyed + b"Host: " + local + f"\r\nAuthorization: Bearer {key}\r\n\r\n".encode()
    )
    assert answer.status == 200 and b"evil" not in answer.body
    assert "evil" not in answer.headers["link"]
    # The other way round: the target names this server, the Host another: refused.
    legit = f"GET http://127.0.0.1:{server.port}/api/v1/search?query=st HTTP/1.1\r\n".encode()
    assert_refused(exchange(server.port, legit + b"Host: evil.example\r\n\r\n"), 421, "public")


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /health HTTP/1.1\r\nHost: loc\x00alhost\r\n\r\n",
        b"GET /he alth HTTP/1.1\r\nHost: localhost\r\n\r\n",
        b"GET /health HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n",
        b"GET /health HTTP/1.1\r\nHost: localhost\r\nX: a\rb\r\n\r\n",
        b"GET /health HTTP/9.9\r\nHost: localhost\r\n\r\n",
        b"GET /health?a=\xff HTTP/1.1\r\nHost: localhost\r\n\r\n",
        b"GET api/v1/search?query=st HTTP/1.1\r\nHost: localhost\r\n\r\n",
        b"GET api/v1/schools HTTP/1.1\r\nHost: localhost\r\n\r\n",
    ],
)
def test_what_is_not_http_is_refused_by_the_servers_parser_with_a_bare_400(
    served: tuple[ServeProcess, str], request_bytes: bytes
) -> None:
    server, _ = served
    answer = exchange(server.port, request_bytes)
    assert answer.status == 400
    assert "x-request-id" not in answer.headers  # it never reached the app
    assert "Traceback" not in server.output()
