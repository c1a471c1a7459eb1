"""The OpenAPI 3.1 document, written as the contract rather than derived from handlers.

It is the description's tables in machine form: operation ids, exact schemas
(`additionalProperties: false` where the description forbids other properties) and statuses.
The test suite checks the running app against it with schemathesis.
"""

from __future__ import annotations

from typing import Any

from schooldata.domain.phase import PHASE_VALUES
from schooldata.entrypoints.rest import openapi_commercial as commercial

URN_PATTERN = "^[0-9]{6}$"


def _error_response(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "headers": {"X-Request-Id": {"$ref": "#/components/headers/XRequestId"}},
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


def _credentials_rejected() -> dict[str, Any]:
    return {
        "description": (
            "Credentials were sent and are missing, invalid, revoked or conflicting (public "
            "routes need none; a valid key gets the public answer). Commercial error body."
        ),
        "headers": {"X-Request-Id": {"$ref": "#/components/headers/XRequestId"}},
        "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/CommercialError"}}
        },
    }


def _ok(
    schema: str, description: str, extra_headers: dict[str, Any] | None = None
) -> dict[str, Any]:
    headers: dict[str, Any] = {"X-Request-Id": {"$ref": "#/components/headers/XRequestId"}}
    headers.update(extra_headers or {})
    return {
        "description": description,
        "headers": headers,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}},
    }


PUBLIC_SCHEMAS: dict[str, Any] = {
    "Location": {
        "type": "object",
        "additionalProperties": False,
        "required": ["latitude", "longitude"],
        "properties": {"latitude": {"type": "number"}, "longitude": {"type": "number"}},
    },
    "SchoolSearchResult": {
        "type": "object",
        "additionalProperties": False,
        "required": ["urn", "name", "url"],
        "properties": {
            "urn": {"type": "integer"},
            "name": {"type": "string"},
            "phase": {"type": ["string", "null"]},
            "type": {"type": ["string", "null"]},
            "localAuthority": {"type": ["string", "null"]},
            "location": {"oneOf": [{"$ref": "#/components/schemas/Location"}, {"type": "null"}]},
            "distanceMiles": {"type": "number", "minimum": 0},
            "ofstedRating": {"type": ["integer", "null"], "minimum": 1, "maximum": 4},
            "svcScore": {"type": ["number", "null"], "minimum": 0, "maximum": 100},
            "scoreSuppressed": {"type": "boolean"},
            "url": {"type": "string", "format": "uri"},
        },
    },
    "SearchResponse": {
        "type": "object",
        "additionalProperties": False,
        "required": ["query", "postcode", "phase", "radiusMiles", "total", "limit", "results"],
        "properties": {
            "query": {"type": ["string", "null"]},
            "postcode": {"type": ["string", "null"]},
            "phase": {"type": ["string", "null"]},
            "radiusMiles": {"type": ["number", "null"]},
            "total": {"type": "integer", "minimum": 0},
            "limit": {"type": "integer", "minimum": 1, "maximum": 25},
            "results": {
                "type": "array",
                "maxItems": 25,
                "items": {"$ref": "#/components/schemas/SchoolSearchResult"},
            },
        },
    },
    "SchoolRecord": {
        "type": "object",
        "additionalProperties": True,
        "required": ["urn", "name"],
        "properties": {
            "urn": {"type": "integer"},
            "name": {"type": "string"},
            "postcode": {"type": ["string", "null"]},
            "town": {"type": ["string", "null"]},
            "phase": {"type": ["string", "null"]},
            "type": {"type": ["string", "null"]},
            "svcScore": {"type": ["number", "null"], "minimum": 0, "maximum": 100},
            "scoreSuppressed": {"type": "boolean"},
            "scoreSuppressedReason": {"type": "string"},
        },
    },
    "Error": {
        "type": "object",
        "additionalProperties": True,
        "required": ["error"],
        "properties": {"error": {"type": "string"}, "code": {"type": "string"}},
    },
}


def _either(public_schema: str, keyed: dict[str, Any], description: str) -> dict[str, Any]:
    """One status of the two-tier getSchool: the public body for an anonymous caller, the
    commercial body (and meter headers) for a keyed one; the two shapes never both match."""
    keyed_schema = keyed["content"]["application/json"]["schema"]
    return {
        "description": description,
        "headers": keyed["headers"],
        "content": {
            "application/json": {
                "schema": {
                    "oneOf": [{"$ref": f"#/components/schemas/{public_schema}"}, keyed_schema]
                }
            }
        },
    }


def _get_school_operation() -> dict[str, Any]:
    """`GET /api/v1/schools/{urn}`: the public record anonymously, the stable joined profile
    (plan feature `school_profile`, metered) with a key. The meter headers appear on keyed
    answers only."""
    keyed = commercial.PROFILE_OPERATION["responses"]
    return {
        "operationId": "getSchool",
        "summary": "The current public record of one school (with a key: its joined profile)",
        "description": (
            "Anonymous callers get the public `SchoolRecord` and public errors (`Error`). "
            "With an API key the same path returns the commercial stable joined profile in "
            "the single-resource envelope (`{data, meta}`; plan feature `school_profile`, "
            "metered), commercial errors and the six meter headers."
        ),
        "tags": ["public"],
        "security": [{}, *commercial.PROFILE_OPERATION["security"]],
        "parameters": [URN_PATH_PARAMETER],
        "responses": {
            "200": _either(
                "SchoolRecord",
                keyed["200"],
                "Anonymous: the public `SchoolRecord`. Keyed: the joined profile envelope.",
            ),
            "400": _either(
                "Error",
                keyed["400"],
                "Invalid URN (keyed: also an unknown parameter).",
            ),
            "401": {
                **keyed["401"],
                "description": (
                    "Credentials were sent and are missing, invalid, revoked or conflicting."
                ),
            },
            "403": {**keyed["403"], "description": "Keyed: the plan lacks `school_profile`."},
            "404": _either("Error", keyed["404"], "School not found."),
            "429": {**keyed["429"], "description": "Keyed: rate limit or monthly quota."},
            "503": _either(
                "Error", keyed["503"], "The data store (or key store) is temporarily unavailable."
            ),
        },
        "x-feature": "school_profile",
    }


URN_PATH_PARAMETER = {
    "name": "urn",
    "in": "path",
    "required": True,
    "description": "Six-digit Unique Reference Number.",
    "schema": {"type": "string", "pattern": URN_PATTERN},
}

PUBLIC_PATHS: dict[str, Any] = {
    "/api/v1/search": {
        "get": {
            "operationId": "searchSchools",
            "summary": "Search open schools by name, local authority or type, or nearest a postcode",
            "description": (
                "At least one of `query` or `postcode` is required. With a postcode, results are "
                "sorted nearest first and carry `distanceMiles`."
            ),
            "tags": ["public"],
            "parameters": [
                {
                    "name": "query",
                    "in": "query",
                    "required": False,
                    "description": "Matches name, local authority or school type.",
                    "schema": {"type": "string", "minLength": 2},
                },
                {
                    "name": "postcode",
                    "in": "query",
                    "required": False,
                    "description": "Full UK postcode or outward code.",
                    "schema": {"type": "string", "minLength": 2},
                },
                {
                    "name": "phase",
                    "in": "query",
                    "required": False,
                    "schema": {"type": "string", "enum": list(PHASE_VALUES)},
                },
                {
                    "name": "radius_miles",
                    "in": "query",
                    "required": False,
                    "description": "Maximum distance from the postcode, in miles.",
                    "schema": {"type": "number", "minimum": 0.1, "maximum": 100},
                },
                {
                    "name": "limit",
                    "in": "query",
                    "required": False,
                    "schema": {"type": "integer", "minimum": 1, "maximum": 25, "default": 10},
                },
            ],
            "responses": {
                "200": _ok("SearchResponse", "Success."),
                "400": _error_response(
                    "Neither `query` nor `postcode` supplied, the postcode is unknown, or a "
                    "parameter is out of bounds."
                ),
                "401": _credentials_rejected(),
                "500": _error_response("The search service is temporarily unavailable."),
            },
        }
    },
    "/api/v1/schools/{urn}": {"get": _get_school_operation()},
    "/api/get-school": {
        "get": {
            "operationId": "getSchoolLegacy",
            "deprecated": True,
            "summary": "Compatibility route with the same behaviour as getSchool",
            "tags": ["public"],
            "parameters": [
                {
                    "name": "urn",
                    "in": "query",
                    "required": True,
                    "schema": {"type": "string", "pattern": URN_PATTERN},
                }
            ],
            "responses": {
                "200": _ok(
                    "SchoolRecord",
                    "Success.",
                    {
                        "Deprecation": {"schema": {"type": "string"}},
                        "Link": {"schema": {"type": "string"}},
                    },
                ),
                "400": _error_response("Invalid URN."),
                "401": _credentials_rejected(),
                "404": _error_response("School not found."),
                "503": {
                    **_error_response(
                        "The data store (or, for a keyed caller, the key store) is temporarily unavailable."
                    ),
                    "content": {
                        "application/json": {
                            "schema": {
                                "oneOf": [
                                    {"$ref": "#/components/schemas/Error"},
                                    {"$ref": "#/components/schemas/CommercialError"},
                                ]
                            }
                        }
                    },
                },
            },
        }
    },
}


def build_document(*, server_url: str | None = None) -> dict[str, Any]:
    extra = commercial.components()
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {
            "title": "School Data Service",
            "version": "1.0.0",
            "description": (
                "Read-only access to records of open UK schools, keyed by a six-digit URN. "
                "`null` means unavailable or suppressed, never zero."
            ),
        },
        "paths": {**PUBLIC_PATHS, **commercial.PATHS},
        "components": {
            "schemas": {**PUBLIC_SCHEMAS, **extra["schemas"]},
            "headers": {
                "XRequestId": {
                    "description": "Unique per request: `req_` + 20 base62 characters.",
                    "schema": {"type": "string", "pattern": "^req_[0-9A-Za-z]{20}$"},
                },
                **extra["headers"],
            },
            "securitySchemes": extra["securitySchemes"],
        },
        "tags": [
            {"name": "public", "description": "Anonymous access; public fields only."},
            {
                "name": "commercial",
                "description": "Keyed access; plan entitlements and metering apply.",
            },
        ],
    }
    if server_url:
        document["servers"] = [{"url": server_url}]
    return document
