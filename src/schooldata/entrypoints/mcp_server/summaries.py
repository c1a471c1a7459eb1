"""Readable text for tool results: a short summary a model (or a person) can act on.

The full result follows as JSON in a second text block and as `structuredContent`; these lines
only orient. A null is written as "not available", never as 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

Payload = Mapping[str, Any]
Summary = Callable[[Payload], str]
MAX_LINES = 25


def _shown(value: Any, suffix: str = "") -> str:
    return "not available" if value is None else f"{value}{suffix}"


def _school_line(item: Mapping[str, Any], *, authority_key: str, distance_key: str) -> str:
    parts = [str(item.get("phase") or "phase not recorded")]
    if item.get(authority_key):
        parts.append(str(item[authority_key]))
    if item.get(distance_key) is not None:
        parts.append(f"{item[distance_key]} miles")
    return f"- {item.get('name')} (URN {item.get('urn')}; {'; '.join(parts)})"


def _lines(items: Sequence[Mapping[str, Any]], line: Callable[[Mapping[str, Any]], str]) -> str:
    shown = [line(item) for item in items[:MAX_LINES]]
    if len(items) > MAX_LINES:
        shown.append(f"... and {len(items) - MAX_LINES} more (see the JSON).")
    return "\n".join(shown)


def public_search(payload: Payload) -> str:
    asked = []
    if payload.get("query"):
        asked.append(f"matching {payload['query']!r}")
    if payload.get("postcode"):
        asked.append(f"nearest {payload['postcode']}")
    if payload.get("radiusMiles") is not None:
        asked.append(f"within {payload['radiusMiles']} miles")
    if payload.get("phase"):
        asked.append(f"phase {payload['phase']}")
    results = payload.get("results", [])
    head = (
        f"{payload.get('total', 0)} open schools {' '.join(asked)}; "
        f"showing {len(results)} (limit {payload.get('limit')})."
    )
    body = _lines(
        results,
        lambda r: _school_line(r, authority_key="localAuthority", distance_key="distanceMiles"),
    )
    return f"{head}\n{body}" if body else head


def public_school(payload: Payload) -> str:
    place = " ".join(str(p) for p in (payload.get("town"), payload.get("postcode")) if p)
    return (
        f"{payload.get('name')} (URN {payload.get('urn')}): {_shown(payload.get('phase'))}, "
        f"{_shown(payload.get('type'))}, {place or 'address not available'}. "
        f"svcScore: {_shown(payload.get('svcScore'))}."
    )


def commercial_list(payload: Payload) -> str:
    data = payload.get("data", [])
    page = payload.get("meta", {}).get("pagination", {})
    head = (
        f"{page.get('total', 0)} schools; page {page.get('page')} of "
        f"{page.get('total_pages')} ({len(data)} shown, {page.get('per_page')} per page)."
    )
    body = _lines(
        data,
        lambda r: _school_line(r, authority_key="local_authority", distance_key="distance_miles"),
    )
    return f"{head}\n{body}" if body else head


def profile(payload: Payload) -> str:
    data = payload.get("data", {})
    return (
        f"Profile of {data.get('name')} (URN {data.get('urn')}): {_shown(data.get('phase'))}, "
        f"{_shown(data.get('type'))}, {_shown(data.get('local_authority'))}. "
        f"{len(data.get('links', []))} linked establishment(s)."
    )


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


def inspections(payload: Payload) -> str:
    data = payload.get("data", {})
    school = data.get("school", {})
    count = len(data.get("inspections", []))
    return (
        f"{count} Ofsted inspection record(s) for {school.get('name')} (URN {school.get('urn')}). "
        "Report cards and graded outcomes are different frameworks and not comparable."
    )


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
    return "\n".join(lines)


def comparison(payload: Payload) -> str:
    schools = payload.get("data", {}).get("schools", [])
    names = ", ".join(f"{s.get('name')} ({s.get('urn')})" for s in schools)
    return f"Compared {len(schools)} schools: {names}."


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
