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
    def parse(cls, raw: object) -> Urn:
        """Parse user input: a string (or int) of exactly six ASCII digits, nothing else.

        Whitespace, signs, unicode digits and five- or seven-digit values are rejected rather
        than repaired, because a repaired key can silently name a different school.
        """
        text = str(raw) if isinstance(raw, int) and not isinstance(raw, bool) else raw
        if not isinstance(text, str) or _SIX_DIGITS.fullmatch(text) is None:
            raise InvalidUrn(raw)
        return cls(int(text))

    def __str__(self) -> str:
        return f"{self.value:06d}"
