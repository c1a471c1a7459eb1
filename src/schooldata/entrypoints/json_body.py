"""JSON request bodies name each member once: `{"urns": [...], "urns": [...]}` is refused, never
resolved to its last value (RFC 8259 leaves duplicates to the reader; a reader that silently
keeps one lets a proxy and the service read two different requests). One rule for every
face that reads a body: REST's (`rest/bodies.py`) and MCP's (`mcp_server/routing.py`).
"""

from __future__ import annotations

import json
from typing import Any


class DuplicateMember(ValueError):
    """An object names `name` more than once."""

    def __init__(self, name: str) -> None:
        super().__init__(f"duplicate member {name!r}")
        self.name = name


def unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """`json.loads`' `object_pairs_hook`: the object, unless it names a member twice."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                raise DuplicateMember(name)
            seen.add(name)
    return found


def loads(text: str | bytes) -> Any:
    """`json.loads(text)`, refusing an object that names a member twice (DuplicateMember)."""
    return json.loads(text, object_pairs_hook=unique_members)


def duplicate_member(body: bytes) -> str | None:
    """The first member some object of `body` names twice, or None (also for a body that is
    not JSON: its reader says why). A body without escapes is screened by its strings alone:
    without a backslash every `"` ends or starts a string, so a string followed by `:` is a
    member name, and names that are all distinct cannot repeat within one object. Only a
    body whose names repeat somewhere (or with escapes) is parsed to find out."""
    if b"\\" not in body:
        parts = body.split(b'"')
        names = [
            parts[i] for i in range(1, len(parts) - 1, 2) if parts[i + 1].lstrip().startswith(b":")
        ]
        if len(set(names)) == len(names):
            return None
    try:
        loads(body)
    except DuplicateMember as duplicate:
        return duplicate.name
    except (ValueError, RecursionError):
        return None
    return None
