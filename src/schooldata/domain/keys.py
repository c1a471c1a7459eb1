"""API keys: format, checksum, display prefix and domain-separated hashing.

Format: `svc_live_` or `svc_test_` + 32 base62 random characters + 6 base62 characters of the
CRC32 of the random part. Format and checksum are checked before any store lookup, so typos
and garbage never cost a database query. Stored: HMAC-SHA256(server secret, context label +
whole key) and the display prefix (`svc_live_` + first 4 random characters). The key itself is
never stored, logged or printed after creation.
"""

from __future__ import annotations

import datetime as dt
import enum
import functools
import hashlib
import hmac
import zlib

from attrs import frozen

from schooldata.domain.errors import DomainError

BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
RANDOM_LENGTH = 32
CHECKSUM_LENGTH = 6
HASH_CONTEXT = b"schooldata/api-key/v1\x00"


class KeyKind(enum.Enum):
    LIVE = "live"
    TEST = "test"

    @property
    def prefix(self) -> str:
        return f"svc_{self.value}_"


KEY_PREFIXES = tuple(kind.prefix for kind in KeyKind)


class AuthenticationFailed(DomainError):
    """Any 401: missing, malformed, unknown, revoked or conflicting credentials."""

    code = "invalid_api_key"


class MissingApiKey(AuthenticationFailed):
    code = "missing_api_key"

    def __init__(self) -> None:
        super().__init__("This endpoint needs an API key: send 'Authorization: Bearer <key>'.")


class InvalidApiKey(AuthenticationFailed):
    code = "invalid_api_key"

    def __init__(self, why: str = "The API key is not valid.") -> None:
        super().__init__(why)


class ApiKeyRevoked(AuthenticationFailed):
    code = "api_key_revoked"

    def __init__(self) -> None:
        super().__init__("This API key has been revoked.")


class ConflictingCredentials(AuthenticationFailed):
    """Two different keys: in `Authorization` and `X-API-Key`, or in one of them (`header`)
    sent twice or listing two. The message names what conflicts."""

    code = "conflicting_credentials"

    def __init__(self, header: str | None = None) -> None:
        if header is None:
            message = (
                "'Authorization' and 'X-API-Key' carry different keys; send one key, "
                "preferably as a bearer token."
            )
        else:
            message = (
                f"'{header}' carries different keys (the header sent twice, or one line "
                "listing two); send one key, once."
            )
        super().__init__(message)


def base62(number: int, width: int) -> str:
    digits = []
    for _ in range(width):
        number, rem = divmod(number, 62)
        digits.append(BASE62[rem])
    return "".join(reversed(digits))


def checksum(random_part: str) -> str:
    return base62(zlib.crc32(random_part.encode("ascii")), CHECKSUM_LENGTH)


def compose_key(kind: KeyKind, random_part: str) -> str:
    if len(random_part) != RANDOM_LENGTH or any(c not in BASE62 for c in random_part):
        raise ValueError("the random part must be 32 base62 characters")
    return kind.prefix + random_part + checksum(random_part)


@frozen
class ParsedKey:
    kind: KeyKind
    random_part: str
    text: str

    @property
    def display_prefix(self) -> str:
        return self.kind.prefix + self.random_part[:4]


def parse_key(raw: str) -> ParsedKey:
    """Check shape and checksum; raise InvalidApiKey without saying which part failed."""
    for kind in KeyKind:
        if raw.startswith(kind.prefix):
            body = raw[len(kind.prefix) :]
            # isascii() first: then isalnum() is exactly [0-9A-Za-z], the base62 alphabet.
            if len(body) != RANDOM_LENGTH + CHECKSUM_LENGTH or not (
                body.isascii() and body.isalnum()
            ):
                break
            random_part, check = body[:RANDOM_LENGTH], body[RANDOM_LENGTH:]
            if not hmac.compare_digest(checksum(random_part), check):
                break
            return ParsedKey(kind, random_part, raw)
    raise InvalidApiKey()


def key_hash(secret: bytes, key: str) -> str:
    """HMAC-SHA256 over a context label and the whole key (domain separation)."""
    mac = _context_hmac(secret).copy()  # the secret's key schedule and the label, done once
    mac.update(key.encode("ascii"))
    return mac.hexdigest()


@functools.lru_cache(maxsize=4)
def _context_hmac(secret: bytes) -> hmac.HMAC:
    return hmac.new(secret, HASH_CONTEXT, hashlib.sha256)


@frozen(kw_only=True)
class Organisation:
    slug: str
    name: str
    plan: str


@frozen(kw_only=True)
class ApiKeyRecord:
    """What the store keeps about a key: never the key itself."""

    key_hash: str
    display_prefix: str
    organisation: str
    name: str
    kind: KeyKind
    created_at: dt.datetime
    revoked_at: dt.datetime | None = None

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None
