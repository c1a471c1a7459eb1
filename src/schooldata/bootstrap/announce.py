"""`Serving on ...`, said once the server answers: a first start builds the demo and forks
workers before anything listens, and a line printed earlier sends people to a dead port."""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Callable

from schooldata.settings import WILDCARD_HOSTS

# Liveness: answered by any worker as soon as it runs, touching no dependency.
PROBE_PATH = "/health"


def announce_when_answering(
    host: str,
    port: int,
    notify: Callable[[str], None],
    *,
    interval: float = 0.05,
    patience: float = 300.0,
) -> threading.Thread:
    """Say where the server is once `GET /health` answers 200 there (a daemon thread, polling
    every `interval` seconds); after `patience` seconds without an answer, say that instead."""
    reached = WILDCARD_HOSTS.get(host, host)
    shown = f"[{host}]" if ":" in host else host

    def watch() -> None:
        deadline = time.monotonic() + patience
        while time.monotonic() < deadline:
            if _answers(reached, port):
                notify(f"Serving on http://{shown}:{port} (Ctrl+C stops)")
                return
            time.sleep(interval)
        notify(f"The server has not answered on {shown}:{port} after {patience:.0f} s.")

    thread = threading.Thread(target=watch, name="schooldata-announce", daemon=True)
    thread.start()
    return thread


def _answers(host: str, port: int) -> bool:
    connection = http.client.HTTPConnection(host, port, timeout=2)
    try:
        connection.request("GET", PROBE_PATH)
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()
