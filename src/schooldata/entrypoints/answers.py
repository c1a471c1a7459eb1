"""An outcome of the pipeline as JSON, the same for every face: the public shapes whole, or the
commercial envelope (`data`, and `meta` with request id, dataset time, pagination, sources).

`OUTPUTS` says, for each operation of the registry, which declared Struct its answer is (the
public body, or the envelope of its `data`) and how its result fills it: the same Structs
encode the answer and give the OpenAPI document and the MCP tools their output schemas.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from attrs import frozen
from msgspec import Struct

from schooldata.application.operations.registry import REGISTRY
from schooldata.application.pipeline import Outcome
from schooldata.entrypoints.wire import commercial, comparisons, datasets, envelope, public
from schooldata.entrypoints.wire.envelope import ListMeta, Meta, Pagination
from schooldata.entrypoints.wire.records import SchoolProfile, SchoolRecord

Json = dict[str, Any]
Render = Callable[[Any, str], "Shown"]


@frozen(kw_only=True)
class Shown:
    """A result as Structs: `data`, and for lists its pagination (and how a ranking ranked)."""

    data: Any
    pagination: Pagination | None = None
    ranking: comparisons.RankingSummary | None = None


@frozen
class Output:
    """One operation's answer: the Struct of its body, and how its result fills it. `meta`
    is None for a public shape (the body is `data` itself), else the envelope's meta."""

    body: Any
    render: Render
    meta: type[Struct] | None = None


def _public(body: Any, render: Render) -> Output:
    return Output(body, render)


def _keyed(name: str, data: Any, meta: type[Struct], render: Render) -> Output:
    return Output(envelope.envelope_of(name, data, meta), render, meta)


def _document(build: Callable[[Any], Any]) -> Render:
    return lambda result, _base_url: Shown(data=build(result))


def _page(build: Callable[[Any], Any]) -> Render:
    def shown(page: Any, _base_url: str) -> Shown:
        return Shown(
            data=[build(item) for item in page.items],
            pagination=envelope.pagination(page.page, page.per_page, page.total),
        )

    return shown


def _schools(answer: Any, base_url: str) -> Shown:
    with_distance = answer.with_distance
    return Shown(
        data=[
            commercial.list_item(hit, base_url=base_url, with_distance=with_distance)
            for hit in answer.result.hits
        ],
        pagination=envelope.pagination(answer.page, answer.per_page, answer.result.total),
    )


def _rankings(ranking: Any, _base_url: str) -> Shown:
    return Shown(
        data=comparisons.ranked_schools(ranking),
        pagination=envelope.pagination(ranking.page, ranking.per_page, ranking.total),
        ranking=comparisons.ranking_summary(ranking),
    )


def _search(answer: Any, base_url: str) -> Shown:
    return Shown(data=public.search_response(answer, base_url=base_url))


def _record(school: Any, base_url: str) -> Shown:
    return Shown(data=public.school_record(school, base_url=base_url))


def _profile(answer: Any, base_url: str) -> Shown:
    return Shown(data=commercial.profile(answer, base_url=base_url))


SCHOOL_PAGE = envelope.envelope_of("SchoolPage", list[commercial.SchoolListItem], ListMeta)

OUTPUTS: dict[str, Output] = {
    "searchSchools": _public(public.SearchResponse, _search),
    "getSchool": _public(SchoolRecord, _record),
    "getSchoolLegacy": _public(SchoolRecord, _record),
    "getMeta": _keyed(
        "ServiceAnswer", commercial.ServiceDocument, Meta, _document(commercial.meta_document)
    ),
    "getDataFreshness": _keyed(
        "FreshnessPage",
        list[commercial.FreshnessItem],
        ListMeta,
        _page(commercial.freshness_item),
    ),
    "listSchools": Output(SCHOOL_PAGE, _schools, ListMeta),
    "searchSchoolsCommercial": Output(SCHOOL_PAGE, _schools, ListMeta),
    "nearbySchools": Output(SCHOOL_PAGE, _schools, ListMeta),
    "listLocalAuthorities": _keyed(
        "AuthorityPage", list[commercial.Authority], ListMeta, _page(commercial.authority)
    ),
    "getSchoolProfile": _keyed("SchoolProfileAnswer", SchoolProfile, Meta, _profile),
    "getSchoolInspections": _keyed(
        "InspectionHistoryAnswer",
        datasets.InspectionHistoryDocument,
        Meta,
        _document(datasets.inspection_history),
    ),
    "getSchoolResults": _keyed(
        "SchoolResultsAnswer", datasets.ResultsDocument, Meta, _document(datasets.school_topics)
    ),
    "getSchoolAdmissions": _keyed(
        "SchoolAdmissionsAnswer",
        datasets.AdmissionsDocument,
        Meta,
        _document(datasets.school_topics),
    ),
    "getSchoolFinance": _keyed(
        "SchoolFinanceAnswer", datasets.FinanceDocument, Meta, _document(datasets.school_topics)
    ),
    "compareSchools": _keyed(
        "ComparisonAnswer", comparisons.ComparisonDocument, Meta, _document(comparisons.comparison)
    ),
    "getRankings": _keyed(
        "RankingPage", list[comparisons.RankedSchool], comparisons.RankingMeta, _rankings
    ),
}


def _every_operation_has_an_output() -> None:
    """An operation the registry declares but no row here renders fails at start, named."""
    missing = {op.name for op in REGISTRY.operations} - set(OUTPUTS)
    if missing:
        raise RuntimeError(f"no output declared in entrypoints/answers.py for {sorted(missing)}")


_every_operation_has_an_output()


def shown(outcome: Outcome, *, base_url: str) -> Shown:
    return OUTPUTS[outcome.operation.name].render(outcome.result, base_url)


def shape(outcome: Outcome, *, base_url: str, request_id: str) -> Any:
    """The whole answer as its declared Struct: a public shape, or the commercial envelope."""
    output = OUTPUTS[outcome.operation.name]
    result = output.render(outcome.result, base_url)
    if output.meta is None or not outcome.keyed:
        return result.data
    meta: dict[str, Any] = {
        "request_id": request_id,
        "data_updated_at": envelope.data_updated_at(outcome.sources),
        "sources": envelope.sources(outcome.sources),
    }
    if result.pagination is not None:
        meta["pagination"] = result.pagination
    if result.ranking is not None:
        meta["ranking"] = result.ranking
    return output.body(data=result.data, meta=output.meta(**meta))


def body(outcome: Outcome, *, base_url: str, request_id: str) -> Json:
    """The whole answer as plain JSON values (MCP's structuredContent, the CLI)."""
    return msgspec.to_builtins(shape(outcome, base_url=base_url, request_id=request_id))  # type: ignore[no-any-return]


def encoded(outcome: Outcome, *, base_url: str, request_id: str) -> bytes:
    """The whole answer as JSON bytes, ready to send (REST)."""
    return msgspec.json.encode(shape(outcome, base_url=base_url, request_id=request_id))


@frozen(kw_only=True)
class Rendered:
    """`data`, its pagination and any extra members of `meta`, as plain JSON values: what a
    face that lays answers out itself (the CLI, the BDD driver) reads."""

    data: Any
    pagination: dict[str, int] | None = None
    meta: Json | None = None


def render(outcome: Outcome, *, base_url: str) -> Rendered:
    result = shown(outcome, base_url=base_url)
    return Rendered(
        data=msgspec.to_builtins(result.data),
        pagination=None if result.pagination is None else msgspec.to_builtins(result.pagination),
        meta=None if result.ranking is None else {"ranking": msgspec.to_builtins(result.ranking)},
    )
