"""The SQL search prefilter: a SELECT of candidate URNs narrowed by the schools' indexes.

Only exact restatements of `domain.search` rules go here; `evaluate()` still applies every rule,
so the SQL store answers as the in-memory store does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    or_,
    select,
)

from schooldata.adapters.sql import tables as t
from schooldata.domain.geo import BoundingBox, bounding_box
from schooldata.domain.search import SchoolQuery


def candidate_urns(query: SchoolQuery) -> Select[int] | None:
    """A SELECT of the URNs of a superset of the schools that can match `query`; None when
    none can.

    Only conditions that are exact restatements of domain.search rules go here, on keys the
    mapping computed with the domain's own functions; evaluate() still applies every rule.
    """
    s = t.schools.c
    conditions: list[ColumnElement[bool]] = []
    if query.text is not None:
        if not query.text.tokens:
            return None
        conditions.append(s.urn.in_(_urns_matching_every(query.text.tokens)))
    if query.near is not None:
        # Without a radius every located school is a candidate: `total` counts all matches.
        conditions += [s.latitude.is_not(None), s.longitude.is_not(None)]
        if query.near.radius_miles is not None:
            conditions += _within(bounding_box(query.near.origin, query.near.radius_miles))
    if query.phases:
        conditions.append(s.phase.in_(sorted(p.value for p in query.phases)))
    if query.local_authority is not None:
        wanted = query.local_authority
        conditions.append(or_(s.la_name_key == wanted, s.la_code_key == wanted))
    if query.ofsted_rating is not None:
        conditions.append(s.ofsted_grade == query.ofsted_rating)
    if query.min_score is not None:
        conditions.append(s.svc_score >= query.min_score)
    return select(s.urn).where(*conditions)


def _urns_matching_every(tokens: Iterable[str]) -> Any:
    """URNs with, for each query token, some school token it prefixes (an index range scan)."""
    k = t.school_tokens.c
    per_token = [
        select(k.urn).where(k.token >= token, k.token < token + t.PREFIX_END)
        for token in dict.fromkeys(tokens)
    ]
    return per_token[0] if len(per_token) == 1 else per_token[0].intersect(*per_token[1:])


def _within(box: BoundingBox) -> list[ColumnElement[bool]]:
    s = t.schools.c
    conditions: list[ColumnElement[bool]] = [s.latitude.between(box.min_latitude, box.max_latitude)]
    # A box reaching past the antimeridian would wrap; then only latitude is bounded.
    if box.min_longitude >= -180.0 and box.max_longitude <= 180.0:
        conditions.append(s.longitude.between(box.min_longitude, box.max_longitude))
    return conditions
