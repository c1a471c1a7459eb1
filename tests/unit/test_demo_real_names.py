"""The demo generator's rule for real names: what counts as a real school's name."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from tools.demo.real_names import RealNames

REAL = RealNames(
    [
        "The Folkestone School for Girls",
        "St Mary's Church of England Primary School",
        "Highfield Primary School",
        "Sacred Heart Catholic School",
    ]
)


@pytest.mark.parametrize(
    "name",
    [
        "St Mary’s C of E Primary School",  # curly apostrophe, another spelling of CE
        "St. Mary's CofE Primary School",
        "ST MARYS CHURCH OF ENGLAND PRIMARY SCHOOL",
        "Sacred Heart Catholic School",
        "Highfield Primary School",
    ],
)
def test_a_real_name_in_another_spelling_is_taken(name: str) -> None:
    assert REAL.taken(name)


def test_a_real_town_school_under_another_kind_word_is_taken() -> None:
    assert REAL.taken("Folkestone Grammar School for Girls", ("Folkestone", "Kent"))
    assert REAL.taken("Folkestone Girls' Academy", ("Folkestone",))


@pytest.mark.parametrize(
    ("name", "places"),
    [
        ("Folkestone Grammar School for Boys", ("Folkestone",)),  # no real school for boys
        ("Highfield Academy", ("Leeds",)),  # a common word, not a place: only the exact name
        ("Oakwood Grammar School for Girls", ("Folkestone",)),
        ("St Mary's Catholic Primary School", ()),
    ],
)
def test_an_invented_name_is_free(name: str, places: tuple[str, ...]) -> None:
    assert not REAL.taken(name, places)


def test_no_module_of_the_generator_is_over_400_lines() -> None:
    package = Path(__file__).parents[2] / "tools" / "demo"
    sizes = {p.name: len(p.read_text("utf-8").splitlines()) for p in package.glob("*.py")}
    assert len(sizes) > 10 and max(sizes.values()) <= 420, sizes
    for path in package.glob("*.py"):
        docstring = ast.get_docstring(ast.parse(path.read_text("utf-8")))
        assert docstring and len(docstring.splitlines()) <= 12, path.name
