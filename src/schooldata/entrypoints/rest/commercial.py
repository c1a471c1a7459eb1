"""Commercial REST routes: translate HTTP to the use cases through the gate. Nothing else."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get

from schooldata.application.access import Caller
from schooldata.application.commercial import ListAnswer
from schooldata.domain.plans import Feature
from schooldata.entrypoints import wire
from schooldata.entrypoints.rest.gate import CommercialGate, Envelope, query_params
from schooldata.entrypoints.rest.public import reject_parameters

API = "/api/v1"


def _list_envelope(
    gate: CommercialGate, request: Request[Any, Any, Any], answer: ListAnswer
) -> Envelope:
    base = gate.base_url(request)
    data = [
        wire.commercial_list_item(h, base_url=base, with_distance=answer.with_distance)
        for h in answer.result.hits
    ]
    pagination = {
        "page": answer.page,
        "per_page": answer.per_page,
        "total": answer.result.total,
        "total_pages": answer.total_pages,
    }
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
        def produce(_: Caller) -> Envelope:
            reject_parameters(request, ())
            return gate.envelope(request, [wire.freshness_item(f) for f in app.about.freshness()])

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
            pagination = {
                "page": page.page,
                "per_page": page.per_page,
                "total": page.total,
                "total_pages": (page.total + page.per_page - 1) // page.per_page,
            }
            return gate.envelope(
                request, [wire.authority(a) for a in page.items], pagination=pagination
            )

        return gate.run(request, Feature.LOCAL_AUTHORITIES, produce)

    return [meta, freshness, list_schools, search_schools, nearby, authorities]


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
