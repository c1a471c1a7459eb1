"""The questions a caller asks. Each `When` asks the current face's driver and passes the
answer on as the `answer` fixture; `exchange` keeps every answer and how to ask again."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pytest_bdd import parsers, when
from tests.support.dataset import OPEN_URNS

from features.drivers import Answer, Driver
from features.drivers.world import World

TOPICS = {
    "results": "results",
    "admissions": "admissions",
    "finance": "finance",
    "inspection history": "inspections",
}
MOST_PAGES = 200  # a runaway guard: the dataset has 19 open schools


class Exchange:
    """What a scenario asked and was answered, in order."""

    def __init__(self) -> None:
        self.answers: list[Answer] = []
        self.ask: Callable[[], Answer] | None = None
        self.pages: list[Answer] = []
        self.paged_with: dict[str, str] = {}
        self.compared: list[str] = []

    def put(self, ask: Callable[[], Answer], times: int = 1) -> Answer:
        self.ask = ask
        for _ in range(times):
            self.answers.append(ask())
        return self.answers[-1]

    def again(self) -> Answer:
        assert self.ask is not None, "nothing has been asked yet"
        answer = self.ask()
        self.answers.append(answer)
        return answer

    @property
    def last(self) -> Answer:
        assert self.answers, "nothing has been asked yet"
        return self.answers[-1]


@pytest.fixture
def exchange() -> Exchange:
    return Exchange()


def table(datatable: list[list[str]]) -> dict[str, str]:
    """A two-column `| name | value |` table as parameters."""
    return {row[0]: row[1] for row in datatable}


# ---------------------------------------------------------------------------- public


@when(parsers.parse('I search for "{query}"'), target_fixture="answer")
def _(driver: Driver, exchange: Exchange, query: str) -> Answer:
    return exchange.put(lambda: driver.search({"query": query}))


@when(parsers.parse('I search for "{query}" with my key'), target_fixture="answer")
def _(driver: Driver, exchange: Exchange, query: str) -> Answer:
    return exchange.put(lambda: driver.search({"query": query}, keyed=True))


@when(parsers.parse('I search near "{postcode}"'), target_fixture="answer")
def _(driver: Driver, exchange: Exchange, postcode: str) -> Answer:
    return exchange.put(lambda: driver.search({"postcode": postcode}))


@when("I search with:", target_fixture="answer")
def _(driver: Driver, exchange: Exchange, datatable: list[list[str]]) -> Answer:
    params = table(datatable)
    return exchange.put(lambda: driver.search(params))


@when(parsers.parse("I search for a query of {length:d} characters"), target_fixture="answer")
def _(driver: Driver, exchange: Exchange, length: int) -> Answer:
    query = ("st mary " * length)[:length]
    return exchange.put(lambda: driver.search({"query": query}))


@when(parsers.parse('I ask for the school "{urn}"'), target_fixture="answer")
def _(driver: Driver, exchange: Exchange, urn: str) -> Answer:
    return exchange.put(lambda: driver.school(urn))


@when(parsers.parse('I ask the legacy route for the school "{urn}"'), target_fixture="answer")
def _(driver: Driver, exchange: Exchange, urn: str) -> Answer:
    return exchange.put(lambda: driver.legacy_school(urn))


# ---------------------------------------------------------------------------- commercial


@when(parsers.parse('I ask for the profile of school "{urn}"'), target_fixture="answer")
def _(driver: Driver, exchange: Exchange, urn: str) -> Answer:
    return exchange.put(lambda: driver.profile(urn))


@when(
    parsers.parse('I ask for the profile of school "{urn}" {times:d} times'),
    target_fixture="answer",
)
def _(driver: Driver, exchange: Exchange, urn: str, times: int) -> Answer:
    return exchange.put(lambda: driver.profile(urn), times)


@when(
    parsers.parse('I ask for the profile of school "{urn}" {times:d} times within one second'),
    target_fixture="answer",
)
def _(driver: Driver, world: World, exchange: Exchange, urn: str, times: int) -> Answer:
    with world.clock.frozen():
        return exchange.put(lambda: driver.profile(urn), times)


@when(
    parsers.re(
        r'I ask for the (?P<topic>results|admissions|finance|inspection history) of school "(?P<urn>[^"]*)"'
    ),
    target_fixture="answer",
)
def _(driver: Driver, exchange: Exchange, topic: str, urn: str) -> Answer:
    return exchange.put(lambda: driver.dataset(TOPICS[topic], urn))


@when("I list schools with:", target_fixture="answer")
def _(driver: Driver, exchange: Exchange, datatable: list[list[str]]) -> Answer:
    params = table(datatable)
    return exchange.put(lambda: driver.list_schools(params))


@when(parsers.parse("I list schools with a q of {length:d} characters"), target_fixture="answer")
def _(driver: Driver, exchange: Exchange, length: int) -> Answer:
    text = ("st mary " * length)[:length]
    return exchange.put(lambda: driver.list_schools({"q": text}))


@when("I look for schools near:", target_fixture="answer")
def _(driver: Driver, exchange: Exchange, datatable: list[list[str]]) -> Answer:
    params = table(datatable)
    return exchange.put(lambda: driver.nearby(params))


@when(parsers.parse('I compare the schools "{urns}"'), target_fixture="answer")
def _(driver: Driver, exchange: Exchange, urns: str) -> Answer:
    asked = exchange.compared = [urn.strip() for urn in urns.split(",")]
    return exchange.put(lambda: driver.compare(asked))


@when(parsers.parse('I compare the schools given as numbers "{urns}"'), target_fixture="answer")
def _(driver: Driver, exchange: Exchange, urns: str) -> Answer:
    """The URNs as JSON numbers where the face carries JSON (a command line has only text)."""
    exchange.compared = [urn.strip() for urn in urns.split(",")]
    numbers = [int(urn) for urn in exchange.compared]
    return exchange.put(lambda: driver.compare(numbers))


@when(parsers.parse("I compare {count:d} different schools"), target_fixture="answer")
def _(driver: Driver, exchange: Exchange, count: int) -> Answer:
    asked = exchange.compared = [str(urn) for urn in OPEN_URNS[:count]]
    assert len(asked) == count, f"the dataset has only {len(OPEN_URNS)} open schools"
    return exchange.put(lambda: driver.compare(asked))


@when(parsers.parse('I look up the schools "{urns}"'), target_fixture="answer")
def _(driver: Driver, exchange: Exchange, urns: str) -> Answer:
    asked = [urn.strip() for urn in urns.split(",")]
    return exchange.put(lambda: driver.lookup(asked))


@when(parsers.parse('I look up the schools given as numbers "{urns}"'), target_fixture="answer")
def _(driver: Driver, exchange: Exchange, urns: str) -> Answer:
    """The URNs as JSON numbers where the face carries JSON (a command line has only text)."""
    numbers = [int(urn.strip()) for urn in urns.split(",")]
    return exchange.put(lambda: driver.lookup(numbers))


@when(parsers.parse("I look up {count:d} different URNs"), target_fixture="answer")
def _(driver: Driver, exchange: Exchange, count: int) -> Answer:
    asked = [str(100_000 + i) for i in range(count)]
    return exchange.put(lambda: driver.lookup(asked))


@when("I look up no school", target_fixture="answer")
def _(driver: Driver, exchange: Exchange) -> Answer:
    return exchange.put(lambda: driver.lookup([]))


@when("I ask for rankings with:", target_fixture="answer")
def _(driver: Driver, exchange: Exchange, datatable: list[list[str]]) -> Answer:
    params = table(datatable)
    return exchange.put(lambda: driver.rankings(params))


@when("I ask for the data freshness", target_fixture="answer")
def _(driver: Driver, exchange: Exchange) -> Answer:
    return exchange.put(driver.freshness)


@when("I ask for the service metadata", target_fixture="answer")
def _(driver: Driver, exchange: Exchange) -> Answer:
    return exchange.put(driver.meta)


@when(
    parsers.parse("I page through the schools, {per_page:d} per page, with:"),
    target_fixture="answer",
)
def _(driver: Driver, exchange: Exchange, per_page: int, datatable: list[list[str]]) -> Answer:
    """Ask for page 1, 2, ... until a page comes back empty."""
    params = exchange.paged_with = table(datatable)
    for page in range(1, MOST_PAGES + 1):
        answer = driver.list_schools({**params, "per_page": str(per_page), "page": str(page)})
        assert answer.ok, answer.describe()
        exchange.pages.append(answer)
        if not answer.body:
            return answer
    raise AssertionError(f"still not at the end after {MOST_PAGES} pages")


# ---------------------------------------------------------------------------- transport


@when("I send my key in the query string", target_fixture="answer")
def _(driver: Driver, exchange: Exchange) -> Answer:
    return exchange.put(driver.key_in_query)


@when(parsers.parse("I discover the MCP server and list its tools {times:d} times"))
def _(driver: Driver, times: int) -> None:
    for _ in range(times):
        assert driver.discover() == 200
        assert driver.tools()
