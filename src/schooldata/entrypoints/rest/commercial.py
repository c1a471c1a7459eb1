"""Commercial REST routes: translate HTTP to the use cases through the gate. Nothing else."""

from __future__ import annotations

import json
from typing import Any

from litestar import Request, Response, get, post
from litestar.params import FromPath, RawBody

from schooldata.application.access import Caller
from schooldata.application.commercial import ListAnswer
from schooldata.application.parameters import reject_unknown
from schooldata.domain.errors import InvalidParameter
from schooldata.domain.plans import Feature
from schooldata.entrypoints import wire
from schooldata.entrypoints.rest.gate import CommercialGate, Envelope, query_params
from schooldata.entrypoints.rest.public import reject_parameters

API = "/api/v1"


def _list_envelope(
    gate: CommercialGate, request: Request[Any, Any, Any], answer: ListAnswer
) -> Envelope:
    data, pagination = wire.list_page(answer, base_url=gate.base_url(request))
    return gate.envelope(request, data, pagination=pagination)


def commercial_handlers(gate: CommercialGate) -> list[Any]:
    app = gate.app

    @get(f"{API}/meta", sync_to_thread=True, name="getMeta")
    def meta(request: Request[Any, Any, Any]) -> Response[Any]:
        def produce(_: Caller) -> Envelope:
            reject_parameters(request, ())
            return gate.envelope(request, wire.meta_document(app.about.meta()))

        return gate.run(request, Feature.META, produce)

    @get(f"{API}/data-freshness", sync_to_thread=True, name="getDataFreshness")
    def freshness(request: Request[Any, Any, Any]) -> Response[Any]:
        def produce(caller: Caller) -> Envelope:
            page = app.about.freshness_page(query_params(request), caller.plan)
            pagination = wire.pagination(page.page, page.per_page, page.total)
            return gate.envelope(
                request, [wire.freshness_item(f) for f in page.items], pagination=pagination
            )

        return gate.run(request, Feature.DATA_FRESHNESS, produce)

    @get(f"{API}/schools", sync_to_thread=True, name="listSchools")
    def list_schools(request: Request[Any, Any, Any]) -> Response[Any]:
        def produce(caller: Caller) -> Envelope:
            answer = app.commercial.list(query_params(request), caller.plan)
            return _list_envelope(gate, request, answer)

        return gate.run(request, Feature.SCHOOLS_LIST, produce)

    @get(f"{API}/schools/search", sync_to_thread=True, name="searchSchoolsCommercial")
    def search_schools(request: Request[Any, Any, Any]) -> Response[Any]:
        def produce(caller: Caller) -> Envelope:
            answer = app.commercial.search(query_params(request), caller.plan)
            return _list_envelope(gate, request, answer)

        return gate.run(request, Feature.SCHOOLS_SEARCH, produce)

    @get(f"{API}/schools/nearby", sync_to_thread=True, name="nearbySchools")
    def nearby(request: Request[Any, Any, Any]) -> Response[Any]:
        def produce(caller: Caller) -> Envelope:
            answer = app.commercial.nearby(query_params(request), caller.plan)
            return _list_envelope(gate, request, answer)

        return gate.run(request, Feature.SCHOOLS_NEARBY, produce)

    @get(f"{API}/areas/local-authorities", sync_to_thread=True, name="listLocalAuthorities")
    def authorities(request: Request[Any, Any, Any]) -> Response[Any]:
        def produce(caller: Caller) -> Envelope:
            page = app.commercial.local_authorities(query_params(request), caller.plan)
            pagination = wire.pagination(page.page, page.per_page, page.total)
            return gate.envelope(
                request, [wire.authority(a) for a in page.items], pagination=pagination
            )

        return gate.run(request, Feature.LOCAL_AUTHORITIES, produce)

    def school_topic(path: str, name: str, feature: Feature, render: Any, fetch: Any) -> Any:
        @get(f"{API}/schools/{{urn:str}}/{path}", sync_to_thread=True, name=name)
        def handler(request: Request[Any, Any, Any], urn: FromPath[str]) -> Response[Any]:
            def produce(_: Caller) -> Envelope:
                reject_parameters(request, ())
                return gate.envelope(request, render(fetch(urn)))

            return gate.run(request, feature, produce)

        return handler

    data = app.school_data
    topics = [
        school_topic(
            "inspections",
            "getSchoolInspections",
            Feature.INSPECTIONS,
            wire.inspection_history_document,
            data.inspections,
        ),
        school_topic(
            "results", "getSchoolResults", Feature.RESULTS, wire.school_topics, data.results
        ),
        school_topic(
            "admissions",
            "getSchoolAdmissions",
            Feature.ADMISSIONS,
            wire.school_topics,
            data.admissions,
        ),
        school_topic(
            "finance", "getSchoolFinance", Feature.FINANCE, wire.school_topics, data.finance
        ),
    ]

    @post(f"{API}/schools/compare", sync_to_thread=True, name="compareSchools", status_code=200)
    def compare(request: Request[Any, Any, Any], body: RawBody) -> Response[Any]:
        def produce(caller: Caller) -> Envelope:
            reject_parameters(request, ())
            urns = compare_body(request, body)
            return gate.envelope(request, wire.comparison_document(data.compare(urns, caller.plan)))

        return gate.run(request, Feature.COMPARE, produce)

    @get(f"{API}/rankings", sync_to_thread=True, name="getRankings")
    def rankings(request: Request[Any, Any, Any]) -> Response[Any]:
        def produce(caller: Caller) -> Envelope:
            ranking = data.rankings(query_params(request), caller.plan)
            items, pagination = wire.ranking_page(ranking)
            envelope = gate.envelope(request, items, pagination=pagination)
            envelope["meta"]["ranking"] = wire.ranking_meta(ranking)
            return envelope

        return gate.run(request, Feature.RANKINGS, produce)

    return [
        meta,
        freshness,
        list_schools,
        search_schools,
        nearby,
        authorities,
        *topics,
        compare,
        rankings,
    ]


def compare_body(request: Request[Any, Any, Any], body: bytes) -> object:
    """`{"urns": [...]}` as JSON, nothing else; every other shape is a 400 naming the problem."""
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media_type != "application/json" and not (
        media_type.startswith("application/") and media_type.endswith("+json")
    ):
        raise InvalidParameter(
            "body", "Send the body as JSON with 'Content-Type: application/json'."
        )
    try:
        document = json.loads(body.decode("utf-8"))
    except (ValueError, RecursionError):
        # ValueError: bad UTF-8, bad JSON, or an integer of more than 4300 digits;
        # RecursionError: arrays or objects nested thousands deep. All are the client's.
        raise InvalidParameter("body", "The body is not valid UTF-8 JSON.") from None
    if not isinstance(document, dict):
        raise InvalidParameter("body", 'The body must be a JSON object: {"urns": ["100000", ...]}.')
    reject_unknown(document, ("urns",))
    if "urns" not in document:
        raise InvalidParameter("urns", "urns is required.")
    return document["urns"]


def profile_response(
    gate: CommercialGate, request: Request[Any, Any, Any], urn: str, caller: Caller
) -> Response[Any]:
    def produce(_: Caller) -> Envelope:
        reject_parameters(request, ())
        profile = gate.app.commercial.profile(urn)
        return gate.envelope(
            request, wire.commercial_profile(profile, base_url=gate.base_url(request))
        )

    return gate.run(request, Feature.SCHOOL_PROFILE, produce, caller=caller)
