"""What HTTP tests of every face share: the contract's six meter headers and a bearer header."""

from __future__ import annotations

# "Response headers on commercial calls" (the service description), lower-cased as clients
# read them.
METER_HEADERS = (
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "x-quota-limit",
    "x-quota-remaining",
    "x-quota-reset",
)


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}
