"""Data through time: imports that make new data versions, the changes since one, a school's
predecessors and the release of each results year."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import attrs
from pytest_bdd import given, parsers, then, when

from features.drivers import Answer, Driver
from features.drivers.world import World
from features.steps.questions import TOPICS, Exchange, table
from schooldata.domain.links import EstablishmentLink
from schooldata.domain.phase import GiasPhase
from schooldata.domain.releases import ReleaseStatus
from schooldata.domain.school import School
from schooldata.domain.urn import Urn

# ---------------------------------------------------------------------------- Given / When


@given("the data version is noted")
def _(world: World) -> None:
    world.noted = world.version()


@given(parsers.parse('school {urn:d} is renamed "{name}" in the register'))
@when(parsers.parse('school {urn:d} is renamed "{name}" in the register'))
def _(world: World, urn: int, name: str) -> None:
    def rename(served: dict[Urn, School]) -> None:
        served[Urn(urn)] = attrs.evolve(served[Urn(urn)], name=name)

    world.import_register(rename)


@when(parsers.parse("the register lists school {urn:d} as closed"))
def _(world: World, urn: int) -> None:
    world.import_register(lambda served: served.pop(Urn(urn)))


@when(parsers.parse('school {urn:d} opens as "{name}" in {authority}'))
def _(world: World, urn: int, name: str, authority: str) -> None:
    def open_(served: dict[Urn, School]) -> None:
        served[Urn(urn)] = School(
            urn=Urn(urn), name=name, gias_phase=GiasPhase.PRIMARY, la_name=authority
        )

    world.import_register(open_)


@given(parsers.parse("school {successor:d} converted from school {predecessor:d} on {day}"))
def _(world: World, successor: int, predecessor: int, day: str) -> None:
    """The GIAS links a conversion leaves: the new school's `Predecessor`, the old one's
    `Successor` (the register's facts of both are the scenario dataset's)."""
    when = dt.date.fromisoformat(day)
    world.import_links(
        [
            EstablishmentLink(Urn(successor), Urn(predecessor), None, "Predecessor", when),
            EstablishmentLink(Urn(predecessor), Urn(successor), None, "Successor", when),
        ]
    )


@given(parsers.parse("school {urn:d} links to school {other:d} as its {kind}"))
def _(world: World, urn: int, other: int, kind: str) -> None:
    world.import_links([EstablishmentLink(Urn(urn), Urn(other), None, kind, None)])


@given(parsers.parse('the "{dataset}" results of {period} are published as {status} on {day}'))
@when(parsers.parse('the "{dataset}" results of {period} are published as {status} on {day}'))
def _(world: World, dataset: str, period: str, status: str, day: str) -> None:
    world.publish_results(dataset, period, ReleaseStatus(status), dt.date.fromisoformat(day))


@when("I ask for the changes since the noted version", target_fixture="answer")
def _(driver: Driver, world: World, exchange: Exchange) -> Answer:
    assert world.noted is not None, "note the data version first"
    since = world.noted
    return exchange.put(lambda: driver.changes({"since": since}))


@when("I ask for the changes since the noted version with:", target_fixture="answer")
def _(driver: Driver, world: World, exchange: Exchange, datatable: list[list[str]]) -> Answer:
    assert world.noted is not None, "note the data version first"
    params = {"since": world.noted, **table(datatable)}
    return exchange.put(lambda: driver.changes(params))


@when("I ask for the changes since the current version", target_fixture="answer")
def _(driver: Driver, world: World, exchange: Exchange) -> Answer:
    since = world.version()
    return exchange.put(lambda: driver.changes({"since": since}))


@when(parsers.parse('I ask for the changes since "{since}"'), target_fixture="answer")
def _(driver: Driver, exchange: Exchange, since: str) -> Answer:
    return exchange.put(lambda: driver.changes({"since": since}))


@when(
    parsers.re(
        r'I ask for the (?P<topic>results|inspection history) of school "(?P<urn>[^"]*)" '
        r"with its predecessors"
    ),
    target_fixture="answer",
)
def _(driver: Driver, exchange: Exchange, topic: str, urn: str) -> Answer:
    return exchange.put(lambda: driver.dataset(TOPICS[topic], urn, predecessors=True))


# ---------------------------------------------------------------------------- Then


def _detail(item: dict[str, Any]) -> str:
    """What a change names beyond its school and kind, as the feature tables write it."""
    if item["kind"] == "updated":
        return ", ".join(item["fields"])
    if item["kind"] == "results_added":
        return f"{item['key_stage']} {item['year']}"
    if item["kind"] == "linked":
        return f"{item['link_type']} {item['linked_urn']}"
    if item["kind"] == "inspection_added":
        return str(item["inspection_date"])
    return ""


@then("the changes are exactly:")
def _(answer: Answer, datatable: list[list[str]]) -> None:
    assert answer.ok, answer.describe()
    header, *rows = datatable
    expected = [dict(zip(header, row, strict=True)) for row in rows]
    shown = [
        {"urn": str(item["urn"]), "kind": item["kind"], "detail": _detail(item)}
        for item in answer.body
    ]
    assert shown == [{k: e.get(k, "") for k in ("urn", "kind", "detail")} for e in expected]


@then("no change is listed")
def _(answer: Answer) -> None:
    assert answer.ok, answer.describe()
    assert answer.body == []


@then("every change names its data version and that version's time")
def _(answer: Answer, world: World) -> None:
    assert answer.ok and answer.body, answer.describe()
    for item in answer.body:
        assert item["version"] > (world.noted or "")
        assert item["version_time"].endswith("Z")


@then(parsers.parse("the predecessors are exactly the schools {urns}"))
def _(answer: Answer, urns: str) -> None:
    assert answer.ok, answer.describe()
    found = [p["urn"] for p in answer.body.get("predecessors", [])]
    assert found == [int(u) for u in urns.split(",")]


@then("no predecessor is listed")
def _(answer: Answer) -> None:
    assert answer.ok, answer.describe()
    assert answer.body["predecessors"] == []


@then(parsers.parse("predecessor {urn:d} came through the {kind} link of school {via:d}"))
def _(answer: Answer, urn: int, kind: str, via: int) -> None:
    (found,) = [p for p in answer.body["predecessors"] if p["urn"] == urn]
    assert (found["via"]["urn"], found["via"]["link_type"]) == (via, kind)


@then(parsers.parse("predecessor {urn:d} shows:"))
def _(answer: Answer, urn: int, datatable: list[list[str]]) -> None:
    (found,) = [p for p in answer.body["predecessors"] if p["urn"] == urn]
    for path, cell in datatable:
        value: Any = found
        for part in path.split("."):
            value = value[int(part)] if isinstance(value, list) else value[part]
        assert value == json.loads(cell), f"{path}: {value!r}"


@then(parsers.parse('the "{topic}" years are released as:'))
def _(answer: Answer, topic: str, datatable: list[list[str]]) -> None:
    assert answer.ok, answer.describe()
    header, *rows = datatable
    expected = [dict(zip(header, row, strict=True)) for row in rows]
    shown = [
        {
            "period": r["period"],
            "dataset": r["dataset"],
            "status": r["status"] or "",
            "released": r["released"] or "",
        }
        for r in answer.body[topic]["releases"]
    ]
    assert shown == expected
