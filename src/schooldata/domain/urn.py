"""The Unique Reference Number: the key of every school record."""

from __future__ import annotations

import re
from typing import Any, NoReturn

from schooldata.domain.errors import InvalidUrn

_SIX_DIGITS = re.compile(r"[0-9]{6}")


class Urn:
    """A six-digit URN. Ordering is numeric, which is also the contract's tie-break order.

    A URN is the number a school is known by, so it behaves like one where a caller meets it
    (a library user comparing `school.urn == 138180`, a notebook joining on it):

    - it equals its integer (`Urn(138180) == 138180`) and its six-digit text
      (`Urn(12345) == "012345"`), and nothing else;
    - it hashes as its integer, so in a dict or set `Urn(138180)` and `138180` are ONE key
      (never both). Its text hashes as text: look a URN up by `Urn.parse(text)`, not by the
      text itself;
    - `int(urn)` is its number, `str(urn)` its six digits, `urn.value` the number too.

    Immutable, and ordered against other URNs only.
    """

    __slots__ = ("value",)
    __match_args__ = ("value",)
    value: int

    def __init__(self, value: int) -> None:
        object.__setattr__(self, "value", value)

    @classmethod
    def parse(cls, raw: object, *, parameter: str = "urn") -> Urn:
        """Parse user input: a string of exactly six ASCII digits, or the integer they spell
        (100000 to 999999: JSON callers and CLIs often send a URN as a number). Nothing else.

        Whitespace, signs, unicode digits and five- or seven-digit values are rejected rather
        than repaired, because a repaired key can silently name a different school. An `Urn`
        is already parsed and comes back as it is. `parameter` names the argument in the error.
        """
        if isinstance(raw, Urn):
            return raw
        if isinstance(raw, float) and raw.is_integer():
            raw = int(raw)  # 100001.0 is the integer JSON Schema calls it
        text = str(raw) if isinstance(raw, int) and not isinstance(raw, bool) else raw
        if not isinstance(text, str) or _SIX_DIGITS.fullmatch(text) is None:
            raise InvalidUrn(raw, parameter=parameter)
        return cls(int(text))

    def __str__(self) -> str:
        return f"{self.value:06d}"

    def __repr__(self) -> str:
        return f"Urn({self.value})"

    def __int__(self) -> int:
        return self.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Urn):
            return self.value == other.value
        if isinstance(other, int) and not isinstance(other, bool):
            return self.value == other
        if isinstance(other, str):
            return other == str(self)
        return NotImplemented

    def __lt__(self, other: object) -> bool:
        return self.value < other.value if isinstance(other, Urn) else NotImplemented

    def __le__(self, other: object) -> bool:
        return self.value <= other.value if isinstance(other, Urn) else NotImplemented

    def __gt__(self, other: object) -> bool:
        return self.value > other.value if isinstance(other, Urn) else NotImplemented

    def __ge__(self, other: object) -> bool:
        return self.value >= other.value if isinstance(other, Urn) else NotImplemented

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise AttributeError(f"Urn is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"Urn is immutable: cannot delete {name!r}")

    def __reduce__(self) -> tuple[type[Urn], tuple[int]]:
        return Urn, (self.value,)
