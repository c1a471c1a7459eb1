"""The MCP tools: two public, ten commercial. Each is one row: name, entitlement (the same
`Feature` as its REST twin), input schema, output schema, and the use case it runs.

A tool's `prepare` runs its use case's argument rules (the same `prepare_*`/`Urn.parse` steps
REST goes through) and looks nothing up; it returns the run, which does. `invoke` meters in
between, so only a call whose arguments validated is metered.

Public tools answer with the public boundary (the JSON of anonymous REST); commercial tools
answer with the commercial envelope `{"data", "meta"}` of keyed REST. Every JSON shape comes
from `entrypoints.wire`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from attrs import frozen

from schooldata.application.access import Caller
from schooldata.application.commercial import ListAnswer, ListRequest
from schooldata.application.search_schools import PublicSearchRequest
from schooldata.application.service import Application
from schooldata.domain.errors import DataUnavailable, DomainError
from schooldata.domain.plans import Feature, Plan
from schooldata.domain.urn import Urn
from schooldata.entrypoints import wire
from schooldata.entrypoints.mcp_server import schemas as s
from schooldata.entrypoints.mcp_server import summaries

Json = dict[str, Any]
Run = Callable[[], Json]


@frozen(kw_only=True)
class ToolCall:
    """One call whose arguments passed the tool's input schema: what `prepare` gets."""

    app: Application
    caller: Caller | None
    arguments: Mapping[str, Any]
    base_url: str
    request_id: str

    @property
    def plan(self) -> Plan:
        if self.caller is None:  # pragma: no cover - commercial tools are never listed anonymously
            raise RuntimeError("a commercial tool ran without a caller")
        return self.caller.plan

    def envelope(self, data: Any, *, pagination: dict[str, int] | None = None) -> Json:
        """The commercial envelope, as keyed REST builds it (request id, dataset time, sources)."""
        return wire.envelope(
            data,
            request_id=self.request_id,
            sources=self.app.ports.datasets.current(),
            pagination=pagination,
        )


@frozen(kw_only=True)
class ToolSpec:
    name: str
    title: str
    description: str
    feature: Feature | None  # None: a public tool (anonymous, never metered)
    input_schema: Callable[[Plan | None], s.Schema]
    output_schema: s.Schema
    prepare: Callable[[ToolCall], Run]  # raises the argument errors; the run may not
    summary: Callable[[Mapping[str, Any]], str]


class SearchUnavailable(DomainError):
    """Public search keeps its documented failure ('temporarily unavailable', REST 500)."""

    code = "search_unavailable"


def _fixed(schema: s.Schema) -> Callable[[Plan | None], s.Schema]:
    return lambda _plan: schema


def _for_plan(build: Callable[[Plan], s.Schema]) -> Callable[[Plan | None], s.Schema]:
    def schema(plan: Plan | None) -> s.Schema:
        if plan is None:  # pragma: no cover - commercial tools are listed only to keyed callers
            raise ValueError("a commercial tool's schema depends on the caller's plan")
        return build(plan)

    return schema


# ---------------------------------------------------------------------------- public


def _public_search(call: ToolCall) -> Run:
    search = call.app.search_schools
    prepared = search.prepare(PublicSearchRequest.from_params(call.arguments))

    def run() -> Json:
        try:
            answer = search.run(prepared)
        except DataUnavailable:
            raise SearchUnavailable(
                "The search service is temporarily unavailable; please retry."
            ) from None
        return wire.public_search_response(answer, base_url=call.base_url)

    return run


def _public_school(call: ToolCall) -> Run:
    urn = Urn.parse(call.arguments["urn"])
    return lambda: wire.public_school_record(
        call.app.get_school.execute(urn), base_url=call.base_url
    )


PUBLIC_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="search_schools",
        title="Search schools",
        description=(
            "Search open UK schools by name, local authority or school type, or find the schools "
            "nearest a UK postcode. Give `query`, `postcode` or both (at least one is required). "
            "With a postcode, results are nearest first and carry distanceMiles; `radius_miles` "
            "(0.1-100) bounds the distance. Optional `phase` filter; `limit` 1-25 (default 10). "
            "`total` counts every match, `results` holds at most `limit`. Public fields only; "
            "null means unavailable or suppressed, never zero. Use get_school with a result's "
            "urn for its full public record."
        ),
        feature=None,
        input_schema=_fixed(s.PUBLIC_SEARCH_INPUT),
        output_schema=s.or_error(s.SEARCH_RESPONSE, s.PUBLIC_ERROR),
        prepare=_public_search,
        summary=summaries.public_search,
    ),
    ToolSpec(
        name="get_school",
        title="Get a school",
        description=(
            "Get the current public record of one open school by its six-digit URN (for example "
            "a urn from search_schools): name, town, postcode, phase, type, Ofsted grade "
            "(single-word grades are historic after 2025-11-10) and svcScore, a 0-100 comparison "
            "signal that is null, with scoreSuppressed and a reason, when the evidence is not "
            "comparable. Null means unavailable or suppressed, never zero. A closed or unknown "
            "URN is not found."
        ),
        feature=None,
        input_schema=_fixed(s.URN_INPUT),
        output_schema=s.or_error(s.SCHOOL_RECORD, s.PUBLIC_ERROR),
        prepare=_public_school,
        summary=summaries.public_school,
    ),
)

# ---------------------------------------------------------------------------- commercial


def _list_envelope(call: ToolCall, answer: ListAnswer) -> Json:
    data, pagination = wire.list_page(answer, base_url=call.base_url)
    return call.envelope(data, pagination=pagination)


def _listing(prepare: Callable[[ToolCall], ListRequest]) -> Callable[[ToolCall], Run]:
    def prepared(call: ToolCall) -> Run:
        request = prepare(call)
        return lambda: _list_envelope(call, call.app.commercial.find(request))

    return prepared


def _search(call: ToolCall) -> ListRequest:
    return call.app.commercial.prepare_search(dict(call.arguments), call.plan)


def _nearby(call: ToolCall) -> ListRequest:
    return call.app.commercial.prepare_nearby(dict(call.arguments), call.plan)


def _profile(call: ToolCall) -> Run:
    urn = Urn.parse(call.arguments["urn"])
    return lambda: call.envelope(
        wire.commercial_profile(call.app.commercial.profile(urn), base_url=call.base_url)
    )


def _freshness(call: ToolCall) -> Run:
    about = call.app.about
    request = about.prepare_freshness(dict(call.arguments), call.plan)

    def run() -> Json:
        page = about.freshness_of(request)
        return call.envelope(
            [wire.freshness_item(f) for f in page.items],
            pagination=wire.pagination(page.page, page.per_page, page.total),
        )

    return run


def _rankings(call: ToolCall) -> Run:
    data_api = call.app.school_data
    request = data_api.prepare_rankings(dict(call.arguments), call.plan)

    def run() -> Json:
        ranking = data_api.rank(request)
        data, pagination = wire.ranking_page(ranking)
        body = call.envelope(data, pagination=pagination)
        body["meta"]["ranking"] = wire.ranking_meta(ranking)
        return body

    return run


def _compare(call: ToolCall) -> Run:
    data_api = call.app.school_data
    urns = data_api.prepare_compare(call.arguments["urns"], call.plan)
    return lambda: call.envelope(wire.comparison_document(data_api.compare_schools(urns)))


def _of_urn(fetch: Callable[[ToolCall, Urn], Any]) -> Callable[[ToolCall], Run]:
    """A tool of one URN: parse it, then fetch and render the `data`."""

    def prepared(call: ToolCall) -> Run:
        urn = Urn.parse(call.arguments["urn"])
        return lambda: call.envelope(fetch(call, urn))

    return prepared


def _dataset(
    name: str,
    title: str,
    feature: Feature,
    description: str,
    output: s.Schema,
    prepare: Callable[[ToolCall], Run],
    summary: Callable[[Mapping[str, Any]], str],
    inputs: Callable[[Plan | None], s.Schema] | None = None,
) -> ToolSpec:
    """One dataset tool whose answer is the envelope of one document. The input is one URN
    unless `inputs` says otherwise."""
    return ToolSpec(
        name=name,
        title=title,
        description=description,
        feature=feature,
        input_schema=inputs or _fixed(s.URN_INPUT),
        output_schema=s.or_error(s.envelope(output), s.COMMERCIAL_ERROR),
        prepare=prepare,
        summary=summary,
    )


_NULLS = "Null means unavailable or suppressed, never zero; each figure carries its status."

COMMERCIAL_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="search_schools",
        title="Search schools",
        description=(
            "Search open schools by name, local authority or type (`q`, required, at least 2 "
            "characters), with optional filters (phase, local_authority, type, gender, "
            "ofsted_rating, min_score), `sort` and paging (`page`, `per_page`). Returns the "
            "commercial list envelope: `data` (schools) and `meta` (pagination with true "
            "totals, sources, data_updated_at, request_id). Ties break by URN, so paging is "
            "deterministic. For schools near a place use find_schools_near_location."
        ),
        feature=Feature.SCHOOLS_SEARCH,
        input_schema=_for_plan(s.commercial_search_input),
        output_schema=s.LIST_OUTPUT,
        prepare=_listing(_search),
        summary=summaries.commercial_list,
    ),
    ToolSpec(
        name="get_school",
        title="Get a school's profile",
        description=(
            "Get the stable joined profile of one open school by six-digit URN: every "
            "commercially licensed field, its predecessor/successor links, and the addresses of "
            "its inspections, results, admissions and finance resources. " + _NULLS
        ),
        feature=Feature.SCHOOL_PROFILE,
        input_schema=_fixed(s.URN_INPUT),
        output_schema=s.or_error(s.envelope(s.PROFILE), s.COMMERCIAL_ERROR),
        prepare=_profile,
        summary=summaries.profile,
    ),
    ToolSpec(
        name="find_schools_near_location",
        title="Find schools near a location",
        description=(
            "Find open schools near a UK postcode or a latitude/longitude point, nearest first, "
            "each with distance_miles. Give `postcode` or `latitude` with `longitude` (one "
            "origin, not both); `radius_miles` (0.1-100) bounds the distance. Optional `q`, "
            "filters (phase, local_authority, type, gender, ofsted_rating, min_score), `sort` "
            "and paging. Returns the commercial list envelope. An unknown postcode is an error."
        ),
        feature=Feature.SCHOOLS_NEARBY,
        input_schema=_for_plan(s.nearby_input),
        output_schema=s.LIST_OUTPUT,
        prepare=_listing(_nearby),
        summary=summaries.commercial_list,
    ),
    _dataset(
        "compare_schools",
        "Compare schools",
        Feature.COMPARE,
        "Compare 2 or more open schools (the plan sets the maximum) side by side: for each, "
        "its headline facts and the latest comparable headline measures for its phase, each "
        "with status and period. An unknown URN fails naming it. " + _NULLS,
        s.COMPARISON,
        _compare,
        summaries.comparison,
        inputs=_for_plan(s.compare_input),
    ),
    _dataset(
        "get_school_inspection_history",
        "Get a school's inspection history",
        Feature.INSPECTIONS,
        "Structured Ofsted inspection history of one school, newest first: report-card "
        "evaluation areas and safeguarding (from 2025-11-10), and graded inspections (overall "
        "effectiveness 1-4, historic and not comparable with report cards). Independent-school "
        "inspectorate material is never included.",
        s.INSPECTIONS,
        _of_urn(
            lambda c, urn: wire.inspection_history_document(c.app.school_data.inspections(urn))
        ),
        summaries.inspections,
    ),
    _dataset(
        "get_school_results",
        "Get a school's results",
        Feature.RESULTS,
        "Results of one school by stage (KS2, KS4, 16-18 and 16-18 destinations): each "
        "measure's latest value with status, period and cohort, and its trend. Progress 8 for "
        "2024/25 is null with reason no_ks2_baseline; destinations are the 2022/23 institution "
        "cohort. " + _NULLS,
        s.RESULTS,
        _of_urn(lambda c, urn: wire.school_topics(c.app.school_data.results(urn))),
        summaries.topics,
    ),
    _dataset(
        "get_school_admissions",
        "Get a school's admissions",
        Feature.ADMISSIONS,
        "Admissions policy and demand data of one school (as published for state-funded "
        "primary and secondary schools in England), with periods and trends. " + _NULLS,
        s.ADMISSIONS,
        _of_urn(lambda c, urn: wire.school_topics(c.app.school_data.admissions(urn))),
        summaries.topics,
    ),
    _dataset(
        "get_school_finances",
        "Get a school's finances",
        Feature.FINANCE,
        "Finance and funding measures of one school (as published for maintained schools and "
        "academies in England), with periods and trends. " + _NULLS,
        s.FINANCE,
        _of_urn(lambda c, urn: wire.school_topics(c.app.school_data.finance(urn))),
        summaries.topics,
    ),
    ToolSpec(
        name="get_school_data_freshness",
        title="Get data freshness",
        description=(
            "Which datasets the service holds and how fresh they are: for each, its publisher, "
            "the period it covers, update cadence, coverage, extract date and import time. "
            "A list like the others: optional page and per_page."
        ),
        feature=Feature.DATA_FRESHNESS,
        input_schema=_for_plan(s.paging_input),
        output_schema=s.or_error(
            s.envelope({"type": "array", "items": s.FRESHNESS_ITEM}, paginated=True),
            s.COMMERCIAL_ERROR,
        ),
        prepare=_freshness,
        summary=summaries.freshness,
    ),
    ToolSpec(
        name="get_school_rankings",
        title="Get school rankings",
        description=(
            "Rank open schools of one phase (optionally one local authority) by svc_score or a "
            "rankable published measure, highest first unless order is asc. Schools whose value "
            "is suppressed, missing, stale or not comparable are left out and counted by reason "
            "in meta.ranking.excluded. Ties break by URN. Paged like the lists."
        ),
        feature=Feature.RANKINGS,
        input_schema=_for_plan(s.rankings_input),
        output_schema=s.or_error(
            s.envelope(
                {"type": "array", "items": s.RANKED},
                paginated=True,
                meta={"ranking": s.RANKING_META},
            ),
            s.COMMERCIAL_ERROR,
        ),
        prepare=_rankings,
        summary=summaries.rankings,
    ),
)


class ToolCatalogue:
    """Which tools a caller sees: the public two anonymously, the commercial ten with a key."""

    def __init__(self) -> None:
        self._public = {t.name: t for t in PUBLIC_TOOLS}
        self._commercial = {t.name: t for t in COMMERCIAL_TOOLS}

    def tools_for(self, caller: Caller | None) -> tuple[ToolSpec, ...]:
        return PUBLIC_TOOLS if caller is None else COMMERCIAL_TOOLS

    def find(self, name: str, caller: Caller | None) -> ToolSpec | None:
        return (self._public if caller is None else self._commercial).get(name)

    @staticmethod
    def plans_with(feature: Feature, app: Application) -> list[str]:
        return [plan.name for plan in app.plans.all() if feature in plan.features]
