"""The Unique Reference Number: the key of every school record."""

from __future__ import annotations

import re

from attrs import frozen

from schooldata.domain.errors import InvalidUrn

_SIX_DIGITS = re.compile(r"[0-9]{6}")


@frozen(order=True)
class Urn:
    """A six-digit URN. Ordering is numeric, which is also the contract's tie-break order."""

    value: int

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
