"""The real clock and a cryptographic id source."""

from __future__ import annotations

import datetime as dt
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
        # One call to the OS generator per id, not one per character: this runs on every
        # request. 16 random bytes cover 62**20 with a negligible modulo bias for an id.
        number = int.from_bytes(secrets.token_bytes(16), "big")
        chars = []
        for _ in range(20):
            number, digit = divmod(number, 62)
            chars.append(BASE62[digit])
        return "req_" + "".join(chars)
