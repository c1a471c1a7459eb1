"""Connections that send nothing, or their headers slowly, cannot lock anyone out.

`schooldata serve --workers 2` in a subprocess with a short header timeout
(`SCHOOLDATA_HEADER_TIMEOUT_SECONDS`). 1,100 connections are opened and held: silent ones
(connected, never a byte), slow ones (a request line, then one header byte every 0.4 s:
slowloris) and a few idle keep-alive ones (one answered request, then nothing). What holds
(docs/reliability.md, "Connections"):

- while they are held, `/health` and a search on new connections answer within 1 s;
- the server closes each of them once the header timeout has passed since it opened (or
  since its answer, for keep-alive), and none much earlier.

Before the fix the same 1,100 silent connections kept `/health` from answering at all (granian
admitted backlog / workers = 512 connections a worker, and never closed a connection that
sent nothing).
"""

from __future__ import annotations

import contextlib
import resource
import selectors
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from tests.reliability.serving import ServeProcess, fixture_environment, serving
from tests.reliability.support import record_figures

HELD = 1_100
HEADER_TIMEOUT = 3  # seconds: SCHOOLDATA_HEADER_TIMEOUT_SECONDS for the server under test
ANSWER_BOUND = 1.0
CLOSE_SLACK = 2.5  # scheduling on a loaded 2-core machine, on top of the timeout
EARLY_SLACK = 0.3


def raise_own_file_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        target = hard if hard == resource.RLIM_INFINITY else min(hard, max(needed, 4096))
        if target != resource.RLIM_INFINITY and target < needed:
            pytest.fail(f"the open-file hard limit {hard} is below the {needed} this test holds")
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


class Held:
    """Connections held open, each with the moment it opened (or was last answered) and the
    moment the server closed it (from one epoll over all of them)."""

    def __init__(self) -> None:
        self.sockets: list[socket.socket] = []
        self.since: dict[int, float] = {}
        self.closed_at: dict[int, float] = {}
        self._selector = selectors.DefaultSelector()

    def add(self, sock: socket.socket, since: float) -> None:
        sock.setblocking(False)
        self.sockets.append(sock)
        self.since[sock.fileno()] = since
        self._selector.register(sock, selectors.EVENT_READ)

    def watch(self, seconds: float) -> None:
        """Note every connection the server closes in the next `seconds`."""
        deadline = time.monotonic() + seconds
        while len(self.closed_at) < len(self.sockets) and time.monotonic() < deadline:
            for key, _ in self._selector.select(timeout=0.05):
                sock: socket.socket = key.fileobj  # type: ignore[assignment]
                try:
                    data = sock.recv(4096)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:  # closed (a reset counts too); anything else is a late answer
                    self.closed_at[sock.fileno()] = time.monotonic()
                    self._selector.unregister(sock)

    def lifetimes(self) -> list[float]:
        return [self.closed_at[fd] - self.since[fd] for fd in self.closed_at]

    def close(self) -> None:
        self._selector.close()
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.close()


@contextmanager
def held_connections(port: int, count: int, *, first_bytes: bytes = b"") -> Iterator[Held]:
    held = Held()
    try:
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            opened = time.monotonic()
            if first_bytes:
                sock.sendall(first_bytes)
            held.add(sock, opened)
        yield held
    finally:
        held.close()


def answer_seconds(base: str) -> dict[str, float]:
    """Latency of `/health` and a public search, each on a new connection."""
    timings = {}
    for label, path in (("health", "/health"), ("search", "/api/v1/search?query=st")):
        started = time.monotonic()
        response = httpx.get(base + path, timeout=10, headers={"Connection": "close"})
        timings[label] = time.monotonic() - started
        assert response.status_code == 200, (label, response.status_code)
    return timings


def trickle(held: Held, seconds: float) -> None:
    """Send one more header byte on every open connection, every 0.4 s, for `seconds`,
    noting the connections the server closes meanwhile."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and len(held.closed_at) < len(held.sockets):
        for sock in held.sockets:
            if sock.fileno() not in held.closed_at:
                with contextlib.suppress(OSError):
                    sock.send(b"X")
        held.watch(0.4)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    raise_own_file_limit(HELD + 500)
    tmp_path = tmp_path_factory.mktemp("connections")
    env = fixture_environment(
        tmp_path,
        SCHOOLDATA_HEADER_TIMEOUT_SECONDS=str(HEADER_TIMEOUT),
        SCHOOLDATA_LOG_FORMAT="json",
    )
    with serving(env, tmp_path) as running:
        yield running


def assert_closed_after_the_timeout(held: Held, label: str) -> dict[str, float]:
    assert len(held.closed_at) == len(held.sockets), (
        f"{label}: {len(held.sockets) - len(held.closed_at)} of {len(held.sockets)} "
        f"connections still open {HEADER_TIMEOUT + CLOSE_SLACK} s after the timeout"
    )
    lifetimes = held.lifetimes()
    assert min(lifetimes) >= HEADER_TIMEOUT - EARLY_SLACK, (label, min(lifetimes))
    assert max(lifetimes) <= HEADER_TIMEOUT + CLOSE_SLACK, (label, max(lifetimes))
    return {
        "shortest_seconds": round(min(lifetimes), 2),
        "longest_seconds": round(max(lifetimes), 2),
    }


def test_silent_connections_neither_lock_anyone_out_nor_outlive_the_header_timeout(
    server: ServeProcess,
) -> None:
    with held_connections(server.port, HELD) as held:
        opened = time.monotonic()
        timings = answer_seconds(server.base)
        assert max(timings.values()) < ANSWER_BOUND, timings
        held.watch(HEADER_TIMEOUT + CLOSE_SLACK - (time.monotonic() - opened) + 1.0)
        closed = assert_closed_after_the_timeout(held, "silent")
    assert server.alive()
    record_figures("connections-silent", {"held": HELD, "answer_seconds": timings, **closed})


def test_slow_headers_neither_lock_anyone_out_nor_outlive_the_header_timeout(
    server: ServeProcess,
) -> None:
    with held_connections(
        server.port, HELD, first_bytes=b"GET /health HTTP/1.1\r\nX-Slow: "
    ) as held:
        opened = time.monotonic()
        timings = answer_seconds(server.base)
        assert max(timings.values()) < ANSWER_BOUND, timings
        trickle(held, HEADER_TIMEOUT + CLOSE_SLACK - (time.monotonic() - opened) + 1.0)
        closed = assert_closed_after_the_timeout(held, "slow headers")
    assert server.alive()
    record_figures("connections-slow-headers", {"held": HELD, "answer_seconds": timings, **closed})


def test_an_idle_keep_alive_connection_is_closed_after_the_header_timeout(
    server: ServeProcess,
) -> None:
    held = Held()
    try:
        for _ in range(20):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            answer = sock.recv(4096)
            assert answer.startswith(b"HTTP/1.1 200"), answer[:100]
            held.add(sock, time.monotonic())  # idle from its answer on
        held.watch(HEADER_TIMEOUT + CLOSE_SLACK + 1.0)
        closed = assert_closed_after_the_timeout(held, "keep-alive")
    finally:
        held.close()
    record_figures("connections-keep-alive", closed)
