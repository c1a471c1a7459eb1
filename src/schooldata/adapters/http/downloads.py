"""The Downloader port over httpx: a publisher's file, streamed to a temporary file.

- Streamed in 1 MiB pieces, hashed (SHA-256) as it arrives; never whole in memory.
- Bounded: connect 10 s, each read 60 s; a body over `max_bytes` (1 GiB: the national GIAS
  extract is ~70 MB, Code-Point's zip ~30 MB) is refused as soon as it is announced or
  exceeded.
- Whole or not at all: a body shorter than its Content-Length (a dropped connection, a
  proxy that cut it) is an error, never a file.
- Retried with backoff (1 s, 2 s, 4 s: four attempts) on connection errors, timeouts, cut-off
  bodies, 429 and 5xx; any other status is an answer at once (404/410: not published yet,
  304: not modified, other 4xx: refused).
- Redirects are followed (Code-Point's address redirects to the release's zip); the file is
  named after the address asked for when that names a file (publishers date files by name),
  else after where the redirects ended.
- Identifies itself: `User-Agent: schooldata/<version> (+refresh)`.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import httpx

from schooldata.domain.errors import DownloadFailed
from schooldata.ports.downloads import (
    ByteProgress,
    Downloaded,
    NotModified,
    NotPublished,
    Published,
    Validators,
)

T = TypeVar("T")

MAX_BYTES = 1 << 30
ATTEMPTS = 4
BACKOFF_SECONDS = 1.0
TIMEOUT = httpx.Timeout(60.0, connect=10.0)
CHUNK = 1 << 20
NOT_PUBLISHED = frozenset({404, 410})
RETRIED = frozenset({429})
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")
_FILE_SUFFIXES = (".csv", ".zip", ".gz")


def user_agent() -> str:
    try:
        version = importlib.metadata.version("schooldata")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return f"schooldata/{version} (+refresh)"


class _Retry(Exception):
    """A failure worth another attempt; its text says what happened."""


class HttpDownloader:
    """`transport` and `sleep` are for tests (an httpx mock transport, no real waiting)."""

    def __init__(
        self,
        *,
        max_bytes: int = MAX_BYTES,
        attempts: int = ATTEMPTS,
        backoff_seconds: float = BACKOFF_SECONDS,
        timeout: httpx.Timeout = TIMEOUT,
        directory: Path | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._max_bytes = max_bytes
        self._attempts = attempts
        self._backoff = backoff_seconds
        self._timeout = timeout
        self._directory = directory
        self._transport = transport
        self._sleep = sleep

    @contextmanager
    def download(
        self,
        *,
        url: str,
        validators: Validators | None = None,
        progress: ByteProgress | None = None,
    ) -> Iterator[Downloaded | NotModified | NotPublished]:
        with tempfile.TemporaryDirectory(prefix="schooldata-refresh-", dir=self._directory) as d:
            folder = Path(d)
            yield self._retrying(
                url, lambda client: self._fetch(client, url, validators, progress, folder)
            )

    def probe(
        self, *, url: str, validators: Validators | None = None
    ) -> Published | NotModified | NotPublished:
        return self._retrying(url, lambda client: self._look(client, url, validators))

    # ---- attempts

    def _client(self) -> httpx.Client:
        return httpx.Client(
            follow_redirects=True,
            timeout=self._timeout,
            headers={"User-Agent": user_agent()},
            transport=self._transport,
        )

    def _retrying(self, url: str, attempt: Callable[[httpx.Client], T]) -> T:
        why = ""
        with self._client() as client:
            for number in range(self._attempts):
                if number:
                    self._sleep(self._backoff * 2 ** (number - 1))
                try:
                    return attempt(client)
                except _Retry as retry:
                    why = str(retry)
                except httpx.TransportError as error:
                    why = _transport_error(error)
        raise DownloadFailed(f"{url}: {why} (gave up after {self._attempts} attempts).")

    def _fetch(
        self,
        client: httpx.Client,
        url: str,
        validators: Validators | None,
        progress: ByteProgress | None,
        folder: Path,
    ) -> Downloaded | NotModified | NotPublished:
        with client.stream("GET", url, headers=_conditions(validators)) as response:
            answer = self._answer(url, response)
            if answer is not None:
                return answer
            announced = self._announced(url, response)
            path = folder / _file_name(url, str(response.url))
            digest = hashlib.sha256()
            size = 0
            with path.open("wb") as out:
                for piece in response.iter_bytes(CHUNK):
                    size += len(piece)
                    if size > self._max_bytes:
                        raise self._too_large(url)
                    digest.update(piece)
                    out.write(piece)
                    if progress is not None:
                        progress(response.num_bytes_downloaded, announced)
            received = response.num_bytes_downloaded
            if announced is not None and received != announced:
                raise _Retry(f"the body was cut off: {received:,} of {announced:,} bytes")
            return Downloaded(
                path=path, url=url, sha256=digest.hexdigest(), size=size, validators=_kept(response)
            )

    def _look(
        self, client: httpx.Client, url: str, validators: Validators | None
    ) -> Published | NotModified | NotPublished:
        with client.stream("GET", url, headers=_conditions(validators)) as response:
            answer = self._answer(url, response)
            if answer is not None:
                return answer
            size = self._announced(url, response)
            return Published(url=url, size=size, validators=_kept(response))

    def _answer(self, url: str, response: httpx.Response) -> NotModified | NotPublished | None:
        """The answers that are not a file; None for a 200 whose body is the file."""
        status = response.status_code
        if status == 200:
            return None
        if status == 304:
            return NotModified(url=url)
        if status in NOT_PUBLISHED:
            return NotPublished(url=url, status=status)
        if status in RETRIED or status >= 500:
            raise _Retry(f"HTTP {status} {response.reason_phrase}".strip())
        raise DownloadFailed(f"{url}: HTTP {status} {response.reason_phrase}".strip() + ".")

    def _announced(self, url: str, response: httpx.Response) -> int | None:
        raw = response.headers.get("content-length")
        announced = int(raw) if raw is not None and raw.isdigit() else None
        if announced is not None and announced > self._max_bytes:
            raise self._too_large(url)
        return announced

    def _too_large(self, url: str) -> DownloadFailed:
        return DownloadFailed(
            f"{url}: larger than the {self._max_bytes:,}-byte cap; not downloaded."
        )


def _conditions(validators: Validators | None) -> dict[str, str]:
    headers: dict[str, str] = {}
    if validators is not None and validators.etag:
        headers["If-None-Match"] = validators.etag
    if validators is not None and validators.last_modified:
        headers["If-Modified-Since"] = validators.last_modified
    return headers


def _kept(response: httpx.Response) -> Validators:
    return Validators(
        etag=response.headers.get("etag"), last_modified=response.headers.get("last-modified")
    )


def _file_name(asked: str, final: str) -> str:
    """The asked address's last segment if it names a file, else the final one's."""
    for url in (asked, final):
        segment = httpx.URL(url).path.rsplit("/", 1)[-1]
        name = _SAFE_NAME.sub("_", segment)
        if name.lower().endswith(_FILE_SUFFIXES) and name.strip("._"):
            return name
    return "download"


def _transport_error(error: httpx.TransportError) -> str:
    """What went wrong, in words (httpx's own text; a timeout says which)."""
    if isinstance(error, httpx.TimeoutException):
        return f"timed out ({type(error).__name__})"
    return str(error) or type(error).__name__
