"""The query string, parsed once per request, in one linear pass, within documented caps.

Litestar rebuilds `request.query_params` on every access and the old per-name reads made
refusing many parameters quadratic; this reads the raw bytes once. Rules:
- at most `MAX_PARAMETERS` parameters and `MAX_QUERY_BYTES` bytes (400 `too_many_parameters`,
  `query_too_long`), checked before anything is decoded;
- a parameter given twice is refused, never silently resolved to one of its values;
- a value whose bytes are not UTF-8 is refused (a raw cp1252 `%92` would otherwise become
  U+FFFD and quietly search for something else); `+` is a space, as in forms.
"""

from __future__ import annotations

from urllib.parse import unquote_to_bytes

from schooldata.domain.errors import InvalidParameter, QueryTooLong, TooManyParameters

MAX_PARAMETERS = 64
MAX_QUERY_BYTES = 16 * 1024


def parse_query(query_string: bytes) -> dict[str, str]:
    if not query_string:
        return {}
    if len(query_string) > MAX_QUERY_BYTES:
        raise QueryTooLong(MAX_QUERY_BYTES)
    pairs = [pair for pair in query_string.split(b"&") if pair]
    if len(pairs) > MAX_PARAMETERS:
        raise TooManyParameters(MAX_PARAMETERS)
    values: dict[str, str] = {}
    counts: dict[str, int] = {}
    for pair in pairs:
        raw_name, _, raw_value = pair.partition(b"=")
        name = _decode(raw_name).decode("utf-8", "replace")
        if name in values:
            counts[name] = counts.get(name, 1) + 1
            continue
        try:
            values[name] = _decode(raw_value).decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidParameter(
                name, f"{name} is not valid UTF-8 text; percent-encode UTF-8."
            ) from None
    for name, count in counts.items():
        raise InvalidParameter(name, f"{name} was given {count} times; give it once.")
    return values


def _decode(raw: bytes) -> bytes:
    # `%20` (a space, most escapes of a typed query) is replaced in C first: a `%` is no hex
    # digit, so no other escape can overlap one, and `unquote_to_bytes` (Python) runs only
    # for what is left.
    # (`find`, not `in`: `in` over bytes first tries its operand as an int, raising and
    # clearing a TypeError.)
    plain = raw.replace(b"+", b" ")
    if plain.find(b"%") < 0:
        return plain
    plain = plain.replace(b"%20", b" ")
    return unquote_to_bytes(plain) if plain.find(b"%") >= 0 else plain
