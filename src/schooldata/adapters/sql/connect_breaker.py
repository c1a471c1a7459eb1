"""A circuit breaker on new PostgreSQL connections.

While the server is unreachable every connect waits out `connect_timeout` (5 s) in one of the
app server's few worker threads; with more requests than threads the rest queue behind them
and answers take as long as the outage. After a connect fails, the breaker fails the next ones
at once, with the driver's own `OperationalError` (so every caller reports it as before: a
503), except one trial connect per `retry_seconds`. Trials start on that schedule whether or
not an earlier one is still waiting for its timeout, so the service sees the server come back
within `retry_seconds`, and at most `connect_timeout / retry_seconds` threads wait on a dead
server at once. Any successful connect closes the breaker.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Final

RETRY_SECONDS: Final = 1.0


class ConnectBreaker:
    def __init__(
        self, *, retry_seconds: float = RETRY_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._retry = retry_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._failing = False
        self._next_trial = 0.0

    def admit(self) -> bool:
        """Whether a new connect may be attempted now (while failing: the next trial's turn)."""
        with self._lock:
            if not self._failing:
                return True
            now = self._clock()
            if now < self._next_trial:
                return False
            self._next_trial = now + self._retry
            return True

    def failed(self) -> None:
        with self._lock:
            if not self._failing:
                self._failing = True
                self._next_trial = self._clock() + self._retry

    def succeeded(self) -> None:
        with self._lock:
            self._failing = False
