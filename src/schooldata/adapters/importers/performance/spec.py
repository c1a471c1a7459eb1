"""How a DfE table is described: per measure code, the columns that may carry it (EES names
first, the older performance-tables names after) and the pupil count it rests on."""

from __future__ import annotations

from collections.abc import Mapping

from attrs import field, frozen


@frozen
class Field:
    """Where one measure is read: candidate columns in order of preference, and the columns
    holding the pupil count it rests on. `count` marks a measure that is itself a count (a
    file with only counts is not the table)."""

    names: tuple[str, ...]
    cohort: tuple[str, ...] = ()
    count: bool = False


Measures = Mapping[str, Field]


@frozen
class Split:
    """A long table's dimension: each value of `column` (compared lower-cased) carries its own
    measures; rows with other values are skipped. `shared` measures describe the whole school
    (the same on each of its rows) and are read once per school and period."""

    column: str
    groups: Mapping[str, Measures]
    shared: Measures = field(factory=dict)


@frozen
class TableSpec:
    dataset: str
    what: str
    measures: Measures  # a file without the split column (EES wide, or the older tables)
    split: Split | None = None
    # Rows are read only where each of these columns, when the file has it, holds one of the
    # values (lower-cased); others are skipped.
    keep: Mapping[str, frozenset[str]] = field(factory=dict)
    # Rows of later periods are skipped: the product serves this period as the newest.
    newest_period: str | None = None
    # Codes said unpublished (then ruled by apply_publication_rules) for a period whose file
    # no longer has their column: Progress 8 has no 2024/25 column, and no value either.
    unpublished: frozenset[str] = frozenset()
