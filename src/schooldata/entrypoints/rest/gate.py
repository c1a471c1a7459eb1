"""The commercial gate: authenticate once, then entitle, rate-limit, meter, answer, envelope.

Every keyed REST route goes through `CommercialGate.run`, so the order of checks, the six
metering headers and the error shapes are the same everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from litestar import Request, Response

from schooldata.application.access import Caller
from schooldata.application.service import Application
from schooldata.domain.errors import DataUnavailable, DomainError
from schooldata.domain.keys import AuthenticationFailed, MissingApiKey
from schooldata.domain.metering import LimitReached, MeterReading
from schooldata.domain.plans import Feature
from schooldata.entrypoints import wire
from schooldata.entrypoints.rest.errors import (
    COMMERCIAL_TIER_KEY,
    commercial_error,
    request_id_of,
    status_of,
)

NO_STORE = {"Cache-Control": "no-store"}
FEATURE_KEY = "schooldata.feature"
Envelope = dict[str, Any]


def query_params(request: Request[Any, Any, Any]) -> dict[str, object]:
    """First value of each query parameter (names kept as sent, for unknown-parameter checks)."""
    return {name: request.query_params.getall(name)[0] for name in request.query_params}


class CommercialGate:
    def __init__(self, app: Application, *, base_url: str | None) -> None:
        self.app = app
        self._base_url = base_url

    def base_url(self, request: Request[Any, Any, Any]) -> str:
        return (self._base_url or str(request.base_url)).rstrip("/")

    def authenticate(self, request: Request[Any, Any, Any]) -> Caller | None:
        """None for an anonymous request; raises for bad credentials (never downgrades)."""
        headers = request.headers
        return self.app.authenticate.execute(
            authorization=headers.get("authorization"), x_api_key=headers.get("x-api-key")
        )

    def auth_failure(
        self, request: Request[Any, Any, Any], error: AuthenticationFailed | DataUnavailable
    ) -> Response[Any]:
        request.scope[COMMERCIAL_TIER_KEY] = True  # type: ignore[literal-required]
        if isinstance(error, DataUnavailable):
            return commercial_error(request, 503, error.code, error.message, headers=NO_STORE)
        headers = {"WWW-Authenticate": 'Bearer realm="schooldata"', **NO_STORE}
        return commercial_error(request, 401, error.code, error.message, headers=headers)

    def run(
        self,
        request: Request[Any, Any, Any],
        feature: Feature,
        produce: Callable[[Caller], Envelope],
        *,
        caller: Caller | None = None,
    ) -> Response[Any]:
        request.scope[COMMERCIAL_TIER_KEY] = True  # type: ignore[literal-required]
        if caller is None:
            try:
                caller = self.authenticate(request)
                if caller is None:
                    raise MissingApiKey()
            except (AuthenticationFailed, DataUnavailable) as error:
                return self.auth_failure(request, error)
        try:
            reading = self.app.meter.admit(caller, feature)
        except LimitReached as limited:
            headers = {**limited.reading.headers(), "Retry-After": str(limited.retry_after)}
            return self._error(request, 429, limited, headers)
        except DomainError as error:
            return self._error(request, status_of(error), error, self._peek(caller))
        try:
            body = produce(caller)
        except DomainError as error:
            return self._error(request, status_of(error), error, reading.headers())
        # What was metered, for the keyed replay layer (it meters its replays the same way).
        request.scope[FEATURE_KEY] = feature  # type: ignore[literal-required]
        return Response(body, headers={**reading.headers(), **NO_STORE})

    def envelope(
        self,
        request: Request[Any, Any, Any],
        data: Any,
        *,
        pagination: dict[str, int] | None = None,
    ) -> Envelope:
        return wire.envelope(
            data,
            request_id=request_id_of(request),
            sources=self.app.ports.datasets.current(),
            pagination=pagination,
        )

    def _peek(self, caller: Caller) -> dict[str, str]:
        try:
            reading: MeterReading = self.app.meter.peek(caller)
        except DataUnavailable:
            return {}
        return reading.headers()

    @staticmethod
    def _error(
        request: Request[Any, Any, Any], status: int, error: DomainError, headers: dict[str, str]
    ) -> Response[Any]:
        details = {k: v for k, v in error.details.items() if k != "retry_after"}
        return commercial_error(
            request, status, error.code, error.message, details, headers={**headers, **NO_STORE}
        )
