"""The real clock and a cryptographic id source."""

from __future__ import annotations

import datetime as dt
import os
import secrets
import string
import threading
import time

BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase


class SystemClock:
    def now(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC)

    def timestamp(self) -> float:
        return time.time()


class SecureIds:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._usable = ""  # base62 characters from the OS's random bytes
        self._at = 0  # where the ones not yet handed out start
        self._pid = os.getpid()

    def random_base62(self, *, length: int) -> str:
        return "".join(secrets.choice(BASE62) for _ in range(length))

    def request_id(self) -> str:
        # This runs on every request, so the work is done in C, a few thousand ids to one OS
        # random call: its bytes mapped to base62 by a table, and bytes >= 248 (= 4 x 62)
        # dropped so that every character is uniform (rejection sampling). A forked process
        # draws its own (the same characters twice would be the same ids).
        with self._lock:
            at = self._at
            if at + 20 > len(self._usable) or self._pid != os.getpid():
                self._pid = os.getpid()
                drawn = os.urandom(RANDOM_BYTES_PER_DRAW).translate(_BASE62_OF_BYTE)
                self._usable, at = drawn.replace(b"-", b"").decode("ascii"), 0
            self._at = at + 20
            return "req_" + self._usable[at : at + 20]


RANDOM_BYTES_PER_DRAW = 4096
# Byte b < 248 -> BASE62[b % 62]; the rest -> "-" (rejected).
_BASE62_OF_BYTE = bytes(ord(BASE62[b % 62]) if b < 248 else ord("-") for b in range(256))
