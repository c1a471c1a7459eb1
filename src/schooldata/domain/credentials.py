"""Reading the key a request carries: its credential headers, and recognising a key seen
moments ago. Every keyed request runs these, so they live apart from `keys` (whose error
classes keep it interpreted) and are compiled (setup.py)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from schooldata.domain.keys import KEY_PREFIXES, ConflictingCredentials, InvalidApiKey

RECOGNITION_CONTEXT = b"schooldata/recognise-key/v1\x00"


def recognition_key(secret: bytes) -> bytes:
    """The key of `recognise`: derived from the server secret, so a recognition hash means
    nothing to anyone without it (and differs from every stored hash)."""
    return hmac.new(secret, RECOGNITION_CONTEXT, hashlib.sha256).digest()


def recognise(recognition: bytes, key: str) -> bytes:
    """Keyed BLAKE2b-256 of a presented key: how a process recognises a key it authenticated
    moments ago without keeping the key itself. A quarter of `key_hash`'s cost (one C call,
    no HMAC object to copy); never stored, and no substitute for `key_hash`, which stays the
    stored identity."""
    return hashlib.blake2b(
        key.encode("utf-8", "surrogatepass"), key=recognition, digest_size=32
    ).digest()


class Recogniser:
    """`recognise` with one recognition key, for a process that recognises many keys: the
    keyed hash's state after its key is made once and copied for each key (the same bytes as
    `recognise`, without absorbing the key again)."""

    def __init__(self, recognition: bytes) -> None:
        self._keyed = hashlib.blake2b(key=recognition, digest_size=32)

    def __call__(self, key: str) -> bytes:
        state = self._keyed.copy()
        state.update(key.encode("utf-8", "surrogatepass"))
        return state.digest()


def single_header_value(values: Sequence[str], *, header: str) -> str | None:
    """A credential header's value: None when it is absent, the value when it is sent once
    (or repeated identically). The same header sent with different values names two keys,
    which is as conflicting as a Bearer key and an X-API-Key that differ (the refusal names
    `header`). A header repeated may also arrive as one comma-joined line (RFC 9110 5.3):
    keys hold no commas."""
    if len(values) == 1 and "," not in values[0]:
        return values[0]  # (most requests: one line naming one key)
    values = [part for value in values for part in _listed_credentials(value)]
    if not values:
        return None
    first = values[0]
    if any(not hmac.compare_digest(first.encode(), other.encode()) for other in values[1:]):
        raise ConflictingCredentials(header)
    return first


def _listed_credentials(value: str) -> list[str]:
    """`value`, or its parts when it is a comma-joined list of API keys (bare, or as
    `Bearer <key>`); anything else (junk, another scheme's parameters) stays whole, to be
    refused as the invalid credential it is."""
    if "," not in value:
        return [value]
    parts = [part.strip() for part in value.split(",")]
    if all(_names_a_key(part) for part in parts):
        return parts
    return [value]


def _names_a_key(part: str) -> bool:
    scheme, _, rest = part.partition(" ")
    token = rest.strip() if scheme.lower() == "bearer" else part
    return token.startswith(KEY_PREFIXES) and " " not in token


def extract_credentials(authorization: str | None, x_api_key: str | None) -> str | None:
    """The key a request carries, or None if it carries no credentials at all.

    Bearer is preferred; X-API-Key is accepted; both present and different -> conflicting.
    A present but malformed Authorization header is an invalid key, never anonymous access.
    """
    bearer: str | None = None
    if authorization is not None:
        scheme, _, value = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            raise InvalidApiKey("The Authorization header must be 'Bearer <API key>'.")
        bearer = value.strip()
    header_key = x_api_key.strip() if x_api_key is not None else None
    if header_key is not None and not header_key:
        raise InvalidApiKey("The X-API-Key header is empty.")
    if (
        bearer is not None
        and header_key is not None
        and not hmac.compare_digest(bearer.encode(), header_key.encode())
    ):
        raise ConflictingCredentials()
    return bearer if bearer is not None else header_key
