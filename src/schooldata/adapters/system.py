"""The real clock and a cryptographic id source."""

from __future__ import annotations

import datetime as dt
import os
import secrets
import string

BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase


class SystemClock:
    def now(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC)


class SecureIds:
    def random_base62(self, *, length: int) -> str:
        return "".join(secrets.choice(BASE62) for _ in range(length))

    def request_id(self) -> str:
        # This runs on every request, so the work is done in C: one OS random call, bytes
        # mapped to base62 by a table, and bytes >= 248 (= 4 x 62) dropped so that every
        # character is uniform (rejection sampling). 32 bytes leave ~31 usable on average;
        # fewer than 20 is vanishingly rare and simply draws again.
        while True:
            usable = os.urandom(32).translate(_BASE62_OF_BYTE).replace(b"-", b"")
            if len(usable) >= 20:
                return "req_" + usable[:20].decode("ascii")


# Byte b < 248 -> BASE62[b % 62]; the rest -> "-" (rejected).
_BASE62_OF_BYTE = bytes(ord(BASE62[b % 62]) if b < 248 else ord("-") for b in range(256))
