"""Readable text for tool results: a short summary a model (or a person) can act on.

The full result follows as JSON in a second text block and as `structuredContent`; these lines
only orient. A null is written as "not available", never as 0.

A summary reads the answer's declared Struct (`answers.shape`). The school lists, asked most,
read its attributes; the other tools read its plain JSON values (`_from_json`). The public
search, whose JSON is made from fragments, is summarised from the Structs of its schools
(`public_search_result`), the same text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from schooldata.application.search_schools import PublicSearchAnswer
from schooldata.entrypoints.wire import public

Payload = Mapping[str, Any]
Summary = Callable[[Any], str]
MAX_LINES = 25


def _from_json(summary: Callable[[Payload], str]) -> Summary:
    """A summary that reads the answer's plain JSON values, as a summary of its Struct."""
    return lambda shape: summary(msgspec.to_builtins(shape))


def _shown(value: Any, suffix: str = "") -> str:
    return "not available" if value is None else f"{value}{suffix}"


def _line_head(item: Any) -> str:
    """A school of a list (a public search result or a commercial list item), up to where
    its distance goes."""
    line = f"- {item.name} (URN {item.urn}; {item.phase or 'phase not recorded'}"
    if item.local_authority:
        line += f"; {item.local_authority}"
    return line


def _line_tail(distance: float | None) -> str:
    return ")" if distance is None else f"; {distance} miles)"


def _school_line(item: Any) -> str:
    distance = item.distance_miles
    return _line_head(item) + _line_tail(None if distance is msgspec.UNSET else distance)


def _listed(shown: list[str], count: int) -> str:
    """The first lines of `count`, and how many more there are."""
    if count > MAX_LINES:
        shown.append(f"... and {count - MAX_LINES} more (see the JSON).")
    return "\n".join(shown)


def _lines(items: Sequence[Any], line: Callable[[Any], str]) -> str:
    return _listed([line(item) for item in items[:MAX_LINES]], len(items))


def public_search(answer: Any) -> str:
    """`answer`: the public `SearchResponse`."""
    results = answer.results
    return _search_text(answer, len(results), _lines(results, _school_line))


def public_search_result(result: PublicSearchAnswer, base_url: str) -> str:
    """`public_search` of the answer the result is shown as, read from each school's result
    Struct made once per data version (`wire.public`) with its distance beside it, not from a
    `SearchResponse` made for the summary alone."""
    with_distance = result.with_distance
    hits = result.page.hits
    shown = [
        _line_head(public.plain_search_result(hit.school, base_url))
        + _line_tail(public.distance_shown(hit, with_distance))
        for hit in hits[:MAX_LINES]
    ]
    return _search_text(public.search_head(result), len(hits), _listed(shown, len(hits)))


def _search_text(answer: Any, count: int, body: str) -> str:
    """The summary of a `SearchResponse` (its `results` not read) showing `count` results."""
    asked = []
    if answer.query:
        asked.append(f"matching {answer.query!r}")
    if answer.postcode:
        asked.append(f"nearest {answer.postcode}")
    if answer.radius_miles is not None:
        asked.append(f"within {answer.radius_miles} miles")
    if answer.phase:
        asked.append(f"phase {answer.phase}")
    head = f"{answer.total} open schools {' '.join(asked)}; showing {count} (limit {answer.limit})."
    return f"{head}\n{body}" if body else head


@_from_json
def public_school(payload: Payload) -> str:
    place = " ".join(str(p) for p in (payload.get("town"), payload.get("postcode")) if p)
    return (
        f"{payload.get('name')} (URN {payload.get('urn')}): {_shown(payload.get('phase'))}, "
        f"{_shown(payload.get('type'))}, {place or 'address not available'}. "
        f"svcScore: {_shown(payload.get('svcScore'))}."
    )


def commercial_list(answer: Any) -> str:
    """`answer`: the envelope of a page of `SchoolListItem`s."""
    data = answer.data
    page = answer.meta.pagination
    head = (
        f"{page.total} schools; page {page.page} of "
        f"{page.total_pages} ({len(data)} shown, {page.per_page} per page)."
    )
    body = _lines(data, _school_line)
    return f"{head}\n{body}" if body else head


@_from_json
def profile(payload: Payload) -> str:
    data = payload.get("data", {})
    return (
        f"Profile of {data.get('name')} (URN {data.get('urn')}): {_shown(data.get('phase'))}, "
        f"{_shown(data.get('type'))}, {_shown(data.get('local_authority'))}. "
        f"{len(data.get('links', []))} linked establishment(s)."
    )


@_from_json
def freshness(payload: Payload) -> str:
    data = payload.get("data", [])
    head = f"{len(data)} datasets:"
    body = _lines(
        data,
        lambda d: (
            f"- {d.get('title')} ({d.get('dataset')}): period {_shown(d.get('period'))}, "
            f"{d.get('cadence')}, extracted {_shown(d.get('extract_date'))}"
        ),
    )
    return f"{head}\n{body}" if body else f"{len(data)} datasets."


@_from_json
def inspections(payload: Payload) -> str:
    data = payload.get("data", {})
    school = data.get("school", {})
    count = len(data.get("inspections", []))
    text = (
        f"{count} Ofsted inspection record(s) for {school.get('name')} (URN {school.get('urn')}). "
        "Report cards and graded outcomes are different frameworks and not comparable."
    )
    lines = [text]
    for found in data.get("predecessors", []):
        held = len(found.get("inspections", []))
        lines.append(f"- {_predecessor(found)}: {held} inspection record(s)")
    return "\n".join(lines)


def _predecessor(found: Payload) -> str:
    """A predecessor, as summaries name it: who, and the link that led there."""
    via = found.get("via", {})
    return (
        f"predecessor {found.get('name')} (URN {found.get('urn')}; {found.get('status')}; "
        f"{via.get('link_type')} of {via.get('urn')})"
    )


@_from_json
def topics(payload: Payload) -> str:
    data = payload.get("data", {})
    school = data.get("school", {})
    lines = [f"{school.get('name')} (URN {school.get('urn')}):"]
    for name, block in data.items():
        if isinstance(block, dict) and "measures" in block:
            lines.append(
                f"- {name}: {len(block['measures'])} measure(s), latest period "
                f"{_shown(block.get('latest_period'))}"
            )
    for found in data.get("predecessors", []):
        periods = sorted(
            {
                p
                for block in found.values()
                if isinstance(block, dict)
                for p in block.get("periods", [])
            }
        )
        lines.append(f"- {_predecessor(found)}: years {', '.join(periods) or 'none'}")
    return "\n".join(lines)


@_from_json
def comparison(payload: Payload) -> str:
    schools = payload.get("data", {}).get("schools", [])
    names = ", ".join(f"{s.get('name')} ({s.get('urn')})" for s in schools)
    return f"Compared {len(schools)} schools: {names}."


@_from_json
def rankings(payload: Payload) -> str:
    meta = payload.get("meta", {})
    ranking = meta.get("ranking", {})
    page = meta.get("pagination", {})
    head = (
        f"Ranking by {ranking.get('metric_label')} ({ranking.get('phase')}, period "
        f"{_shown(ranking.get('period'))}): {ranking.get('ranked')} ranked, "
        f"{ranking.get('excluded_total')} excluded; page {page.get('page')} of "
        f"{page.get('total_pages')}."
    )
    body = _lines(
        payload.get("data", []),
        lambda r: f"{r.get('rank')}. {r.get('name')} (URN {r.get('urn')}): {r.get('value')}",
    )
    return f"{head}\n{body}" if body else head
