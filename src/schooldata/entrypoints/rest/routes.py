"""Every operation of the registry as a Litestar route: HTTP in, the pipeline, HTTP out.

A route translates and nothing else: the query string (parsed once), path and JSON body
become arguments with the place each arrived in; the credential headers become
`Credentials`; the pipeline's outcome becomes the public shape or the commercial envelope
with the six meter headers, and its refusal the tier's error body and status.

A list answer (one whose output is a table) is JSON or CSV as the `Accept` header prefers
(`negotiation`; `Vary: Accept`), and an `Accept` allowing neither is 406 `not_acceptable`,
decided before the pipeline runs, as a malformed query string is: nothing is authenticated
or metered. A paged list carries its page links (`links`): the `Link` header, and
`meta.pagination.next`/`prev` in its JSON.
"""

from __future__ import annotations

from functools import partial
from typing import Any, cast

import anyio.to_thread
from litestar import Request

from schooldata.application.access import Caller
from schooldata.application.operations.declaration import Entry
from schooldata.application.operations.param import Place
from schooldata.application.operations.registry import REGISTRY
from schooldata.application.pipeline import ANONYMOUS, Credentials, Outcome, Pipeline, Refused
from schooldata.domain.credentials import single_header_value
from schooldata.domain.errors import DomainError, NotAcceptable
from schooldata.domain.keys import AuthenticationFailed
from schooldata.entrypoints import answers
from schooldata.entrypoints.rest import links, negotiation
from schooldata.entrypoints.rest.bodies import json_body
from schooldata.entrypoints.rest.edge import KEY_PREFIX_KEY
from schooldata.entrypoints.rest.errors import COMMERCIAL_TIER_KEY
from schooldata.entrypoints.rest.query import parse_query
from schooldata.entrypoints.rest.responses import (
    CSV_MEDIA_TYPE,
    Reply,
    refusal_response,
    success_response,
)
from schooldata.entrypoints.rest.transport import Scope
from schooldata.entrypoints.scope import base_url_of, request_id_in
from schooldata.ports.keys import WouldBlock

FEATURE_KEY = "schooldata.feature"
# RFC 9745: a deprecated route is deprecated since the versioned API's v1 launch
# (2026-08-19T00:00:00Z).
DEPRECATION = "@1787097600"


def scope_of(request: Request[Any, Any, Any]) -> Scope:
    """A Litestar request's ASGI scope, as the routes read it (a registry GET that never
    meets Litestar's router has only its scope)."""
    return cast(Scope, request.scope)


def credentials_of(scope: Scope) -> Credentials:
    """The credential headers as sent (read from the raw headers in one pass); one sent twice
    with different keys conflicts."""
    authorization: list[str] = []
    x_api_key: list[str] = []
    for name, value in scope["headers"]:
        if len(name) == 13 and name.lower() == b"authorization":
            authorization.append(value.decode("latin-1"))
        elif len(name) == 9 and name.lower() == b"x-api-key":
            x_api_key.append(value.decode("latin-1"))
    if not authorization and not x_api_key:
        return ANONYMOUS
    return Credentials(
        authorization=single_header_value(authorization, header="Authorization"),
        x_api_key=single_header_value(x_api_key, header="X-API-Key"),
    )


def accept_of(scope: Scope) -> str | None:
    """Every `Accept` line as sent, joined (None: there is none)."""
    lines = [
        value.decode("latin-1")
        for name, value in scope["headers"]
        if len(name) == 6 and name.lower() == b"accept"
    ]
    return ", ".join(lines) if lines else None


def negotiates(entry: Entry) -> bool:
    """True when an answer of the entry is a table, so it may be sent as CSV."""
    return any(
        op is not None and answers.table_of(op.name) is not None
        for op in (entry.public, entry.keyed)
    )


def arguments_of(scope: Scope, body: bytes | None) -> tuple[dict[str, object], dict[str, Place]]:
    """Every argument and the place it arrived in; a path parameter wins over a query one of
    the same name, which is then reported as sent in the query (unknown to strict rules)."""
    arguments: dict[str, object] = dict(parse_query(scope.get("query_string", b"")))
    places = dict.fromkeys(arguments, Place.QUERY)
    if body is not None:
        for name, value in json_body(scope, body).items():
            places[name] = Place.QUERY if name in arguments else Place.BODY
            arguments[name] = value
    path_params: dict[str, str] = scope.get("path_params") or {}
    for name, value in path_params.items():
        places[name] = Place.QUERY if name in arguments else Place.PATH
        arguments[name] = value
    return arguments, places


class Routes:
    def __init__(self, pipeline: Pipeline, *, base_url: str | None) -> None:
        self._pipeline = pipeline
        self._base_url = base_url.rstrip("/") if base_url else None

    def base_url(self, scope: Scope) -> str:
        return self._base_url or base_url_of(scope)

    async def answer(
        self,
        entry: Entry,
        scope: Scope,
        body: bytes | None,
        *,
        tabular: bool = False,
    ) -> Reply:
        """Runs the pipeline on the event loop when everything it reads answers from memory,
        else (`WouldBlock`, nothing counted yet) on a worker thread. `tabular`: the entry's
        answers are tables, so the client's `Accept` chooses JSON or CSV."""
        headers: dict[str, str] = {"Vary": "Accept"} if tabular else {}
        credentials = ANONYMOUS
        media_type = negotiation.JSON
        try:
            if tabular:
                chosen = negotiation.choose(accept_of(scope))
                if chosen is None:
                    raise NotAcceptable(negotiation.OFFERED)
                media_type = chosen
            arguments, places = arguments_of(scope, body)
            headers.update(_deprecation(entry, arguments))
            credentials = credentials_of(scope)
            call = partial(
                self._pipeline.call, entry, arguments, credentials=credentials, places=places
            )
            try:
                outcome = call(wait=False)
            except WouldBlock:
                outcome = await anyio.to_thread.run_sync(partial(call, wait=True))
        except AuthenticationFailed as error:  # (conflicting credential headers)
            return self.refused(scope, Refused(error, keyed=True), headers)
        except Refused as refused:
            return self.refused(scope, refused, headers)
        except DomainError as error:  # the query string or the body itself
            keyed = entry.public is None or credentials.present or credentials_present(scope)
            return self.refused(scope, Refused(error, keyed=keyed), headers)
        if outcome.keyed:
            scope[COMMERCIAL_TIER_KEY] = True
            scope[FEATURE_KEY] = outcome.operation.feature
        if outcome.caller is not None:
            scope[KEY_PREFIX_KEY] = outcome.caller.display_prefix
        return self.answered(scope, outcome, headers, media_type)

    def answered(
        self,
        scope: Scope,
        outcome: Outcome,
        headers: dict[str, str],
        media_type: str,
    ) -> Reply:
        """The outcome in the representation chosen, with its page links when it is a page."""
        base = self.base_url(scope)
        if media_type == negotiation.JSON:  # (from fragments, when the answer has them)
            fragments = answers.public_json(outcome, base_url=base)
            if fragments is not None:
                return success_response(outcome, fragments, headers)
        as_json = media_type == negotiation.JSON
        result = answers.shown(outcome, base_url=base, as_json=as_json)
        page_url = None
        if outcome.operation.paged and result.pagination is not None:
            query = bytes(scope.get("query_string", b""))
            if result.pins:
                query = links.pinned(query, result.pins)
            page_url = links.page_urls(base, outcome.operation.path, query)
            headers["Link"] = links.link_header(result.pagination, page_url)
        if media_type == negotiation.CSV and answers.table_of(outcome.operation.name):
            text = answers.csv_text(outcome, result)
            return success_response(
                outcome, text.encode("utf-8"), headers, media_type=CSV_MEDIA_TYPE
            )
        body = answers.encode_shown(
            outcome, result, request_id=request_id_in(scope), page_url=page_url
        )
        return success_response(outcome, body, headers)

    def refused(self, scope: Scope, refused: Refused, headers: dict[str, str]) -> Reply:
        self.mark(scope, refused)
        return refusal_response(refused, request_id=request_id_in(scope), headers=headers)

    @staticmethod
    def mark(scope: Scope, refused: Refused) -> None:
        """Tell the edge (access log, metrics) the refusal's tier and caller."""
        if refused.keyed:
            scope[COMMERCIAL_TIER_KEY] = True
        if refused.caller is not None:
            scope[KEY_PREFIX_KEY] = refused.caller.display_prefix

    def identify(self, scope: Scope) -> Caller | None:
        """Any credentials a request carries, authenticated (routes that meter nothing still
        check them): the caller or None (anonymous); bad ones raise `Refused` (401/503)."""
        try:
            return self._pipeline.identify(credentials_of(scope))
        except AuthenticationFailed as error:
            raise Refused(error, keyed=True) from None

    def readings(self, caller: Caller) -> dict[str, str]:
        """The caller's six meter headers as they stand (nothing is metered)."""
        reading = self._pipeline.peek(caller)
        return {} if reading is None else reading.headers()


def credentials_present(scope: Scope) -> bool:
    return any(name.lower() in (b"authorization", b"x-api-key") for name, _ in scope["headers"])


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
