"""DNS-rebinding protection for the MCP endpoint: an `Origin`, when a browser sends one, must
be one of the names the server answers to (`entrypoints/hosts.py`, the one allow-list).

The request's `Host` is judged once, by the HTTP edge, before this endpoint runs. The SDK's own
check is off: it matches a `host:*` pattern by prefix, so `127.0.0.1:8790@evil.example`
passed it, and it cannot say "any host" for a deployment that allows every name behind its
proxy.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from schooldata.entrypoints.hosts import HostPolicy

Scope = MutableMapping[str, Any]


class OriginGuard:
    def __init__(self, policy: HostPolicy) -> None:
        self._policy = policy

    def refusal(self, scope: Scope) -> tuple[int, str, str] | None:
        """None when the request may go on; else (status, code, message): 403 for a foreign
        `Origin` (its first value, as a browser sends one)."""
        for name, value in scope.get("headers", ()):
            if name == b"origin":
                if value and not self._policy.allows_origin(bytes(value).decode("latin-1")):
                    return 403, "forbidden_origin", "Requests from that origin are not accepted."
                return None
        return None
