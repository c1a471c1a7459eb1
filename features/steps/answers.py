"""What the answers must say. The steps read `Answer.body`, the JSON every face agrees on:
public answers whole, commercial answers' `data`."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from typing import Any

from pytest_bdd import parsers, then

from features.drivers import PAGE_LINKS, Answer, Driver, FaceCannot
from features.drivers.world import World
from features.steps.questions import Exchange, table
from schooldata.domain.metering import month_reset

MISSING = object()
# The sentinels of what must never be served: every school of the dataset has this head's
# name, and the independent school 100007 this inspectorate (tests/support/dataset.py).
NEVER_SERVED_KEYS = frozenset(
    {
        "head_name",
        "headName",
        "inspectorate_name",
        "inspectorateName",
        "fees",
        "catchment",
        "catchment_geometry",
        "ai_summary",
        "aiSummary",
        "website_content",
        "websiteContent",
    }
)
NEVER_SERVED_TEXT = ("Mrs Private Person", "Independent Schools Inspectorate")
REQUEST_ID = re.compile(r"^req_[0-9A-Za-z]{20}$")


def names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def at(document: Any, path: str) -> Any:
    """`a.b.c` in nested objects; MISSING when a step of the path is absent."""
    value = document
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return MISSING
        value = value[part]
    return value


def expect_json(cell: str) -> Any:
    return json.loads(cell)


def results(answer: Answer) -> list[dict[str, Any]]:
    """The schools of an answer: a public search's `results` or a commercial list's `data`."""
    assert answer.ok, answer.describe()
    body = answer.body
    found: list[dict[str, Any]] = body["results"] if isinstance(body, dict) else body
    return found


def distance(result: dict[str, Any]) -> Any:
    return result.get("distanceMiles", result.get("distance_miles"))


def all_keys(document: Any) -> Iterator[str]:
    if isinstance(document, dict):
        for key, value in document.items():
            yield key
            yield from all_keys(value)
    elif isinstance(document, list):
        for item in document:
            yield from all_keys(item)


def measure(answer: Answer, code: str) -> dict[str, Any]:
    """One measure series of a results/admissions/finance answer, whatever its topic."""
    assert answer.ok, answer.describe()
    for block in answer.body.values():
        if isinstance(block, dict) and "measures" in block:
            for series in block["measures"]:
                if series["code"] == code:
                    found: dict[str, Any] = series
                    return found
    raise AssertionError(f"no measure {code!r} in the answer")


# ---------------------------------------------------------------------------- outcome


@then("the answer is given")
def _(answer: Answer) -> None:
    assert answer.ok, answer.describe()


@then(parsers.parse('the request is refused with "{code}"'))
def _(answer: Answer, code: str) -> None:
    assert not answer.ok, f"{answer.face}: answered, expected a refusal with {code!r}"
    assert answer.code == code, answer.describe()


@then("the request is refused as temporarily unavailable")
def _(answer: Answer) -> None:
    assert not answer.ok, f"{answer.face}: answered while a dependency was down"
    assert answer.code in {"service_unavailable", "search_unavailable"}, answer.describe()
    assert "temporarily unavailable" in answer.message, answer.describe()
    assert "Traceback" not in answer.message


@then(parsers.parse('the refusal mentions "{text}"'))
def _(answer: Answer, text: str) -> None:
    assert not answer.ok, answer.describe()
    assert text.lower() in answer.message.lower(), answer.describe()


@then(parsers.parse('the refusal names the feature "{feature}"'))
def _(answer: Answer, feature: str) -> None:
    assert answer.details.get("feature") == feature, answer.details


@then(parsers.parse('the refusal names the parameter "{parameter}"'))
def _(answer: Answer, parameter: str) -> None:
    assert not answer.ok, answer.describe()
    if answer.face == "cli":
        raise FaceCannot("the cli face prints an error's message, not its details")
    assert answer.details.get("parameter") == parameter, answer.details


@then(parsers.parse('the refusal names the parameter "{parameter}" with a maximum of {maximum:d}'))
def _(answer: Answer, parameter: str, maximum: int) -> None:
    assert answer.details.get("parameter") == parameter, answer.details
    assert answer.details.get("max") == maximum, answer.details


@then("the refusal does not repeat the key")
def _(answer: Answer, driver: Driver) -> None:
    key = driver.credentials.bearer if driver.credentials else None
    assert key, "no key was sent"
    assert key not in answer.message and key not in json.dumps(answer.details)


@then(parsers.re(r"I am told to retry after at least (?P<seconds>\d+) seconds?"))
def _(exchange: Exchange, seconds: str) -> None:
    limited = [a for a in exchange.answers if a.retry_after is not None]
    assert limited, "no answer said when to retry"
    assert all(a.retry_after is not None and a.retry_after >= int(seconds) for a in limited)


@then("I am told to retry when the next month begins")
def _(exchange: Exchange, world: World) -> None:
    limited = [a for a in exchange.answers if a.retry_after is not None]
    assert limited, "no answer said when to retry"
    until_next_month = month_reset(world.clock.peek()) - world.clock.peek().timestamp()
    for answer in limited:
        assert answer.retry_after is not None
        assert abs(answer.retry_after - until_next_month) <= 60, answer.retry_after


@then("asking again gives the same answer")
def _(answer: Answer, exchange: Exchange) -> None:
    again = exchange.again()
    assert again.ok and answer.ok, again.describe()
    assert again.body == answer.body


# ---------------------------------------------------------------------------- search results


@then(parsers.parse("{count:d} schools match in total"))
def _(answer: Answer, count: int) -> None:
    assert answer.ok, answer.describe()
    total = answer.body["total"] if isinstance(answer.body, dict) else None
    if total is None and answer.pagination is not None:
        total = answer.pagination["total"]
    if total is None:  # a face that prints only the data: one page must hold them all
        total = len(results(answer))
    assert total == count, f"{answer.face}: {total} matched"


@then("no school matches")
def _(answer: Answer) -> None:
    assert results(answer) == []
    assert answer.body["total"] == 0


@then(parsers.parse("{count:d} results are returned"))
def _(answer: Answer, count: int) -> None:
    assert len(results(answer)) == count


@then(parsers.parse("at most {count:d} results are returned"))
def _(answer: Answer, count: int) -> None:
    assert 0 < len(results(answer)) <= count


@then(parsers.parse('the results include the school "{name}"'))
def _(answer: Answer, name: str) -> None:
    assert name in [r["name"] for r in results(answer)]


@then(parsers.parse("the results are exactly the schools {urns}"))
def _(answer: Answer, urns: str) -> None:
    assert [r["urn"] for r in results(answer)] == [int(u) for u in names(urns)]


@then(parsers.parse('every result is in the local authority "{authority}"'))
def _(answer: Answer, authority: str) -> None:
    found = results(answer)
    assert found
    for result in found:
        assert result.get("localAuthority", result.get("local_authority")) == authority


@then(parsers.parse('every result has the phase "{phase}"'))
def _(answer: Answer, phase: str) -> None:
    found = results(answer)
    assert found
    assert {r["phase"] for r in found} == {phase}


@then("the results are nearest first")
def _(answer: Answer) -> None:
    found = results(answer)
    assert found
    distances = [distance(r) for r in found]
    assert None not in distances, distances
    assert distances == sorted(distances)


@then("every result carries its distance in miles")
def _(answer: Answer) -> None:
    for result in results(answer):
        assert isinstance(distance(result), float | int), result


@then("no result carries a distance")
def _(answer: Answer) -> None:
    found = results(answer)
    assert found
    assert all(distance(r) is None for r in found)


@then(parsers.parse("every result is within {radius:g} miles"))
def _(answer: Answer, radius: float) -> None:
    found = results(answer)
    assert found
    assert all(distance(r) <= radius for r in found)


@then(parsers.parse("the nearest school is {urn:d}"))
def _(answer: Answer, urn: int) -> None:
    assert results(answer)[0]["urn"] == urn


@then(parsers.parse('the schools found are the same as near "{postcode}"'))
def _(answer: Answer, driver: Driver, postcode: str) -> None:
    other = driver.search({"postcode": postcode})
    assert results(answer) == results(other)


@then(parsers.parse("the result for school {urn:d} shows:"))
def _(answer: Answer, urn: int, datatable: list[list[str]]) -> None:
    result = next(r for r in results(answer) if r["urn"] == urn)
    for path, cell in table(datatable).items():
        assert at(result, path) == expect_json(cell), f"{path}: {at(result, path)!r}"


@then(parsers.parse("every result has only the fields {fields}"))
def _(answer: Answer, fields: str) -> None:
    allowed = set(names(fields))
    for result in results(answer):
        assert set(result) <= allowed, set(result) - allowed


# ---------------------------------------------------------------------------- records


@then("the answer shows:")
@then("the record shows:")
def _(answer: Answer, datatable: list[list[str]]) -> None:
    assert answer.ok, answer.describe()
    for path, cell in table(datatable).items():
        assert at(answer.body, path) == expect_json(cell), f"{path}: {at(answer.body, path)!r}"


@then(parsers.parse('the record\'s "{path}" is between {low:g} and {high:g}'))
def _(answer: Answer, path: str, low: float, high: float) -> None:
    value = at(answer.body, path)
    assert isinstance(value, float | int) and low <= value <= high, value


@then(parsers.parse('the record has no field "{name}"'))
def _(answer: Answer, name: str) -> None:
    assert answer.ok, answer.describe()
    assert name not in answer.body


@then(parsers.parse("the answer has exactly the fields {fields}"))
def _(answer: Answer, fields: str) -> None:
    assert answer.ok, answer.describe()
    assert set(answer.body) == set(names(fields))


@then(parsers.parse("the answer has none of the fields {fields}"))
def _(answer: Answer, fields: str) -> None:
    assert answer.ok, answer.describe()
    present = set(all_keys(answer.body)) & set(names(fields))
    assert not present, present


@then("the answer contains nothing that is never served")
def _(answer: Answer) -> None:
    assert answer.ok, answer.describe()
    present = set(all_keys(answer.body)) & NEVER_SERVED_KEYS
    assert not present, present
    text = json.dumps(answer.body, ensure_ascii=False)
    for sentinel in NEVER_SERVED_TEXT:
        assert sentinel not in text, sentinel


@then(parsers.parse('the record is the same as getSchool gives for "{urn}"'))
def _(answer: Answer, driver: Driver, urn: str) -> None:
    assert answer.ok, answer.describe()
    assert answer.body == driver.school(urn).body


@then("the plans are described as:")
def _(answer: Answer, datatable: list[list[str]]) -> None:
    assert answer.ok, answer.describe()
    header, *rows = datatable
    expected = [
        {name: _plain(cell) for name, cell in zip(header, row, strict=True)} for row in rows
    ]
    shown = [
        {name: plan[name if name != "plan" else "name"] for name in header}
        for plan in answer.body["plans"]
    ]
    assert shown == expected


def _plain(cell: str) -> object:
    return int(cell) if cell.isdigit() else cell


@then(parsers.parse("the service declares it never serves {categories}"))
def _(answer: Answer, categories: str) -> None:
    assert answer.ok, answer.describe()
    assert answer.body["source_policy"]["never_served"] == names(categories)


# ---------------------------------------------------------------------------- datasets


@then(
    parsers.parse(
        'the latest "{code}" is null with the status "{status}" and the reason "{reason}"'
    )
)
def _(answer: Answer, code: str, status: str, reason: str) -> None:
    latest = measure(answer, code)["latest"]
    assert latest["value"] is None, latest
    assert latest["status"] == status, latest
    assert latest["reason"] == reason, latest


@then(parsers.parse('the latest "{code}" is for the period "{period}"'))
def _(answer: Answer, code: str, period: str) -> None:
    assert measure(answer, code)["latest"]["period"] == period


@then(parsers.parse('the latest "{code}" is {value:g} for the period "{period}"'))
def _(answer: Answer, code: str, value: float, period: str) -> None:
    latest = measure(answer, code)["latest"]
    assert (latest["value"], latest["status"], latest["period"]) == (value, "reported", period)


@then(parsers.parse('the "{code}" trend shows {value:g} for "{period}"'))
def _(answer: Answer, code: str, value: float, period: str) -> None:
    trend = {point["period"]: point for point in measure(answer, code)["trend"]}
    assert trend[period]["value"] == value, trend


@then(parsers.parse('the 16-18 destinations are described as "{text}"'))
@then(parsers.parse('the 16-18 destinations are described as the "{text}"'))
def _(answer: Answer, text: str) -> None:
    assert answer.ok, answer.describe()
    assert text in answer.body["16_18_destinations"]["cohort"]


@then("the inspections are listed newest first")
def _(answer: Answer) -> None:
    dates = [i["inspection_date"] for i in answer.body["inspections"]]
    assert dates and dates == sorted(dates, reverse=True), dates


@then(parsers.parse('the latest report card shows "{area}" as "{scale}"'))
def _(answer: Answer, area: str, scale: str) -> None:
    assert answer.body["latest_report_card"]["evaluation_areas"][area] == scale


@then("no report card carries an overall grade")
def _(answer: Answer) -> None:
    cards = [i for i in answer.body["inspections"] if i["framework"] == "report_card"]
    assert cards
    for card in cards:
        assert "overall_effectiveness" not in card and card["comparable_with_graded"] is False


@then("every graded inspection is marked historic and not comparable")
def _(answer: Answer) -> None:
    graded = [i for i in answer.body["inspections"] if i["framework"] == "graded"]
    assert graded
    for inspection in graded:
        assert inspection["historic"] is True and inspection["comparable"] is False


@then(
    parsers.parse(
        'the comparison shows school {urn:d}\'s "{code}" as null with the reason "{reason}"'
    )
)
def _(answer: Answer, urn: int, code: str, reason: str) -> None:
    school = next(s for s in answer.body["schools"] if s["urn"] == urn)
    figure = school["measures"][code]
    assert figure["value"] is None and figure["reason"] == reason, figure


@then(parsers.parse('the comparison shows school {urn:d}\'s "{field}" as null'))
def _(answer: Answer, urn: int, field: str) -> None:
    school = next(s for s in answer.body["schools"] if s["urn"] == urn)
    assert school[field] is None


@then(parsers.parse("the comparison shows {count:d} schools in the order asked"))
def _(answer: Answer, count: int, exchange: Exchange) -> None:
    assert answer.ok, answer.describe()
    shown = [school["urn"] for school in answer.body["schools"]]
    assert shown == [int(urn) for urn in exchange.compared]
    assert len(shown) == count


@then(parsers.parse("the profiles are of the schools {urns} in that order"))
def _(answer: Answer, urns: str) -> None:
    assert answer.ok, answer.describe()
    shown = [profile["urn"] for profile in answer.body["data"]]
    assert shown == [int(urn) for urn in urns.split(",")], shown


@then("the lookup holds no profile")
def _(answer: Answer) -> None:
    assert answer.ok, answer.describe()
    assert answer.body["data"] == []


@then(parsers.parse("the URNs not found are {urns}"))
def _(answer: Answer, urns: str) -> None:
    assert answer.ok, answer.describe()
    assert answer.body["not_found"] == [urn.strip() for urn in urns.split(",")]


@then("no URN is reported not found")
def _(answer: Answer) -> None:
    assert answer.ok, answer.describe()
    assert answer.body["not_found"] == []


@then("every profile is the school's own profile")
def _(answer: Answer, driver: Driver) -> None:
    assert answer.ok and answer.body["data"], answer.describe()
    for profile in answer.body["data"]:
        alone = driver.profile(str(profile["urn"]))
        assert alone.ok, alone.describe()
        assert profile == alone.body


@then(parsers.parse("the ranking leaves out school {urn:d}"))
def _(answer: Answer, urn: int) -> None:
    assert answer.ok, answer.describe()
    assert answer.body, "an empty ranking"
    assert urn not in [item["urn"] for item in answer.body]


@then("the ranking is in descending order of value")
def _(answer: Answer) -> None:
    values = [item["value"] for item in answer.body]
    assert values == sorted(values, reverse=True)
    assert [item["rank"] for item in answer.body] == list(range(1, len(values) + 1))


@then("every dataset reports its period, cadence and coverage")
def _(answer: Answer) -> None:
    assert answer.ok and answer.body, answer.describe()
    for item in answer.body:
        assert {"period", "cadence", "coverage"} <= set(item), item


# ---------------------------------------------------------------------------- paging


@then("no schools are returned")
def _(answer: Answer) -> None:
    assert results(answer) == []


@then("the pagination shows:")
def _(answer: Answer, datatable: list[list[str]]) -> None:
    assert answer.ok, answer.describe()
    assert answer.pagination is not None, f"{answer.face} shows no pagination"
    expected = {name: int(value) for name, value in table(datatable).items()}
    counts = {k: v for k, v in answer.pagination.items() if k not in PAGE_LINKS}
    assert counts == expected


@then("every matching school is visited exactly once, in the order of a single page")
def _(exchange: Exchange, driver: Driver) -> None:
    visited = [item["urn"] for page in exchange.pages for item in page.body]
    assert len(visited) == len(set(visited)), f"visited twice: {visited}"
    one_page = driver.list_schools({**exchange.paged_with, "per_page": "100", "page": "1"})
    assert [item["urn"] for item in results(one_page)] == visited


# ---------------------------------------------------------------------------- metering


@then(parsers.re(r"my organisation has used (?P<count>\d+) requests? this month"))
def _(driver: Driver, world: World, count: str) -> None:
    assert driver.credentials is not None and driver.credentials.organisation
    assert world.used(driver.credentials.organisation) == int(count)


@then(parsers.parse("{count:d} requests are answered"))
def _(exchange: Exchange, count: int) -> None:
    assert [a.ok for a in exchange.answers] == [True] * count, [
        a.describe() for a in exchange.answers
    ]


@then(
    parsers.re(
        r'(?P<answered>\d+) requests are answered and (?P<refused>\d+) (is|are) refused with "(?P<code>\w+)"'
    )
)
def _(exchange: Exchange, answered: str, refused: str, code: str) -> None:
    outcomes = [a.code if not a.ok else "answered" for a in exchange.answers]
    assert outcomes == ["answered"] * int(answered) + [code] * int(refused), outcomes


# ---------------------------------------------------------------------------- transport


@then(parsers.parse("the response carries the headers {headers}"))
@then(parsers.parse("the last response carries the headers {headers}"))
def _(exchange: Exchange, headers: str) -> None:
    answer = exchange.last
    for name in names(headers):
        assert name.lower() in answer.headers, f"{answer.face}: no {name} header"


@then(parsers.parse('the response header "{name}" is "{value}"'))
def _(exchange: Exchange, name: str, value: str) -> None:
    assert exchange.last.headers.get(name.lower()) == value, exchange.last.headers


@then("the response carries a request id")
def _(answer: Answer) -> None:
    assert REQUEST_ID.match(answer.headers.get("x-request-id", "")), answer.headers


@then("asking again carries a different request id")
def _(answer: Answer, exchange: Exchange) -> None:
    again = exchange.again()
    assert again.headers["x-request-id"] != answer.headers["x-request-id"]


@then("the answer names its sources with their name, publisher, licence, url and retrieval time")
def _(answer: Answer) -> None:
    assert answer.ok and answer.meta is not None, answer.describe()
    assert answer.meta["sources"], "no sources"
    for source in answer.meta["sources"]:
        assert {"name", "publisher", "licence", "url", "retrieved_at"} <= set(source)


@then("the answer says when the dataset was generated")
def _(answer: Answer) -> None:
    assert answer.meta is not None
    generated = answer.meta["data_updated_at"]
    assert dt.datetime.fromisoformat(generated.replace("Z", "+00:00")).tzinfo is not None


@then(parsers.parse("I am offered exactly the tools {tools}"))
def _(driver: Driver, tools: str) -> None:
    assert sorted(t["name"] for t in driver.tools()) == sorted(names(tools))


@then("every tool I am offered is read-only")
def _(driver: Driver) -> None:
    for credentials in (None, driver.credentials):
        driver.credentials = credentials
        offered = driver.tools()
        assert offered
        for tool in offered:
            assert tool["annotations"]["readOnlyHint"] is True, tool["name"]
            assert tool["annotations"]["destructiveHint"] is False, tool["name"]


@then(
    parsers.parse(
        "a tools/call of {kib:d} KiB is refused with HTTP 413 and JSON-RPC error {code:d}"
    )
)
def _(driver: Driver, kib: int, code: int) -> None:
    status, answer = driver.oversized_call(kib)
    assert status == 413, answer
    assert answer["jsonrpc"] == "2.0" and answer["id"] is None
    assert answer["error"]["code"] == code
    assert answer["error"]["data"]["code"] == "payload_too_large"
