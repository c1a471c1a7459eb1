"""Closed-loop HTTP load from threads, with every answer recorded (start, latency, status)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

import httpx


@dataclass(frozen=True)
class Target:
    label: str
    method: str
    path: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes | None = None


@dataclass(frozen=True)
class Sample:
    label: str
    started: float  # time.monotonic()
    seconds: float
    status: int  # 0: the client gave up (timeout) or the connection failed
    code: str | None
    body: bytes
    headers: tuple[tuple[str, str], ...]

    @property
    def ended(self) -> float:
        return self.started + self.seconds

    def header(self, name: str) -> str | None:
        for key, value in self.headers:
            if key.lower() == name:
                return value
        return None


def error_code(body: bytes) -> str | None:
    import json

    try:
        document = json.loads(body)
    except ValueError:
        return None
    if not isinstance(document, dict):
        return None
    error = document.get("error")
    if isinstance(error, dict):
        return str(error.get("code"))
    code = document.get("code")
    return None if code is None else str(code)


@dataclass
class Load:
    """`clients` threads per target, each sending requests back to back until `stop()`."""

    base: str
    targets: Iterable[Target]
    clients: int = 1
    timeout: float = 30.0
    pause_between: float = 0.0
    samples: list[Sample] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads = [
            threading.Thread(target=self._run, args=(t,), daemon=True)
            for t in self.targets
            for _ in range(self.clients)
        ]

    def start(self) -> Load:
        for thread in self._threads:
            thread.start()
        return self

    def stop(self, join_timeout: float = 30.0) -> list[threading.Thread]:
        """Stop and wait; returns the threads still running (hung clients)."""
        self._stop.set()
        deadline = time.monotonic() + join_timeout
        for thread in self._threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        return [t for t in self._threads if t.is_alive()]

    def _run(self, target: Target) -> None:
        with httpx.Client(base_url=self.base, timeout=self.timeout) as client:
            while not self._stop.is_set():
                started = time.monotonic()
                try:
                    response = client.request(
                        target.method,
                        target.path,
                        headers=dict(target.headers),
                        content=target.body,
                    )
                    status, body = response.status_code, response.content
                    headers = tuple(response.headers.items())
                except httpx.HTTPError:
                    status, body, headers = 0, b"", ()
                sample = Sample(
                    label=target.label,
                    started=started,
                    seconds=time.monotonic() - started,
                    status=status,
                    code=error_code(body) if status >= 400 else None,
                    body=body,
                    headers=headers,
                )
                with self._lock:
                    self.samples.append(sample)
                if self.pause_between:
                    self._stop.wait(self.pause_between)

    def of(self, label: str) -> list[Sample]:
        with self._lock:
            return [s for s in self.samples if s.label == label]
