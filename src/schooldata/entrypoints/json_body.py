"""JSON request bodies name each member once: `{"urns": [...], "urns": [...]}` is refused, never
resolved to its last value (RFC 8259 leaves duplicates to the reader; a reader that silently
keeps one lets a proxy and the service read two different requests). One rule for every
face that reads a body: REST's (`rest/bodies.py`) and MCP's (`mcp_server/routing.py`).
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

import msgspec


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


# Nothing decoded yet (`duplicate_member`'s `decoded` not given); nothing decodable.
UNREAD: Final = object()
INVALID: Final = object()
_SPACED_COLON: Final = re.compile(rb'"\s+:')


def decoded_or_invalid(body: bytes) -> Any:
    """`json.loads(body)`'s value, or INVALID when it is not JSON (or nested too deep): from
    msgspec's decoder where it accepts the body (the same value, a quarter of the time), else
    `json.loads` itself (NaN, out-of-range numbers, lone surrogates, UTF-16/32, nesting
    msgspec refuses)."""
    try:
        return msgspec.json.decode(body)
    except RecursionError:  # nested deeper than either reader goes
        return INVALID
    except msgspec.MsgspecError:
        pass
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return INVALID


def duplicate_member(body: bytes, decoded: Any = UNREAD) -> str | None:
    """The first member some object of `body` names twice, or None (also for a body that is
    not JSON: its reader says why). `decoded`: the body's value when the caller has it.

    Quick when there is no duplicate, as nearly always: each member's name ends `":` when
    no space comes before its colon, and only an escaped quote inside a string can add an
    `":` of another kind, so the body holds at least as many `":` as names; when the decoded
    value holds exactly that many members, no object names one twice. Otherwise (a space
    before a colon, a count that differs) the body is parsed again to find the name."""
    if _SPACED_COLON.search(body) is None:
        value = decoded_or_invalid(body) if decoded is UNREAD else decoded
        if value is INVALID:
            return None
        if body.count(b'":') == _members(value):
            return None
    try:
        loads(body)
    except DuplicateMember as duplicate:
        return duplicate.name
    except (ValueError, RecursionError):
        return None
    return None


def _members(value: Any) -> int:
    """How many members the objects in `value` hold, all told (a loop: cheaper than
    recursion on the MCP path, where every body is counted)."""
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is dict:
            count += len(item)
            stack.extend(item.values())
        elif type(item) is list:
            stack.extend(item)
    return count
