"""A publisher on loopback for `schooldata refresh`: the publishers' files in their own
layouts, and the publishers' bad days (a file not out yet, a 503, a redirect, a cut-off body).

Nothing here reaches the internet: the server binds 127.0.0.1 on a free port, and tests point
`gias_base_url` / `codepoint_url` at it.
"""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import hashlib
import io
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from schooldata.adapters.sample.demo import DATA

FIXTURES = Path(__file__).parents[1] / "fixtures" / "importers"
LAST_MODIFIED = "Fri, 27 Nov 2026 05:00:00 GMT"
CODEPOINT_PATH = "/downloads/v1/products/CodePointOpen/downloads"
CODEPOINT_ZIP = "/blobs/codepo_gb.zip"
CODEPOINT_RELEASE = dt.date(2025, 10, 20)


class Publisher:
    """What the server answers: `files` by path; `redirects` (302); `failures` (statuses
    answered first, one per request, before the file); `cut` (paths whose body stops half way
    through a longer Content-Length); `holds` (an event the answer waits for). `etags=False`
    serves no validators. Every request is recorded as (path, headers)."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.redirects: dict[str, str] = {CODEPOINT_PATH: CODEPOINT_ZIP}
        self.failures: dict[str, list[int]] = {}
        self.cut: set[str] = set()
        self.holds: dict[str, threading.Event] = {}
        self.etags = True
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.base = ""
        self._lock = threading.Lock()

    # ---- addresses

    @property
    def gias_base_url(self) -> str:
        return f"{self.base}/edubase/downloads/public/"

    @property
    def codepoint_url(self) -> str:
        return f"{self.base}{CODEPOINT_PATH}?area=GB&format=CSV&redirect"

    def publish_gias(self, day: dt.date, data: bytes, *, links: bytes | None = None) -> None:
        folder = "/edubase/downloads/public/"
        self.files[f"{folder}edubasealldata{day:%Y%m%d}.csv"] = data
        if links is not None:
            self.files[f"{folder}links_edubasealldata{day:%Y%m%d}.csv"] = links

    def gias_path(self, day: dt.date, *, links: bool = False) -> str:
        prefix = "links_" if links else ""
        return f"/edubase/downloads/public/{prefix}edubasealldata{day:%Y%m%d}.csv"

    def asked(self, path: str) -> list[dict[str, str]]:
        """The headers of every request for `path`."""
        with self._lock:
            return [headers for asked, headers in self.requests if asked == path]

    # ---- answers

    def answer(self, handler: BaseHTTPRequestHandler) -> None:
        path = urlsplit(handler.path).path
        headers = {k.lower(): v for k, v in handler.headers.items()}
        with self._lock:
            self.requests.append((path, headers))
            failures = self.failures.get(path)
            status = failures.pop(0) if failures else None
        hold = self.holds.get(path)
        if hold is not None:
            hold.wait(60)
        if status is not None:
            _send(handler, status, b"")
        elif path in self.redirects:
            _send(handler, 302, b"", {"Location": f"{self.base}{self.redirects[path]}"})
        elif path not in self.files:
            _send(handler, 404, b"Not Found")
        else:
            self._send_file(handler, path, headers)

    def _send_file(
        self, handler: BaseHTTPRequestHandler, path: str, headers: dict[str, str]
    ) -> None:
        body = self.files[path]
        etag = f'"{hashlib.sha256(body).hexdigest()[:20]}"'
        validators = {"ETag": etag, "Last-Modified": LAST_MODIFIED} if self.etags else {}
        if self.etags and headers.get("if-none-match") == etag:
            _send(handler, 304, b"", validators)
        elif path in self.cut:
            handler.send_response(200)
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body[: len(body) // 2])
            handler.close_connection = True
        else:
            _send(handler, 200, body, validators)


def _send(
    handler: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str] | None = None
) -> None:
    handler.send_response(status)
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    if body:
        handler.wfile.write(body)


@contextmanager
def serving(publisher: Publisher | None = None) -> Iterator[Publisher]:
    """The publisher on a free loopback port, in a thread, for the block."""
    publisher = publisher or Publisher()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            publisher.answer(self)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    publisher.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield publisher
    finally:
        for hold in publisher.holds.values():
            hold.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# ---- files in the publishers' layouts ----------------------------------------------------


def gias_rows() -> tuple[list[str], list[list[str]]]:
    """The bundled demo's GIAS extract (the 2025 layout): header and rows."""
    text = gzip.decompress((DATA / "gias_demo.csv.gz").read_bytes()).decode("cp1252")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    return rows[0], rows[1:]


def gias_file(rows: int = 300, *, renamed: dict[int, str] | None = None) -> bytes:
    """A GIAS extract as GIAS writes it (cp1252, every field quoted, CRLF): the demo's first
    `rows` establishments, some renamed (a new day's file differs from the last)."""
    header, body = gias_rows()
    chosen = [list(row) for row in body[:rows]]
    name = header.index("EstablishmentName")
    for row in chosen:
        if renamed and int(row[0]) in renamed:
            row[name] = renamed[int(row[0])]
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\r\n").writerows([header, *chosen])
    return out.getvalue().encode("cp1252")


def served_urns(data: bytes) -> list[int]:
    rows = list(csv.reader(io.StringIO(data.decode("cp1252"), newline="")))
    status = rows[0].index("EstablishmentStatus (name)")
    return sorted(
        int(r[0]) for r in rows[1:] if r[status] in ("Open", "Open, but proposed to close")
    )


def links_file() -> bytes:
    """GIAS's real links download (cp1252, quoted, CRLF): five links."""
    return (FIXTURES / "links_edubasealldata20250422.csv").read_bytes()


def codepoint_zip(
    areas: tuple[str, ...] = ("al", "bn", "cm", "sm"), *, release: dt.date = CODEPOINT_RELEASE
) -> bytes:
    """Code-Point Open as OS publishes it: `Data/CSV/<area>.csv` (no header) and
    `Doc/metadata.txt` with the release's copyright date, in one zip."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for area in areas:
            rows = gzip.decompress((DATA / "codepoint_demo" / f"{area}.csv.gz").read_bytes())
            archive.writestr(f"Data/CSV/{area}.csv", rows)
        archive.writestr("Doc/metadata.txt", f"COPYRIGHT DATE: {release:%Y%m%d}\r\nRELEASE: GB\r\n")
    return out.getvalue()


def codepoint_rows(areas: tuple[str, ...] = ("al", "bn", "cm", "sm")) -> int:
    return sum(
        len(gzip.decompress((DATA / "codepoint_demo" / f"{a}.csv.gz").read_bytes()).splitlines())
        for a in areas
    )
