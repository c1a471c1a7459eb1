"""Who hears what the pipeline decides: the metrics of every face (REST, MCP, CLI)."""

from __future__ import annotations

from typing import Protocol


class CallObserver(Protocol):
    def metered(self, *, face: str, feature: str) -> None:
        """One use of a plan's quota was consumed by `face` for `feature`."""
        ...

    def limited(self, *, face: str, reason: str) -> None:
        """A call was refused by the rate limit or the quota (`reason`: the error code)."""
        ...


class NoObserver:
    def metered(self, *, face: str, feature: str) -> None:
        return None

    def limited(self, *, face: str, reason: str) -> None:
        return None
