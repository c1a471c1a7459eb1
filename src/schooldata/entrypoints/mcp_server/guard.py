"""DNS-rebinding protection for the MCP endpoint: the request's `Host` must be one the server
answers to and its `Origin`, when a browser sends one, one of the same names
(`entrypoints/hosts.py`: the one allow-list the HTTP edge judges every request's `Host` by).

The HTTP edge has refused a bad `Host` before this endpoint runs; the check here holds the
endpoint to the same list wherever it is mounted. The SDK's own check is off: it matches a
`host:*` pattern by prefix, so `127.0.0.1:8790@evil.example` passed it, and it cannot say
"any host" for a deployment that allows every name behind its proxy.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from schooldata.entrypoints import hosts
from schooldata.entrypoints.hosts import HostPolicy

Scope = MutableMapping[str, Any]


class HostGuard:
    def __init__(self, policy: HostPolicy) -> None:
        self._policy = policy

    def refusal(self, scope: Scope) -> tuple[int, str, str] | None:
        """None when the request may go on; else (status, code, message): 400 for a `Host`
        that is no host, 421 for one the server does not answer to, 403 for a foreign
        `Origin`."""
        names: list[bytes] = []
        origin: bytes | None = None
        for name, value in scope.get("headers", ()):
            if name == b"host":
                names.append(bytes(value))
            elif origin is None and name == b"origin":
                origin = bytes(value)
        verdict = self._policy.judge(names)
        if verdict == hosts.MALFORMED:
            return 400, "invalid_request", "The Host header must name one host."
        if verdict == hosts.FOREIGN:
            return 421, "misdirected_request", "This server does not answer to that host."
        if origin and not self._policy.allows_origin(origin.decode("latin-1")):
            return 403, "forbidden_origin", "Requests from that origin are not accepted."
        return None
