"""How the server process treats connections: what `schooldata serve` hands granian, and the
open-file limit every connection counts against.

A connection that is idle, or that sends its request head slowly (slowloris), must not hold a
place that a real request needs: it is closed once the header timeout passes, and each
worker admits far more connections than an idle crowd of a thousand would take. A request
body must arrive within the body timeout (the HTTP edge, `entrypoints/rest/edge.py`), and
an answer must be taken: a client that takes none of it for the answer timeout loses the
connection (`time_out_unread_answers`). Each connection is a file descriptor, so the process
raises its soft open-file limit to the hard limit at start, and a worker never admits more
connections than that limit leaves room for. The measurements behind these choices are in
docs/reliability.md ("Connections").
"""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import socket
import threading
import time
from pathlib import Path
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


# How long a worker looks for its listening socket (granian binds it after building the app).
LISTENER_SEARCH_SECONDS: Final = 60.0
_TCP_USER_TIMEOUT: Final = getattr(socket, "TCP_USER_TIMEOUT", 18)  # Linux's number


def time_out_unread_answers(port: int, seconds: int) -> threading.Thread | None:
    """Close a connection whose client takes none of its answer for `seconds`: the kernel's
    TCP_USER_TIMEOUT on this process's listening socket on `port`, which every connection it
    accepts inherits (Linux aborts a connection whose unacknowledged data, or whose peer's
    zero window, has lasted that long; a slow reader that takes some keeps it).

    Why here and not the server's: granian has no write timeout at all, and hyper's header
    timeout starts only once an answer is written, so a client that never reads an answer
    larger than the socket buffers (or a pipeline of them) held its connection for ever. The
    listening socket is granian's, bound in each worker after the app is built: a thread
    looks for it, sets the option once, says so in the log, and ends (the connections the
    worker accepted in the milliseconds before that keep the kernel's default). Linux only
    (elsewhere: None)."""
    if not Path("/proc/self/fd").is_dir():
        return None
    milliseconds = seconds * 1000
    watcher = threading.Thread(
        target=_set_on_listener,
        args=(port, milliseconds),
        name="answer-timeout",
        daemon=True,
    )
    watcher.start()
    return watcher


def _set_on_listener(port: int, milliseconds: int) -> None:
    deadline = time.monotonic() + LISTENER_SEARCH_SECONDS
    while time.monotonic() < deadline:
        found = listening_descriptors(port)
        for fd in found:
            with contextlib.suppress(OSError), socket.socket(fileno=os.dup(fd)) as listener:
                listener.setsockopt(socket.IPPROTO_TCP, _TCP_USER_TIMEOUT, milliseconds)
        if found:
            log.info("unread answers time out after %d s on port %d", milliseconds // 1000, port)
            return
        time.sleep(0.005)
    log.warning("no listening socket on port %d found: unread answers are not timed out", port)


def listening_descriptors(port: int) -> list[int]:
    """This process's file descriptors that are TCP sockets listening on `port`."""
    listening: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                    listening.add(fields[9])
    if not listening:
        return []
    found = []
    for entry in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError, ValueError):
            target = os.readlink(entry)
            if target.startswith("socket:[") and target[8:-1] in listening:
                found.append(int(entry.name))
    return found
