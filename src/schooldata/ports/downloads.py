"""Driven port: fetching a publisher's file over HTTP into a temporary file."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from attrs import frozen

ByteProgress = Callable[[int, int | None], None]
"""Called with the bytes received so far and the size announced (None when not announced)."""


@frozen(kw_only=True)
class Validators:
    """What a conditional request sends back (`If-None-Match`, `If-Modified-Since`)."""

    etag: str | None = None
    last_modified: str | None = None


@frozen(kw_only=True)
class Downloaded:
    """A whole file: `path` is a temporary file, gone when the download's context ends; its
    name is the last segment of the address it came from (publishers date files by name)."""

    path: Path
    url: str
    sha256: str
    size: int
    validators: Validators


@frozen(kw_only=True)
class Published:
    """A file the publisher has (the answer to a probe, nothing downloaded)."""

    url: str
    size: int | None
    validators: Validators


@frozen(kw_only=True)
class NotModified:
    """The publisher says the file is the one the validators describe (304)."""

    url: str


@frozen(kw_only=True)
class NotPublished:
    """No file at this address (404 or 410): a GIAS file of a day not published yet."""

    url: str
    status: int


class Downloader(Protocol):
    def download(
        self,
        *,
        url: str,
        validators: Validators | None = None,
        progress: ByteProgress | None = None,
    ) -> AbstractContextManager[Downloaded | NotModified | NotPublished]:
        """GET `url` (redirects followed), streamed to a temporary file with its SHA-256.
        Raises DownloadFailed when no whole file can be had: unreachable, a server error
        after the retries, a body shorter than announced, larger than the size cap."""
        ...

    def probe(
        self, *, url: str, validators: Validators | None = None
    ) -> Published | NotModified | NotPublished:
        """What `download` would find, reading no body (for `refresh --dry-run`)."""
        ...
