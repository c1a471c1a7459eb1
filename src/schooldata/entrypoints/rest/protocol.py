"""What HTTP asks of every route beside its operations: OPTIONS, a method it does not serve
(405), a body over the limit (413), and a page another layer serves (Litestar's).

Credentials sent with any of these are still authenticated (DECISIONS: any request that
carries them is): a bad key gets 401; a known caller's answer carries its meter readings
(nothing is metered). An existing commercial address refuses in the commercial shape; a
public one in the shape the credentials choose. The headers come in the order Litestar
gave them when it answered these itself.
"""

from __future__ import annotations

import anyio.to_thread

from schooldata.application.access import Caller
from schooldata.application.pipeline import Pipeline, Refused
from schooldata.domain.keys import AuthenticationFailed
from schooldata.entrypoints.http.answer import Answer, Headers, encoded
from schooldata.entrypoints.http.request import HttpRequest
from schooldata.entrypoints.http.route_table import Route
from schooldata.entrypoints.refusals import METHOD_NOT_ALLOWED
from schooldata.entrypoints.rest.responses import NO_STORE, http_refusal, refusal_response


class Protocol:
    def __init__(self, pipeline: Pipeline) -> None:
        self._pipeline = pipeline

    async def options(self, route: Route, request: HttpRequest) -> Answer:
        """204 with `Allow`; a known caller's meter readings after the edge's own headers."""
        allow: Headers = [(b"allow", route.options_allow)]
        if not request.has_credentials:
            return Answer(204, b"", allow)
        identified = await self._identify(request, route)
        if isinstance(identified, Answer):
            return identified
        late = None if identified is None else await self._readings(identified)
        return Answer(204, b"", allow, late=late)

    async def not_allowed(self, route: Route, request: HttpRequest) -> Answer:
        return await self.refused(route, request, METHOD_NOT_ALLOWED, [(b"allow", route.allow)])

    async def refused(
        self,
        route: Route,
        request: HttpRequest,
        refusal: tuple[int, str, str],
        headers: Headers | None = None,
    ) -> Answer:
        """A refusal HTTP makes, after any credentials are authenticated."""
        sent = list(headers or ())
        if request.has_credentials:
            identified = await self._identify(request, route)
            if isinstance(identified, Answer):
                return identified
            if identified is not None:
                sent += await self._readings(identified)
                sent += encoded(NO_STORE)
        public = not route.commercial and not request.has_credentials
        return http_refusal(
            refusal, request_id=request.id, public=public, headers=sent, route=route.template
        )

    async def page(self, route: Route, request: HttpRequest) -> Answer | None:
        """None: Litestar serves the page. A page that authenticates credentials first (the
        OpenAPI document) refuses bad ones here."""
        if not route.identifies or not request.has_credentials:
            return None
        identified = await self._identify(request, route, type_first=True)
        return identified if isinstance(identified, Answer) else None

    async def authenticated(self, request: HttpRequest) -> Refused | None:
        """The refusal of the credentials sent, or None when they name a caller."""
        try:
            if request.conflict is not None:
                raise Refused(request.conflict, keyed=True)
            try:
                await anyio.to_thread.run_sync(self._pipeline.identify, request.credentials)
            except AuthenticationFailed as error:
                raise Refused(error, keyed=True) from None
        except Refused as refused:
            return refused
        return None

    async def _identify(
        self, request: HttpRequest, route: Route, *, type_first: bool = False
    ) -> Answer | Caller | None:
        """The caller the credentials name (None: anonymous), or the refusal of bad ones."""
        try:
            if request.conflict is not None:
                raise Refused(request.conflict, keyed=True)
            try:
                return await anyio.to_thread.run_sync(self._pipeline.identify, request.credentials)
            except AuthenticationFailed as error:
                raise Refused(error, keyed=True) from None
        except Refused as refused:
            return refusal_response(
                refused, request_id=request.id, route=route.template, type_first=type_first
            )

    async def _readings(self, caller: Caller) -> Headers:
        """The caller's six meter headers as they stand (nothing is metered)."""
        reading = await anyio.to_thread.run_sync(self._pipeline.peek, caller)
        return [] if reading is None else encoded(reading.headers())
