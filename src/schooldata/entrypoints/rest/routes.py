"""Every request the route table matched, answered on one road: HTTP in, the pipeline, HTTP
out. Litestar serves only the pages it alone knows (the operational pages, the OpenAPI
document) and what no route names.

A route translates and nothing else: the query string (parsed once), path and JSON body
become arguments with the place each arrived in; the credential headers (read once, in
`HttpRequest`) become `Credentials`; the pipeline's outcome becomes the public shape or the
commercial envelope with the six meter headers, and its refusal the tier's error body and
status. Each is returned as an `Answer` carrying its tier and caller for the edge to record.

A list answer (one whose output is a table) is JSON or CSV as the `Accept` header prefers
(`negotiation`; `Vary: Accept`), and an `Accept` allowing neither is 406 `not_acceptable`,
decided before the pipeline runs, as a malformed query string is: nothing is authenticated
or metered. A paged list carries its page links (`links`): the `Link` header, and
`meta.pagination.next`/`prev` in its JSON. Methods a route does not serve (405), bodies over
the limit (413) and OPTIONS are answered here too (`protocol.py`).
"""

from __future__ import annotations

import logging
from functools import partial

import anyio.to_thread

from schooldata.application.operations.declaration import Entry
from schooldata.application.operations.param import Place
from schooldata.application.operations.registry import REGISTRY
from schooldata.application.pipeline import Outcome, Pipeline, Refused
from schooldata.domain.errors import DomainError, NotAcceptable
from schooldata.entrypoints import answers
from schooldata.entrypoints.http.answer import Answer
from schooldata.entrypoints.http.request import HttpRequest
from schooldata.entrypoints.http.route_table import Route
from schooldata.entrypoints.refusals import INTERNAL_ERROR, PAYLOAD_TOO_LARGE
from schooldata.entrypoints.rest import links, negotiation, protocol
from schooldata.entrypoints.rest.bodies import json_body
from schooldata.entrypoints.rest.query import parse_query
from schooldata.entrypoints.rest.responses import (
    CSV_MEDIA_TYPE,
    http_refusal,
    refusal_response,
    success_response,
)
from schooldata.entrypoints.rest.transport import Receive
from schooldata.ports.keys import WouldBlock

log = logging.getLogger("schooldata.rest")

# RFC 9745: a deprecated route is deprecated since the versioned API's v1 launch
# (2026-08-19T00:00:00Z).
DEPRECATION = "@1787097600"


class Routes:
    def __init__(
        self, pipeline: Pipeline, *, base_url: str | None, max_body_bytes: int = 64 * 1024
    ) -> None:
        self._pipeline = pipeline
        self._base_url = base_url.rstrip("/") if base_url else None
        self._max_body = max_body_bytes
        self.protocol = protocol.Protocol(pipeline)

    def base_url(self, request: HttpRequest) -> str:
        return self._base_url or request.base_url()

    async def serve(self, request: HttpRequest, receive: Receive) -> Answer | None:
        """The answer of a request whose path the table matched (`request.route`), or None
        for a page GET that Litestar serves."""
        route = request.route
        assert route is not None  # (the edge asks only for matched requests)
        method = request.routed_method
        try:
            entry = route.entries.get(method)
            if entry is not None:
                body = None
                if method == "POST":
                    body = await self._body(request, receive)
                    if body is None:
                        return await self.protocol.refused(route, request, PAYLOAD_TOO_LARGE)
                return await self.answer(route, entry, request, body)
            if method == "OPTIONS":
                return await self.protocol.options(route, request)
            if route.page and method == "GET":
                return await self.protocol.page(route, request)
            return await self.protocol.not_allowed(route, request)
        except Exception:
            # Logged with the request id so support can find it; the client sees no internals.
            log.exception("unhandled error", extra={"request_id": request.id})
            public = route.public_errors(request.has_credentials)
            return http_refusal(INTERNAL_ERROR, request_id=request.id, public=public, headers=[])

    async def _body(self, request: HttpRequest, receive: Receive) -> bytes | None:
        """The whole body, or None when it is over the limit (said or sent)."""
        limit = self._max_body
        if request.content_length is not None and request.content_length > limit:
            return None
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise ConnectionError("client disconnected prematurely")
            chunk = bytes(message.get("body", b""))
            size += len(chunk)
            if size > limit:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def answer(
        self, route: Route, entry: Entry, request: HttpRequest, body: bytes | None
    ) -> Answer:
        """Runs the pipeline on the event loop when everything it reads answers from memory,
        else (`WouldBlock`, nothing counted yet) on a worker thread. A table's answers are
        JSON or CSV as the client's `Accept` chooses."""
        tabular = route.tabular[request.routed_method]
        headers: dict[str, str] = {"Vary": "Accept"} if tabular else {}
        media_type = negotiation.JSON
        template = route.template
        try:
            if tabular:
                chosen = negotiation.choose(request.accept)
                if chosen is None:
                    raise NotAcceptable(negotiation.OFFERED)
                media_type = chosen
            arguments, places = arguments_of(request, body)
            headers.update(_deprecation(entry, arguments))
            if request.conflict is not None:
                raise Refused(request.conflict, keyed=True)
            call = partial(
                self._pipeline.call,
                entry,
                arguments,
                credentials=request.credentials,
                places=places,
            )
            try:
                outcome = call(wait=False)
            except WouldBlock:
                outcome = await anyio.to_thread.run_sync(partial(call, wait=True))
        except Refused as refused:
            return refusal_response(refused, request_id=request.id, headers=headers, route=template)
        except DomainError as error:  # the query string, the body or `Accept` itself
            if route.public_only and request.has_credentials:
                # A public-only route answers in the public shape whoever asks, once any
                # credentials sent are authenticated (a bad key is still 401).
                bad = await self.protocol.authenticated(request)
                if bad is not None:
                    return refusal_response(
                        bad, request_id=request.id, headers=headers, route=template
                    )
            keyed = not route.public_only and not route.public_errors(request.has_credentials)
            return refusal_response(
                Refused(error, keyed=keyed), request_id=request.id, headers=headers, route=template
            )
        return self.answered(request, outcome, headers, media_type, template)

    def answered(
        self,
        request: HttpRequest,
        outcome: Outcome,
        headers: dict[str, str],
        media_type: str,
        route: str | None = None,
    ) -> Answer:
        """The outcome in the representation chosen, with its page links when it is a page."""
        base = self.base_url(request)
        if media_type == negotiation.JSON:  # (from fragments, when the answer has them)
            fragments = answers.public_json(outcome, base_url=base)
            if fragments is not None:
                return success_response(outcome, fragments, headers, route=route)
        as_json = media_type == negotiation.JSON
        result = answers.shown(outcome, base_url=base, as_json=as_json)
        page_url = None
        if outcome.operation.paged and result.pagination is not None:
            query = request.query
            if result.pins:
                query = links.pinned(query, result.pins)
            page_url = links.page_urls(base, outcome.operation.path, query)
            headers["Link"] = links.link_header(result.pagination, page_url)
        if media_type == negotiation.CSV and answers.table_of(outcome.operation.name):
            text = answers.csv_text(outcome, result)
            return success_response(
                outcome, text.encode("utf-8"), headers, media_type=CSV_MEDIA_TYPE, route=route
            )
        body = answers.encode_shown(outcome, result, request_id=request.id, page_url=page_url)
        return success_response(outcome, body, headers, route=route)


def arguments_of(
    request: HttpRequest, body: bytes | None
) -> tuple[dict[str, object], dict[str, Place]]:
    """Every argument and the place it arrived in; a path parameter wins over a query one of
    the same name, which is then reported as sent in the query (unknown to strict rules)."""
    arguments: dict[str, object] = dict(parse_query(request.query))
    places = dict.fromkeys(arguments, Place.QUERY)
    if body is not None:
        for name, value in json_body(request.content_type, body).items():
            places[name] = Place.QUERY if name in arguments else Place.BODY
            arguments[name] = value
    for name, value in request.params.items():
        places[name] = Place.QUERY if name in arguments else Place.PATH
        arguments[name] = value
    return arguments, places


def _deprecation(entry: Entry, arguments: dict[str, object]) -> dict[str, str]:
    """A deprecated route's headers: `Deprecation`, and a `Link` to the successor of this
    very record when the URN asked for is well formed."""
    operation = entry.public or entry.keyed
    if operation is None or operation.deprecated_for is None:
        return {}
    headers = {"Deprecation": DEPRECATION}
    raw = arguments.get("urn")
    if isinstance(raw, str) and raw.isascii() and raw.isdigit() and len(raw) == 6:
        successor = REGISTRY[operation.deprecated_for].path.replace("{urn}", raw)
        headers["Link"] = f'<{successor}>; rel="successor-version"'
    return headers
