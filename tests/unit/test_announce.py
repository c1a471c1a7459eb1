"""`Serving on ...` is said once the server answers, never before."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from schooldata.bootstrap.announce import announce_when_answering


class _Health(BaseHTTPRequestHandler):
    ready = threading.Event()

    def do_GET(self) -> None:
        status = 200 if self.path == "/health" and self.ready.is_set() else 503
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[ThreadingHTTPServer]:
    _Health.ready.clear()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()


def test_it_is_said_only_after_health_answers_200(server: ThreadingHTTPServer) -> None:
    said: list[str] = []
    port = server.server_address[1]
    watcher = announce_when_answering("0.0.0.0", port, said.append, interval=0.01)
    watcher.join(timeout=0.3)
    assert said == []  # answering 503: not yet
    _Health.ready.set()
    watcher.join(timeout=5)
    assert said == [f"Serving on http://0.0.0.0:{port} (Ctrl+C stops)"]


def test_a_server_that_never_answers_is_reported_after_the_wait() -> None:
    said: list[str] = []
    with ThreadingHTTPServer(("127.0.0.1", 0), _Health) as unused:
        port = unused.server_address[1]  # bound, never served
        announce_when_answering("127.0.0.1", port, said.append, interval=0.01, patience=0.2).join(
            timeout=5
        )
    assert said == [f"The server has not answered on 127.0.0.1:{port} after 0 s."]
