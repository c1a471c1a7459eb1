"""The public (anonymous) REST operations: thin translations from HTTP to the use cases."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get

from schooldata.application.parameters import reject_unknown
from schooldata.application.search_schools import PUBLIC_SEARCH_PARAMETERS, PublicSearchRequest
from schooldata.application.service import Application
from schooldata.domain.errors import DataUnavailable, DomainError
from schooldata.domain.keys import AuthenticationFailed
from schooldata.entrypoints import wire
from schooldata.entrypoints.rest.errors import domain_error_response, public_error
from schooldata.entrypoints.rest.gate import CommercialGate, single_query_value

PUBLIC_ROUTES = ("/api/v1/search", "/api/get-school")
# RFC 9745: deprecated since the versioned API's v1 launch (2026-08-19T00:00:00Z).
LEGACY_HEADERS = {"Deprecation": "@1787097600"}


def base_url_of(request: Request[Any, Any, Any], configured: str | None) -> str:
    if configured:
        return configured.rstrip("/")
    return str(request.base_url).rstrip("/")


def search_request_from(request: Request[Any, Any, Any]) -> PublicSearchRequest:
    return PublicSearchRequest.from_params(
        {name: single_query_value(request, name) for name in PUBLIC_SEARCH_PARAMETERS}
    )


def reject_parameters(request: Request[Any, Any, Any], allowed: tuple[str, ...]) -> None:
    reject_unknown(dict.fromkeys(request.query_params), allowed)


def keyed_caller_failure(
    gate: CommercialGate, request: Request[Any, Any, Any]
) -> Response[Any] | None:
    """Public routes still authenticate any credentials they carry: a bad key gets 401, a
    valid key gets the public answer, unmetered (DECISIONS: Authentication 3)."""
    try:
        gate.authenticate(request)
    except (AuthenticationFailed, DataUnavailable) as error:
        return gate.auth_failure(request, error)
    return None


def search_unavailable() -> Response[Any]:
    """The contract documents 500 (not 503) for an unavailable search service."""
    return public_error(
        500, "The search service is temporarily unavailable; please retry.", "search_unavailable"
    )


def public_handlers(gate: CommercialGate, *, base_url: str | None) -> list[Any]:
    app: Application = gate.app

    @get("/api/v1/search", sync_to_thread=True, name="searchSchools")
    def search_schools(request: Request[Any, Any, Any]) -> Response[Any]:
        try:
            gate.authenticate(request)
        except AuthenticationFailed as error:
            return gate.auth_failure(request, error)
        except DataUnavailable:
            # The key store is part of the search service here: its documented 500.
            return search_unavailable()
        try:
            answer = app.search_schools.execute(search_request_from(request))
        except DataUnavailable:
            return search_unavailable()
        except DomainError as error:
            return domain_error_response(request, error)
        return Response(
            wire.public_search_response(answer, base_url=base_url_of(request, base_url))
        )

    @get("/api/get-school", sync_to_thread=True, name="getSchoolLegacy")
    def get_school_legacy(request: Request[Any, Any, Any]) -> Response[Any]:
        if (failure := keyed_caller_failure(gate, request)) is not None:
            return failure
        headers = dict(LEGACY_HEADERS)
        try:
            raw = single_query_value(request, "urn")
            if raw is not None and raw.isascii() and raw.isdigit() and len(raw) == 6:
                # The successor of this very record (an invalid URN has none to point at).
                headers["Link"] = f'</api/v1/schools/{raw}>; rel="successor-version"'
            if raw is None:
                return Response(
                    wire.public_error(
                        "Query parameter 'urn' (six digits) is required.", "invalid_urn"
                    ),
                    status_code=400,
                    headers=headers,
                )
            school = app.get_school.execute(raw)
        except DomainError as error:
            response = domain_error_response(request, error)
            response.headers.update(headers)
            return response
        body = wire.public_school_record(school, base_url=base_url_of(request, base_url))
        return Response(body, headers=headers)

    return [search_schools, get_school_legacy]


def public_school_response(
    app: Application, request: Request[Any, Any, Any], urn: str, base_url: str | None
) -> Response[Any]:
    try:
        school = app.get_school.execute(urn)
    except DomainError as error:
        return domain_error_response(request, error)
    return Response(wire.public_school_record(school, base_url=base_url_of(request, base_url)))
