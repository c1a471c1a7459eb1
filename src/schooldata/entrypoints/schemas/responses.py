"""Each operation's responses in the OpenAPI document: statuses, headers and bodies.

What an operation can answer follows from its declaration: a URN parameter can be not found
(404, unless missing schools are reported in the answer), a JSON body can be too large (413),
a public operation with its own failure answers it (the search's 500) where the others answer
503. Keyed answers carry the six meter headers (not a 401, a 413 or a 503, which meter
nothing). A list whose answer is a table may be sent as `text/csv` and answers 406 to an
`Accept` that allows neither JSON nor CSV; a paged list carries its `Link` header. One path
with both tiers (getSchool) shows, per status, `oneOf` the public body and the commercial one.
"""

from __future__ import annotations

from typing import Any

from schooldata.application.operations.declaration import AnyOperation, Entry
from schooldata.application.operations.param import Kind
from schooldata.domain.metering import METER_HEADERS
from schooldata.entrypoints.answers import Table, table_of
from schooldata.entrypoints.refusals import status_of_kind
from schooldata.entrypoints.schemas.outputs import COMMERCIAL_ERROR, ERROR, body
from schooldata.entrypoints.schemas.style import Schema

REQUEST_ID_PATTERN = "^req_[0-9A-Za-z]{20}$"
Responses = dict[str, Schema]


def header_components() -> dict[str, Schema]:
    headers: dict[str, Schema] = {
        "XRequestId": {
            "description": "Unique per request: `req_` + 20 base62 characters.",
            "schema": {"type": "string", "pattern": REQUEST_ID_PATTERN},
        }
    }
    for name in METER_HEADERS:
        headers[name.replace("-", "")] = {
            "description": f"`{name}`: UTC epoch seconds for resets.",
            "schema": {"type": "string", "pattern": "^[0-9]+$"},
        }
    return headers


def _request_id() -> dict[str, Any]:
    return {"X-Request-Id": {"$ref": "#/components/headers/XRequestId"}}


def _metered() -> dict[str, Any]:
    headers = _request_id()
    for name in METER_HEADERS:
        headers[name] = {"$ref": f"#/components/headers/{name.replace('-', '')}"}
    return headers


def _response(description: str, schema: Schema, headers: dict[str, Any]) -> Schema:
    return {
        "description": description,
        "headers": headers,
        "content": {"application/json": {"schema": schema}},
    }


def _finds_schools(operation: AnyOperation) -> bool:
    """A URN that names no open school is refused as not found (404)."""
    if operation.reports_missing:
        return False
    return any(p.kind in (Kind.URN, Kind.URNS) for p in operation.params)


LINK: Schema = {
    "description": "RFC 8288 page links: absolute URLs of the `first` and `last` pages, "
    "`prev` (after page 1) and `next` (before the last page), e.g. `<https://.../api/v1/schools?"
    'phase=primary&page=2>; rel="next"`. Each keeps every query parameter as sent, with '
    "`page` replaced.",
    "schema": {"type": "string"},
}


def _success(operation: AnyOperation, headers: dict[str, Any]) -> Schema:
    """The 200 answer: JSON, and CSV for a table; a paged list's `Link` header."""
    if operation.paged:
        headers = {**headers, "Link": LINK}
    response = _response("Success.", body(operation.name), headers)
    table = table_of(operation.name)
    if table is not None:
        response["description"] = (
            "Success: JSON, or CSV when `Accept` prefers `text/csv` (RFC 9110 q-values)."
        )
        response["content"]["text/csv"] = _csv(table)
    return response


def _csv(table: Table) -> Schema:
    columns = (
        "a header row of " + ", ".join(f"`{c}`" for c in table.columns)
        if table.columns is not None
        else "a header row of every field of every item, flattened, in the order first seen"
    )
    return {
        "schema": {
            "type": "string",
            "description": f"UTF-8 CSV (RFC 4180): {columns}; then one row per item of `data`, "
            "in order. Nested objects are flattened with dots, null is an empty cell, "
            "booleans are true/false, lists of plain values are joined with `; `.",
        }
    }


def _not_acceptable(operation: AnyOperation, error: Schema) -> Responses:
    if table_of(operation.name) is None:
        return {}
    return {
        "406": _response(
            "The `Accept` header allows neither `application/json` nor `text/csv` "
            "(`not_acceptable`); decided before authentication, nothing is metered.",
            error,
            _request_id(),
        )
    }


def public_responses(operation: AnyOperation, *, keyed_twin: bool) -> Responses:
    """A public operation's answers. Without a keyed twin, a keyed caller of it is answered
    publicly, but its credentials are still checked, so a key store failure is a commercial
    503 there too."""
    ok_headers = _request_id()
    if operation.deprecated_for is not None:
        ok_headers.update({"Deprecation": _text(), "Link": _text()})
    responses = {
        "200": _success(operation, ok_headers),
        "400": _response(
            "A parameter is missing, malformed or out of bounds (see the rules above).",
            ERROR,
            _request_id(),
        ),
        "401": _response(
            "Credentials were sent and are missing, invalid, revoked or conflicting (public "
            "routes need none; a valid key gets the public answer). Commercial error body.",
            COMMERCIAL_ERROR,
            _request_id(),
        ),
    }
    if _finds_schools(operation):
        responses["404"] = _response("School not found.", ERROR, _request_id())
    either = ERROR if keyed_twin else {"oneOf": [ERROR, COMMERCIAL_ERROR]}
    responses.update(_not_acceptable(operation, either))
    if operation.unavailable is not None:
        responses["500"] = _response(
            "The service is temporarily unavailable.", ERROR, _request_id()
        )
    else:
        either = ERROR if keyed_twin else {"oneOf": [ERROR, COMMERCIAL_ERROR]}
        responses["503"] = _response(
            "The data store (or, for a keyed caller, the key store) is temporarily unavailable.",
            either,
            _request_id(),
        )
    return responses


def keyed_responses(operation: AnyOperation) -> Responses:
    responses = {
        "200": _success(operation, _metered()),
        "400": _response(
            "Invalid parameter or body, including an unknown parameter (`unknown_parameter`), "
            "or a value above the plan's bound (`limit_exceeds_plan`).",
            COMMERCIAL_ERROR,
            _metered(),
        ),
        "401": _response(
            "Missing, invalid, revoked or conflicting credentials.",
            COMMERCIAL_ERROR,
            {**_request_id(), "WWW-Authenticate": _text()},
        ),
        "403": _response(
            "The capability is not in the caller's plan (`feature_not_in_plan`, "
            "`details.feature`).",
            COMMERCIAL_ERROR,
            _metered(),
        ),
    }
    if _finds_schools(operation):
        responses["404"] = _response(
            "School not found (`not_found`).", COMMERCIAL_ERROR, _metered()
        )
    responses.update(_not_acceptable(operation, COMMERCIAL_ERROR))
    for refusal in operation.refuses:
        responses[str(status_of_kind(refusal))] = _response(
            f"`{refusal.code}`: " + " ".join((refusal.__doc__ or "").split()),
            COMMERCIAL_ERROR,
            _metered(),
        )
    if operation.body_params:
        responses["413"] = _response(
            "The request body is larger than the documented limit (64 KiB).",
            COMMERCIAL_ERROR,
            _request_id(),
        )
    responses["429"] = _response(
        "Per-second rate limit (`rate_limit_exceeded`) or monthly quota (`quota_exceeded`) "
        "exceeded.",
        COMMERCIAL_ERROR,
        {**_metered(), "Retry-After": {"schema": {"type": "integer", "minimum": 1}}},
    )
    responses["503"] = _response(
        "Authentication or data dependency unavailable (`service_unavailable`).",
        COMMERCIAL_ERROR,
        _request_id(),
    )
    return responses


def entry_responses(entry: Entry) -> Responses:
    if entry.keyed is None:
        assert entry.public is not None
        return public_responses(entry.public, keyed_twin=False)
    keyed = keyed_responses(entry.keyed)
    if entry.public is None:
        return keyed
    public = public_responses(entry.public, keyed_twin=True)
    merged: Responses = {}
    for status in sorted(set(public) | set(keyed)):
        if status not in keyed or status not in public:
            merged[status] = keyed.get(status) or public[status]
            merged[status]["description"] = (
                f"{'Keyed' if status in keyed else 'Anonymous'}: {merged[status]['description']}"
            )
            continue
        anonymous, with_key = _schema(public[status]), _schema(keyed[status])
        both = with_key if anonymous == with_key else {"oneOf": [anonymous, with_key]}
        said = public[status]["description"], keyed[status]["description"]
        description = said[0] if said[0] == said[1] else f"Anonymous: {said[0]} Keyed: {said[1]}"
        merged[status] = _response(description, both, keyed[status]["headers"])
    return merged


def _schema(response: Schema) -> Schema:
    schema: Schema = response["content"]["application/json"]["schema"]
    return schema


def _text() -> Schema:
    return {"schema": {"type": "string"}}
