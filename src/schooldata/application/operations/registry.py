"""The registry: every operation of the service, declared once, and the entries faces expose.

An entry pairs the public and keyed operations of one address (`GET /api/v1/schools/{urn}`
is the public record anonymously and the joined profile with a key); the pipeline chooses
between them once, from the credentials.
"""

from __future__ import annotations

from collections.abc import Iterator

from schooldata.application.operations.declaration import AnyOperation, Entry
from schooldata.application.operations.history import HISTORY_OPERATIONS
from schooldata.application.operations.lists import LIST_OPERATIONS
from schooldata.application.operations.public import PUBLIC_OPERATIONS
from schooldata.application.operations.records import RECORD_OPERATIONS
from schooldata.application.operations.service import SERVICE_OPERATIONS

OPERATIONS: tuple[AnyOperation, ...] = (
    *PUBLIC_OPERATIONS,
    *SERVICE_OPERATIONS,
    *LIST_OPERATIONS,
    *RECORD_OPERATIONS,
    *HISTORY_OPERATIONS,
)


class Registry:
    def __init__(self, operations: tuple[AnyOperation, ...] = OPERATIONS) -> None:
        self.operations = operations
        self._by_name = {op.name: op for op in operations}
        if len(self._by_name) != len(operations):
            raise ValueError("two operations share a name")
        by_address: dict[tuple[str, str], list[AnyOperation]] = {}
        for op in operations:
            by_address.setdefault((op.method, op.path), []).append(op)
        self._entries: dict[tuple[str, str], Entry] = {}
        for address, ops in by_address.items():
            public = [op for op in ops if op.public]
            keyed = [op for op in ops if not op.public]
            if len(public) > 1 or len(keyed) > 1:
                raise ValueError(f"{address}: more than one operation per tier")
            self._entries[address] = Entry(
                public[0] if public else None, keyed[0] if keyed else None
            )

    def __getitem__(self, name: str) -> AnyOperation:
        return self._by_name[name]

    def entries(self) -> Iterator[tuple[tuple[str, str], Entry]]:
        """(method, path) and its entry, in declaration order."""
        return iter(self._entries.items())

    def entry_of(self, name: str) -> Entry:
        """The entry at the address of operation `name`."""
        op = self._by_name[name]
        return self._entries[(op.method, op.path)]

    @staticmethod
    def pair(public: AnyOperation | None, keyed: AnyOperation | None) -> Entry:
        """An entry a face composes itself (an MCP tool pairs operations of two addresses)."""
        return Entry(public, keyed)


REGISTRY = Registry()
