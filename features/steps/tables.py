"""Answers as tables: what a caller who opens the CSV in a spreadsheet reads, cell by cell."""

from __future__ import annotations

from pytest_bdd import given, parsers, then, when

from features.drivers import Driver
from features.drivers.world import World


@given(parsers.parse("the publisher names school {urn:d} {name}"))
def _(world: World, urn: int, name: str) -> None:
    world.name_school(urn, name.strip('"') if name.startswith('"') else name)


@when(parsers.parse('I search for "{query}" as CSV'), target_fixture="table")
def _(driver: Driver, query: str) -> list[dict[str, str]]:
    return driver.search_table({"query": query})


@when("I list the schools as CSV", target_fixture="table")
def _(driver: Driver) -> list[dict[str, str]]:
    return driver.list_table({"per_page": "25"})


@then(parsers.parse("the CSV cell {column} of school {urn:d} reads {text}"))
def _(table: list[dict[str, str]], column: str, urn: int, text: str) -> None:
    rows = [row for row in table if row.get("urn") == str(urn)]
    assert len(rows) == 1, f"school {urn} is not one row of the CSV: {table}"
    assert rows[0][column.strip('"')] == text[1:-1], rows[0]


@then(
    parsers.parse(
        "every filled CSV cell of the column {column} is a number, negative ones included"
    )
)
def _(table: list[dict[str, str]], column: str) -> None:
    cells = [row[column.strip('"')] for row in table if row[column.strip('"')]]
    assert any(cell.startswith("-") for cell in cells), f"no negative number in {cells}"
    for cell in cells:
        float(cell)  # a spreadsheet reads it as a number: no apostrophe, no formula
