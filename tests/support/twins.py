"""What the twin tests (a fast road against the framework's road) leave out of their
comparison: headers that vary with the request, not with the road it took."""

from __future__ import annotations

# Ids, clocks, and the rate window's count (the two roads' calls may fall in different
# one-second windows).
PER_REQUEST_HEADERS = frozenset(
    {
        "x-request-id",
        "x-ratelimit-reset",
        "x-ratelimit-remaining",
        "x-quota-reset",
        "content-length",
    }
)
