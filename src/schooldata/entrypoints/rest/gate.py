"""The commercial gate: authenticate once, then entitle, rate-limit, meter, answer, envelope.

Every keyed REST route goes through `CommercialGate.run`, so the order of checks, the six
metering headers and the error shapes are the same everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import unquote_plus, unquote_to_bytes

from litestar import Request, Response
from litestar.exceptions import HTTPException

from schooldata.application.access import Caller
from schooldata.application.service import Application
from schooldata.domain.errors import DataUnavailable, DomainError, InvalidParameter
from schooldata.domain.keys import AuthenticationFailed, MissingApiKey, single_header_value
from schooldata.domain.metering import LimitReached, MeterReading
from schooldata.domain.plans import Feature
from schooldata.entrypoints import wire
from schooldata.entrypoints.rest.errors import (
    COMMERCIAL_TIER_KEY,
    carries_credentials,
    commercial_error,
    http_exception_response,
    request_id_of,
    status_of,
)
from schooldata.entrypoints.rest.transport import EXTRA_HEADERS_KEY

NO_STORE = {"Cache-Control": "no-store"}
FEATURE_KEY = "schooldata.feature"
Envelope = dict[str, Any]


def query_params(request: Request[Any, Any, Any]) -> dict[str, object]:
    """Each query parameter's value (names kept as sent, for unknown-parameter checks); a
    parameter given more than once is refused, never silently resolved to one of its values."""
    return {name: single_query_value(request, name) for name in request.query_params}


def single_query_value(request: Request[Any, Any, Any], name: str) -> str | None:
    """The value of query parameter `name`, None when absent; 400 when given twice or more,
    or when its bytes are not UTF-8 (a raw cp1252 `%92` would otherwise become U+FFFD and
    quietly search for something else)."""
    values = request.query_params.getall(name, [])
    if len(values) > 1:
        raise InvalidParameter(name, f"{name} was given {len(values)} times; give it once.")
    if not values:
        return None
    value = str(values[0])
    if "\ufffd" in value and not _is_utf8(request.scope.get("query_string", b""), name):
        raise InvalidParameter(name, f"{name} is not valid UTF-8 text; percent-encode UTF-8.")
    return value


def _is_utf8(query_string: bytes, name: str) -> bool:
    """Whether every value of `name` in the raw query string decodes as UTF-8."""
    for pair in query_string.split(b"&"):
        key, _, raw = pair.partition(b"=")
        if unquote_plus(key.decode("latin-1")) != name:
            continue
        try:
            unquote_to_bytes(raw.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError:
            return False
    return True


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
            authorization=single_header_value(
                headers.getall("authorization", []), header="Authorization"
            ),
            x_api_key=single_header_value(headers.getall("x-api-key", []), header="X-API-Key"),
        )

    def auth_failure(
        self, request: Request[Any, Any, Any], error: AuthenticationFailed | DataUnavailable
    ) -> Response[Any]:
        request.scope[COMMERCIAL_TIER_KEY] = True  # type: ignore[literal-required]
        if isinstance(error, DataUnavailable):
            return commercial_error(request, 503, error.code, error.message, headers=NO_STORE)
        headers = {"WWW-Authenticate": 'Bearer realm="schooldata"', **NO_STORE}
        return commercial_error(request, 401, error.code, error.message, headers=headers)

    def refusal(
        self,
        request: Request[Any, Any, Any],
        exc: HTTPException,
        *,
        commercial_route: bool = False,
    ) -> Response[Any]:
        """Litestar's own refusals (no such endpoint, method or body size), in the commercial
        shape on a commercial route. Credentials are still authenticated (DECISIONS: any
        request that carries them is): a bad key gets 401; a known caller's refusal carries
        its meter readings (nothing is metered)."""
        caller = None
        if carries_credentials(request):
            try:
                caller = self.authenticate(request)
            except (AuthenticationFailed, DataUnavailable) as error:
                return self.auth_failure(request, error)
        response = http_exception_response(request, exc, commercial_route=commercial_route)
        if caller is not None:
            response.headers.update({**self._peek(caller), **NO_STORE})
        return response

    def check_options(self, request: Request[Any, Any, Any]) -> Response[Any] | None:
        """Litestar's own OPTIONS answer, for a request that carries credentials: they are
        authenticated (a bad key gets 401) and a known caller's answer carries its meter
        readings (through the scope: the transport layer adds them), metering nothing."""
        if request.method != "OPTIONS" or not carries_credentials(request):
            return None
        try:
            caller = self.authenticate(request)
        except (AuthenticationFailed, DataUnavailable) as error:
            return self.auth_failure(request, error)
        if caller is not None:
            readings = {**self._peek(caller), **NO_STORE}
            extra = [(k.lower().encode(), v.encode()) for k, v in readings.items()]
            request.scope[EXTRA_HEADERS_KEY] = extra  # type: ignore[literal-required]
        return None

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
