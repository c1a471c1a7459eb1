"""Real school names, which no demo school may carry: served with invented results, a real
name would be a false statement about a real school. Read from the publishers' files given
(DfE's KS4 information file in ../shared/data/performance_tables names every school with
KS4 pupils in England)."""

from __future__ import annotations

import csv
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path

# Columns that hold a school's name in the publishers' files.
NAME_COLUMNS = ("school_name", "EstablishmentName", "LinkName")
# Spellings of one thing, so "St Mary's C of E ..." is the real "St Mary's CE ..." too.
_SAME = (
    (re.compile(r"\b(church of england|c of e|cofe|c e)\b"), "ce"),
    (re.compile(r"\b(roman catholic|r c)\b"), "rc"),
    (re.compile(r"\bsaint\b"), "st"),
    (re.compile(r"&"), " and "),
)


def normal(name: str) -> str:
    """A name as compared: accents, case, punctuation and the spellings above do not count."""
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().casefold()
    text = re.sub(r"['’.]", "", text)
    text = " ".join(re.sub(r"[^a-z0-9&]+", " ", text).split())
    for spelling, same in _SAME:
        text = spelling.sub(same, text)
    return "".join(text.split())


# Words that say what kind of school a name is, not which school.
KIND_WORDS = frozenset(
    [
        "the",
        "school",
        "schools",
        "academy",
        "college",
        "grammar",
        "high",
        "community",
        "primary",
        "secondary",
        "upper",
        "lower",
        "middle",
        "sixth",
        "form",
        "centre",
        "free",
        "studio",
        "and",
        "of",
        "for",
        "further",
        "education",
        "technical",
        "university",
        "utc",
    ]
)


def words(name: str) -> list[str]:
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().casefold()
    return re.sub(r"[^a-z0-9]+", " ", re.sub(r"['’.]", "", text)).split()


def core(name: str) -> str:
    """What tells a school from others of its kind: "Folkestone Grammar School for Girls" and
    "The Folkestone School for Girls" are both "folkestone girls"."""
    return " ".join(w for w in words(name) if w not in KIND_WORDS)


class RealNames:
    def __init__(self, names: Iterable[str]) -> None:
        given = [name for name in names if name.strip()]
        self._normal = frozenset(normal(name) for name in given)
        self._cores = frozenset(core(name) for name in given)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and normal(name) in self._normal

    def taken(self, name: str, places: Iterable[str] = ()) -> bool:
        """Is `name` a real school's? Its very name; or, for a name made of one of `places`
        (a real town or authority), a real school of that place under another kind word:
        a town's grammar school or college is that town's real one."""
        if name in self:
            return True
        text = f" {' '.join(words(name))} "
        named_after_place = any(
            place_words and f" {' '.join(place_words)} " in text
            for place_words in (words(place) for place in places)
        )
        return named_after_place and core(name) in self._cores

    def __len__(self) -> int:
        return len(self._normal)

    @classmethod
    def read(cls, directory: Path) -> RealNames:
        """Every name in the CSV files of `directory` (UTF-8, else cp1252, as published)."""
        files = sorted(directory.glob("*.csv"))
        if not files:
            raise SystemExit(f"no publishers' CSV files with school names in {directory}")
        names: list[str] = []
        for path in files:
            data = path.read_bytes()
            try:
                text = data.decode("utf-8-sig")
            except UnicodeDecodeError:
                text = data.decode("cp1252")
            reader = csv.DictReader(text.splitlines())
            columns = [c for c in NAME_COLUMNS if c in (reader.fieldnames or ())]
            names.extend(row[c] for row in reader for c in columns)
        if not names:
            raise SystemExit(f"no school names ({', '.join(NAME_COLUMNS)}) in {directory}")
        return cls(names)
