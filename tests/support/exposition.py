"""Prometheus text exposition read back: every line checked, each sample by name and labels."""

from __future__ import annotations

import re

SAMPLE = re.compile(
    r"^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)"
    r'(?P<labels>\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*\})?'
    r" (?P<value>-?[0-9.e+-]+|\+Inf|NaN)$"
)
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\.)*)"')

Series = tuple[str, frozenset[tuple[str, str]]]


def series(name: str, **labels: str) -> Series:
    """A sample's key, whatever order the exposition wrote its labels in."""
    return name, frozenset(labels.items())


def samples(text: str) -> dict[Series, float]:
    """Every sample of the text by `series`, checking each line is valid exposition text."""
    found: dict[Series, float] = {}
    for line in text.splitlines():
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            continue
        match = SAMPLE.match(line)
        assert match, f"not exposition format: {line!r}"
        labels = frozenset(LABEL.findall(match["labels"] or ""))
        key = (match["name"], labels)
        assert key not in found, f"a series written twice: {line!r}"
        found[key] = float(match["value"])
    return found
