"""Text normalisation for search: case-, accent- and punctuation-insensitive tokens."""

from __future__ import annotations

import re
import unicodedata

_APOSTROPHES = re.compile(r"['’‘`´]")
_NON_ALNUM = re.compile(r"[^0-9a-z]+")


def normalise(text: str) -> str:
    """`St. Mary’s C of E (VA) School` -> `st marys c of e va school`.

    Apostrophes join (so `mary's`, `marys` and `mary’s` are one token), `&` reads as `and`,
    accents fold to their base letter, every other punctuation run becomes one space.
    """
    if text.isascii():
        lowered = text.lower()
        if _plain(lowered):  # (most questions: two regular expression passes saved)
            return lowered
    # Apostrophes go first: NFKD would split an acute accent (´) into a space and a mark.
    folded = _APOSTROPHES.sub("", text)
    if not folded.isascii():  # ASCII has nothing to fold (most names): skip the per-char scan
        folded = unicodedata.normalize("NFKD", folded)
        folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    folded = folded.lower().replace("&", " and ")
    return _NON_ALNUM.sub(" ", folded).strip()


def _plain(lowered: str) -> bool:
    """Whether ASCII lower-case text is already normal: letters and digits in words, one
    space apart, none at either end."""
    return (
        lowered.replace(" ", "").isalnum()
        and "  " not in lowered
        and not lowered.startswith(" ")
        and not lowered.endswith(" ")
    )


def tokens(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    return tuple(normalise(text).split())
