"""Bytes to text: a file's bytes (gzip or not) decoded as a stream of text pieces.

Publishers disagree about encodings (GIAS writes cp1252, DfE's EES and OS write UTF-8/ASCII,
and developers re-save GIAS extracts as UTF-8), so every file is read as UTF-8 until a byte
proves otherwise, then as strict cp1252. Decoding is streamed: a 1.7M-row file is never
held whole.
"""

from __future__ import annotations

import codecs
import gzip
import io
from collections.abc import Iterator

from schooldata.adapters.importers.files.sources import DataPath, ZipMember, label_of
from schooldata.domain.errors import ImportRejected

_CHUNK = 1 << 20
_GZIP_MAGIC = b"\x1f\x8b"
_BOM = codecs.BOM_UTF8


class _OwningGzip(gzip.GzipFile):
    """gzip over a stream it was given, closing that stream when it closes."""

    def __init__(self, stream: io.BufferedIOBase) -> None:
        super().__init__(fileobj=stream, mode="rb")
        self._stream = stream

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._stream.close()


def _open_raw(path: DataPath) -> io.BufferedIOBase:
    return path.open_binary() if isinstance(path, ZipMember) else path.open("rb")


def open_binary(path: DataPath) -> io.BufferedIOBase:
    # By content, not by name: a `.csv` that is really gzip (or the reverse) still reads.
    with _open_raw(path) as probe:
        magic = probe.read(len(_GZIP_MAGIC))
    raw = _open_raw(path)
    if magic == _GZIP_MAGIC:
        return _OwningGzip(raw)
    return raw


class Utf8OrCp1252:
    """An incremental decoder: UTF-8 first; strict cp1252 from the first non-UTF-8 byte on.

    Switching mid-stream is safe only while everything decoded so far was ASCII (the two
    encodings agree on ASCII). A BOM or any non-ASCII UTF-8 text commits the file to UTF-8,
    so a later stray byte is an error rather than silent mojibake.
    """

    def __init__(self, path: DataPath) -> None:
        self.path = path
        self._decoder: codecs.IncrementalDecoder = codecs.getincrementaldecoder("utf-8")()
        self.encoding = "utf-8"
        self._committed = False
        self._offset = 0
        self._started = False

    def decode(self, chunk: bytes, *, final: bool) -> str:
        if not self._started:
            self._started = True
            if chunk.startswith(_BOM):
                chunk = chunk[len(_BOM) :]
                self._offset = len(_BOM)
                self._committed = True
        if self.encoding == "utf-8":
            pending, _ = self._decoder.getstate()
            try:
                text = self._decoder.decode(chunk, final)
            except UnicodeDecodeError as err:
                # err.object is the pending bytes plus this chunk; what precedes the bad byte
                # decoded as UTF-8, and if any of it was non-ASCII the file is UTF-8 text.
                if self._committed or not err.object[: err.start].isascii():
                    base = self._offset - len(pending)
                    raise self._rejected(err, base, "UTF-8, and earlier text was UTF-8") from err
                self.encoding = "cp1252"
                self._decoder = codecs.getincrementaldecoder("cp1252")()
                self._offset -= len(pending)
                chunk = pending + chunk
            else:
                self._committed = self._committed or not text.isascii()
                self._offset += len(chunk)
                return text
        try:
            text = self._decoder.decode(chunk, final)
        except UnicodeDecodeError as err:
            raise self._rejected(err, self._offset, "cp1252") from err
        self._offset += len(chunk)
        return text

    def _rejected(self, err: UnicodeDecodeError, base: int, why: str) -> ImportRejected:
        byte = err.object[err.start : err.start + 1].hex()
        return ImportRejected(
            f"{label_of(self.path)}: byte 0x{byte} at offset {base + err.start} is not valid "
            f"{why}; the file is neither UTF-8 nor Windows-1252 (cp1252)."
        )


def text_chunks(binary: io.BufferedIOBase, decoder: Utf8OrCp1252) -> Iterator[str]:
    """Decoded text in ~1 MiB pieces, each ending just after a newline (except the last)."""
    tail = ""
    while chunk := _read(binary, decoder.path):
        text = tail + decoder.decode(chunk, final=False)
        cut = text.rfind("\n") + 1
        tail = text[cut:]
        if cut:
            yield text[:cut]
    tail += decoder.decode(b"", final=True)
    if tail:
        yield tail


def _read(binary: io.BufferedIOBase, path: DataPath) -> bytes:
    try:
        return binary.read(_CHUNK)
    except (OSError, EOFError) as err:  # a truncated or corrupt .gz, an unreadable disk
        raise ImportRejected(f"{label_of(path)} cannot be read: {err}") from err
