"""Answers sent as JSON made from fragments: each school's shape encoded once per data version
(its own declared Struct, so every shape is still declared once), cut where a distance goes,
and spliced into the rest of the answer encoded with an empty list (or, in an envelope, joined
with its `meta`: `answers.encode_shown`). msgspec's encoder cannot
splice a member into bytes it made, nor reuse bytes it made before (`msgspec.Raw` is refused
by `to_builtins`, which MCP and the CLI use), so the bytes are joined here.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace

encode = msgspec.json.Encoder().encode
_MARK = 0.123456789  # a distance no shown one (four decimals) can be


def cut_at_distance(shape: Any, key: bytes) -> tuple[bytes, bytes]:
    """`shape` (no distance) as JSON, cut where `key` (`,"distanceMiles":`) and a distance go."""
    whole = encode(shape)
    mark = key + encode(_MARK)
    marked = encode(replace(shape, distance_miles=_MARK))
    cut = marked.find(mark)
    before, after = whole[:cut], whole[cut:]
    if cut < 0 or marked != before + mark + after:
        raise AssertionError(f"{type(shape).__name__}'s distance is not where it is cut")
    return before, after


class Members:
    """A JSON array's members as fragments, commas included, ready to join."""

    __slots__ = ("parts",)

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def add(self, before: bytes, after: bytes, key: bytes, distance: float | None) -> None:
        """One shape cut in two (`cut_at_distance`), with `distance` (None: none shown)."""
        if self.parts:
            self.parts.append(b",")
        if distance is None:
            self.parts += (before, after)
        else:
            self.parts += (before, key, encode(distance), after)

    def array(self) -> bytes:
        """The members as one JSON array."""
        return b"".join((b"[", *self.parts, b"]"))

    def spliced(self, document: bytes, empty: bytes) -> bytes:
        """`document` with these members in its one `empty` array (`"data":[]`)."""
        at = document.find(empty)
        if at < 0:
            raise AssertionError("the answer has no empty list to fill")
        at += len(empty) - 1
        return b"".join((document[:at], *self.parts, document[at:]))
