"""How the server process treats connections: what `schooldata serve` hands granian, and the
open-file limit every connection counts against.

A connection that is idle, or that sends its request head slowly (slowloris), must not hold a
place that a real request needs: it is closed once the header timeout passes, and each
worker admits far more connections than an idle crowd of a thousand would take. Each
connection is a file descriptor, so the process raises its soft open-file limit to the hard
limit at start, and a worker never admits more connections than that limit leaves room for.
The measurements behind these choices are in docs/reliability.md ("Connections").
"""

from __future__ import annotations

import logging
import resource
from typing import Any, Final

log = logging.getLogger("schooldata.server")

# Descriptors a worker needs besides its client connections: the listening socket, database
# connections (a pool and one per worker thread on SQLite), the rate-window file, logs.
RESERVED_FILES: Final = 256
# The kernel's queue of connections not yet accepted (capped by net.core.somaxconn).
LISTEN_BACKLOG: Final = 2048
# Linux refuses a soft limit above fs.nr_open (1,048,576 by default) even when the hard limit
# is unlimited; macOS refuses one above OPEN_MAX (10,240). Tried in this order.
_FALLBACK_LIMITS: Final = (1_048_576, 65_536, 10_240)


def raise_open_file_limit() -> int:
    """Raise this process's soft RLIMIT_NOFILE as far as its hard limit allows (processes it
    starts inherit it) and return the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    unlimited = resource.RLIM_INFINITY
    if soft == unlimited:
        return _FALLBACK_LIMITS[0]
    candidates = [] if hard == unlimited else [hard]
    candidates += [limit for limit in _FALLBACK_LIMITS if hard == unlimited or limit < hard]
    for wanted in candidates:  # largest first
        if soft >= wanted:
            break
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):
            continue
        break
    current = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return _FALLBACK_LIMITS[0] if current == unlimited else current


def connections_per_worker(wanted: int, open_files: int) -> int:
    """The connections one worker admits at once: `wanted` (settings.max_connections), less
    when the open-file limit leaves no room for them (a warning says so)."""
    room = max(1, open_files - RESERVED_FILES)
    if wanted <= room:
        return wanted
    log.warning(
        "open-file limit %d leaves room for %d connections per worker, not the %d configured "
        "(SCHOOLDATA_MAX_CONNECTIONS); raise the hard limit (ulimit -Hn, LimitNOFILE=)",
        open_files,
        room,
        wanted,
    )
    return room


def granian_connection_options(
    *, header_timeout_seconds: int, max_connections: int, open_files: int
) -> dict[str, Any]:
    """Keyword arguments for `granian.Granian`: HTTP/1.1 with keep-alive, the header timeout,
    the listen backlog and the per-worker connection bound (granian's `backpressure`: the
    connections a worker has accepted and not yet closed, idle ones included)."""
    from granian.constants import HTTPModes
    from granian.http import HTTP1Settings

    return {
        # HTTP/1 only. In `auto` mode granian reads a new connection's first bytes itself, to
        # tell HTTP/1 from HTTP/2, with no timeout: a connection that never sends a byte is
        # held for ever (measured, docs/reliability.md). Handed the connection at once, hyper
        # runs its header read timeout from accept, while headers trickle in, and again from
        # each response while a keep-alive connection waits for its next request: one timer
        # closes idle, silent and slow connections alike.
        "http": HTTPModes.http1,
        "http1_settings": HTTP1Settings(
            header_read_timeout=header_timeout_seconds * 1000, keep_alive=True
        ),
        "backlog": LISTEN_BACKLOG,
        "backpressure": connections_per_worker(max_connections, open_files),
    }
