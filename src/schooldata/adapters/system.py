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
        return "req_" + self.random_base62(length=20)
