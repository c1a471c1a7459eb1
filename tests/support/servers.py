"""Real servers on loopback for tests: one starter, used by every suite that needs HTTP."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

GRANIAN_BUFFER_BYTES = 8192 + 4096 * 100
"""granian's HTTP/1 read buffer (hyper's `max_buf_size`, granian's default): `schooldata serve`
hands the app any request that fits it. h11's own default (16 KiB) would refuse a long
request line or not, depending on whether it arrives in one read or two."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def live_server(asgi: Any) -> Iterator[str]:
    """uvicorn in a thread on a free loopback port, configured as a served app runs (no server
    access log; logging left to the process's configuration). Yields the base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        asgi,
        host="127.0.0.1",
        port=port,
        access_log=False,
        log_config=None,
        lifespan="on",
        h11_max_incomplete_event_size=GRANIAN_BUFFER_BYTES,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)
        sock.close()
