"""Which representation of a list answer a client gets: JSON or CSV, by its `Accept` header.

RFC 9110 12.5.1: each offered type takes the quality of the most specific media range that
matches it (`text/csv` over `text/*` over `*/*`); the type of highest quality above zero
wins, JSON on a tie (it is the API's own form). No `Accept` (or an empty one) is JSON. A
range's parameters other than `q` are not compared. A `q` that is not a number between 0
and 1 names nothing (quality 0). Nothing acceptable: None (the route answers 406).
"""

from __future__ import annotations

JSON = "application/json"
CSV = "text/csv"
OFFERED = (JSON, CSV)


def _ranges(accept: str) -> list[tuple[str, str, float]]:
    """(type, subtype, quality) of each media range, lower case."""
    ranges = []
    for item in accept.split(","):
        media, *params = item.split(";")
        kind, slash, subtype = media.strip().lower().partition("/")
        if not slash or not kind or not subtype:
            continue
        quality = 1.0
        for param in params:
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                quality = _quality(value.strip())
                break  # parameters after q are accept-extensions
        ranges.append((kind, subtype.strip(), quality))
    return ranges


def _quality(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        return 0.0
    return value if 0.0 <= value <= 1.0 else 0.0


def _quality_of(offered: str, ranges: list[tuple[str, str, float]]) -> float:
    kind, _, subtype = offered.partition("/")
    best_specificity, quality = -1, 0.0
    for r_kind, r_subtype, r_quality in ranges:
        if r_kind == kind and r_subtype == subtype:
            specificity = 2
        elif r_kind == kind and r_subtype == "*":
            specificity = 1
        elif r_kind == "*" and r_subtype == "*":
            specificity = 0
        else:
            continue
        if specificity > best_specificity:
            best_specificity, quality = specificity, r_quality
    return quality


def choose(accept: str | None, offered: tuple[str, ...] = OFFERED) -> str | None:
    """The offered media type to answer in (the first of `offered` on a tie), or None."""
    if accept is None or not accept.strip():
        return offered[0]
    ranges = _ranges(accept)
    chosen, best = None, 0.0
    for media_type in offered:
        quality = _quality_of(media_type, ranges)
        if quality > best:
            chosen, best = media_type, quality
    return chosen
