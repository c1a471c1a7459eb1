"""Which bytes of an answer a client gets: its content coding and its validators.

- Content coding: brotli when the client's `Accept-Encoding` prefers it (q-values; `*` names
  any coding it does not list), gzip otherwise, identity when it accepts neither; only for
  compressible types of at least 1 KiB. Both are deterministic (gzip without a timestamp),
  so one body has one form per coding.
- Validators: a strong ETag per representation (the identity body's XXH3-128,
  `-gzip`/`-br` for the coded forms); `If-None-Match` compares weakly, as RFC 9110 says.

Litestar's CompressionConfig compresses whatever its middleware sees and knows no ETags, so
its coded and identity forms would share a validator; this module keeps the per-representation
validators the caches of this API rely on.
"""

from __future__ import annotations

import gzip
import threading
from binascii import b2a_base64
from collections import OrderedDict
from collections.abc import Sequence

import brotli
from xxhash import xxh3_128_digest

GZIP, BROTLI = "gzip", "br"
MINIMUM_SIZE = 1024
COMPRESSIBLE_TYPES = (
    b"text/",
    b"application/json",
    b"application/javascript",
    b"application/openapi+json",
    b"application/problem+json",
    b"application/xml",
    b"image/svg+xml",
)


def coding_for(accept_encoding: bytes | None) -> str | None:
    """The coding to answer in: `br`, `gzip`, or None (identity)."""
    if not accept_encoding:
        return None
    quality: dict[str, float] = {}
    for item in accept_encoding.decode("latin-1").split(","):
        coding, _, params = item.strip().partition(";")
        q = 1.0
        name, _, value = params.strip().partition("=")
        if name.strip().lower() == "q":
            try:
                q = float(value)
            except ValueError:
                q = 0.0
        quality[coding.strip().lower()] = q
    anything = quality.get("*", 0.0)
    br = quality.get(BROTLI, anything)
    gz = quality.get(GZIP, anything)
    if br > 0 and br >= gz:
        return BROTLI
    if gz > 0:
        return GZIP
    return None


def compressible(content_type: bytes | None, status: int, cache_control: bytes | None) -> bool:
    if status < 200 or status in (204, 304):
        return False
    if cache_control is not None and cache_control.lower().find(b"no-transform") >= 0:
        return False
    kind = (content_type or b"").lower()
    # (`find`, not `in`: see `transport._may_name_a_key`)
    return kind.startswith(COMPRESSIBLE_TYPES) or kind.find(b"+json") >= 0


def encode(body: bytes, coding: str) -> bytes:
    if coding == BROTLI:
        return bytes(brotli.compress(body, quality=4))
    return gzip.compress(body, compresslevel=6, mtime=0)


def strong_etag(body: bytes) -> str:
    """The body's XXH3-128 digest, URL-safe base64 without padding: a tag names a body, it
    proves nothing, so a fast hash of 128 bits serves (SHA-256 cost every answer ~3 us)."""
    digest = xxh3_128_digest(body)
    return b2a_base64(digest, newline=False).translate(_URL_SAFE)[:22].decode("ascii")


_URL_SAFE = bytes.maketrans(b"+/", b"-_")


def tag_of(identity_tag: str, coding: str | None) -> str:
    return identity_tag if coding is None else f"{identity_tag}-{coding}"


def none_match(if_none_match: bytes | None, tags: Sequence[str]) -> bool:
    """True when `If-None-Match` matches one of `tags` (weak comparison)."""
    if not if_none_match:
        return False
    wanted = {f'"{tag}"' for tag in tags}
    for item in if_none_match.decode("latin-1").split(","):
        candidate = item.strip()
        if candidate == "*":
            return True
        if candidate.startswith("W/"):
            candidate = candidate[2:]
        if candidate in wanted:
            return True
    return False


class CodedForms:
    """Coded forms of recent cacheable bodies by validator, bounded by total bytes (each entry
    counted with its key), so popular answers are compressed once."""

    def __init__(self, max_bytes: int = 16 * 1024 * 1024) -> None:
        self._items: OrderedDict[str, bytes] = OrderedDict()
        self._bytes = 0
        self._max = max_bytes
        self._lock = threading.Lock()

    def get(self, tag: str, body: bytes, coding: str) -> bytes:
        with self._lock:
            hit = self._items.get(tag)
            if hit is not None:
                self._items.move_to_end(tag)
                return hit
        coded = encode(body, coding)
        size = len(coded) + len(tag) + 100
        if size <= self._max // 4:
            with self._lock:
                if tag not in self._items:
                    self._items[tag] = coded
                    self._bytes += size
                    while self._bytes > self._max:
                        old_tag, old = self._items.popitem(last=False)
                        self._bytes -= len(old) + len(old_tag) + 100
        return coded
