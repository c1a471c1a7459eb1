"""An outcome of the pipeline as JSON, the same for every face: the public shapes whole, or the
commercial envelope (`data`, and `meta` with request id, dataset time, pagination, sources).

`render` is keyed by operation name; each entry turns a use case's answer into `data` (and,
for lists, its pagination) through `entrypoints.wire`, the one owner of every shape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attrs import frozen

from schooldata.application.pipeline import Outcome
from schooldata.entrypoints import wire

Json = dict[str, Any]


@frozen(kw_only=True)
class Rendered:
    data: Any
    pagination: dict[str, int] | None = None
    meta: Json | None = None  # extra members of `meta` (rankings: how it ranked)


def _public_search(result: Any, base_url: str) -> Rendered:
    return Rendered(data=wire.public_search_response(result, base_url=base_url))


def _public_school(result: Any, base_url: str) -> Rendered:
    return Rendered(data=wire.public_school_record(result, base_url=base_url))


def _list(result: Any, base_url: str) -> Rendered:
    data, pagination = wire.list_page(result, base_url=base_url)
    return Rendered(data=data, pagination=pagination)


def _page(render_item: Callable[[Any], Any]) -> Callable[[Any, str], Rendered]:
    def rendered(page: Any, _base_url: str) -> Rendered:
        return Rendered(
            data=[render_item(item) for item in page.items],
            pagination=wire.pagination(page.page, page.per_page, page.total),
        )

    return rendered


def _document(render: Callable[[Any], Any]) -> Callable[[Any, str], Rendered]:
    return lambda result, _base_url: Rendered(data=render(result))


def _rankings(ranking: Any, _base_url: str) -> Rendered:
    data, pagination = wire.ranking_page(ranking)
    return Rendered(data=data, pagination=pagination, meta={"ranking": wire.ranking_meta(ranking)})


RENDERERS: dict[str, Callable[[Any, str], Rendered]] = {
    "searchSchools": _public_search,
    "getSchool": _public_school,
    "getSchoolLegacy": _public_school,
    "getMeta": _document(wire.meta_document),
    "getDataFreshness": _page(wire.freshness_item),
    "listSchools": _list,
    "searchSchoolsCommercial": _list,
    "nearbySchools": _list,
    "listLocalAuthorities": _page(wire.authority),
    "getSchoolProfile": lambda profile, base: Rendered(
        data=wire.commercial_profile(profile, base_url=base)
    ),
    "getSchoolInspections": _document(wire.inspection_history_document),
    "getSchoolResults": _document(wire.school_topics),
    "getSchoolAdmissions": _document(wire.school_topics),
    "getSchoolFinance": _document(wire.school_topics),
    "compareSchools": _document(wire.comparison_document),
    "getRankings": _rankings,
}


def render(outcome: Outcome, *, base_url: str) -> Rendered:
    return RENDERERS[outcome.operation.name](outcome.result, base_url)


def body(outcome: Outcome, *, base_url: str, request_id: str) -> Json:
    """The whole answer: a public shape, or the commercial envelope."""
    rendered = render(outcome, base_url=base_url)
    if not outcome.keyed:
        return rendered.data  # type: ignore[no-any-return]
    document = wire.envelope(
        rendered.data,
        request_id=request_id,
        sources=list(outcome.sources),
        pagination=rendered.pagination,
    )
    if rendered.meta:
        document["meta"].update(rendered.meta)
    return document
