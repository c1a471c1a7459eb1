"""The JSON shape of every domain type, for every face, declared once as msgspec Structs.

The same Structs encode each answer and give the OpenAPI document and the MCP tools their
output schemas (`entrypoints.schemas`), so a shape and its schema cannot drift. Public shapes
are camelCase (the public contract); commercial ones snake_case (the envelope's convention).
Each shape has one owner: `common` (shared parts), `records` (the two shapes projected through
field licensing), `public`, `commercial`, `datasets` and `envelope` (with `meta`, `list_items`).

The functions here give plain JSON values, for faces that lay answers out themselves (the CLI).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import msgspec

from schooldata.application.lineage import SchoolTopics
from schooldata.application.school_data import Ranking
from schooldata.domain.search import SearchHit
from schooldata.entrypoints.wire import comparisons, datasets, meta, public
from schooldata.entrypoints.wire.common import optional_timestamp


def public_error(message: str, code: str | None = None) -> dict[str, Any]:
    return msgspec.to_builtins(public.public_error(message, code))  # type: ignore[no-any-return]


def public_search_result(hit: SearchHit, *, base_url: str, with_distance: bool) -> dict[str, Any]:
    shape = public.search_result(hit, base_url=base_url, with_distance=with_distance)
    return msgspec.to_builtins(shape)  # type: ignore[no-any-return]


def school_topics(answer: SchoolTopics) -> dict[str, Any]:
    return msgspec.to_builtins(datasets.school_topics(answer))  # type: ignore[no-any-return]


def ranking_page(ranking: Ranking) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """A page of a ranking and its pagination."""
    paging = meta.pagination(ranking.page, ranking.per_page, ranking.total)
    items = comparisons.ranked_schools(ranking)
    return msgspec.to_builtins(items), msgspec.to_builtins(paging)


def instant(value: dt.datetime | None) -> str | None:
    """An instant as every answer shows it (UTC, `Z`), or None."""
    shown = optional_timestamp(value)
    return None if shown is None else str(msgspec.to_builtins(shown))
