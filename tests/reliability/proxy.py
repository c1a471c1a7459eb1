"""A small TCP proxy on loopback, for simulating a dependency outage without touching it.

The machine's real PostgreSQL and Redis are shared with other test runs: they are never
stopped. Instead the app under test is pointed at a `FaultProxy`, which forwards to the real
service until it is paused:

- `pause("refuse")`: every open connection is dropped at once and new ones are accepted and
  closed straight away (the client sees "connection closed" / "connection refused" at once);
- `pause("blackhole")`: every open connection is dropped and new ones are accepted but never
  answered (the client waits for its own connect or read timeout: a hung network);
- `resume()`: forward again.

Threads only (no event loop shared with the code under test); everything it opens it closes
in `close()`.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

Mode = Literal["refuse", "blackhole"]
_CHUNK = 65536


class FaultProxy:
    def __init__(self, target_port: int, *, target_host: str = "127.0.0.1") -> None:
        self._target = (target_host, target_port)
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(128)
        self._listener.settimeout(0.2)
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()  # every socket of every live connection
        self._held: set[socket.socket] = set()  # blackholed clients, kept silent
        self._mode: Mode | None = None
        self._closed = threading.Event()
        self.accepted = 0
        self.refused = 0
        self._thread = threading.Thread(target=self._accept_loop, name="fault-proxy", daemon=True)
        self._thread.start()

    # ---- control ---------------------------------------------------------------------------
    @property
    def paused(self) -> bool:
        return self._mode is not None

    def pause(self, mode: Mode = "refuse") -> None:
        """Drop every open connection; from now on refuse (or blackhole) new ones."""
        with self._lock:
            self._mode = mode
            doomed = list(self._open)
            self._open.clear()
        for sock in doomed:
            _kill(sock)

    def resume(self) -> None:
        with self._lock:
            self._mode = None
            held = list(self._held)
            self._held.clear()
        for sock in held:
            _kill(sock)

    @contextmanager
    def outage(self, mode: Mode = "refuse") -> Iterator[None]:
        self.pause(mode)
        try:
            yield
        finally:
            self.resume()

    def close(self) -> None:
        self._closed.set()
        self._thread.join(timeout=5)
        with self._lock:
            everything = [*self._open, *self._held]
            self._open.clear()
            self._held.clear()
        for sock in everything:
            _kill(sock)
        self._listener.close()

    def __enter__(self) -> FaultProxy:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # ---- forwarding ------------------------------------------------------------------------
    def _accept_loop(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                mode = self._mode
                if mode == "blackhole":
                    self._held.add(client)
                    self.refused += 1
                    continue
            if mode == "refuse":
                self.refused += 1
                _kill(client)
                continue
            self._connect(client)

    def _connect(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(self._target, timeout=5)
        except OSError:
            _kill(client)
            return
        upstream.settimeout(None)
        client.settimeout(None)
        with self._lock:
            if self._mode is not None:  # paused while connecting
                _kill(client)
                _kill(upstream)
                return
            self._open.update((client, upstream))
            self.accepted += 1
        for source, sink in ((client, upstream), (upstream, client)):
            threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(_CHUNK):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            with self._lock:
                self._open.discard(source)
                self._open.discard(sink)
            _kill(source)
            _kill(sink)


def _kill(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()
