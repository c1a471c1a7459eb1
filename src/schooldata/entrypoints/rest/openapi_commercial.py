"""The commercial operations of the OpenAPI document: security, envelopes, errors, headers."""

from __future__ import annotations

from typing import Any

from schooldata.application.commercial import GENDERS
from schooldata.application.parameters import MAX_PAGE
from schooldata.application.school_data import RANKING_METRICS
from schooldata.domain.phase import PHASE_VALUES
from schooldata.domain.search import SORT_VALUES

URN_PATTERN = "^[0-9]{6}$"
METER_HEADERS = (
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
    "X-Quota-Limit",
    "X-Quota-Remaining",
    "X-Quota-Reset",
)
ERROR_CODES = (
    "invalid_parameter",
    "unknown_parameter",
    "invalid_urn",
    "unknown_postcode",
    "missing_api_key",
    "invalid_api_key",
    "api_key_revoked",
    "conflicting_credentials",
    "api_key_in_query",
    "feature_not_in_plan",
    "limit_exceeds_plan",
    "not_found",
    "method_not_allowed",
    "payload_too_large",
    "rate_limit_exceeded",
    "quota_exceeded",
    "service_unavailable",
    "internal_error",
    "invalid_request",
)


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _nullable(kind: str, **extra: Any) -> dict[str, Any]:
    return {"type": [kind, "null"], **extra}


def _meter_headers() -> dict[str, Any]:
    headers: dict[str, Any] = {"X-Request-Id": {"$ref": "#/components/headers/XRequestId"}}
    for name in METER_HEADERS:
        headers[name] = {"$ref": f"#/components/headers/{name.replace('-', '')}"}
    return headers


def _error(description: str, *, metered_headers: bool = True) -> dict[str, Any]:
    headers: dict[str, Any] = (
        _meter_headers()
        if metered_headers
        else {"X-Request-Id": {"$ref": "#/components/headers/XRequestId"}}
    )
    return {
        "description": description,
        "headers": headers,
        "content": {"application/json": {"schema": _ref("CommercialError")}},
    }


def _ok(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {
        "description": description,
        "headers": _meter_headers(),
        "content": {"application/json": {"schema": schema}},
    }


def _responses(
    ok: dict[str, Any], *, not_found: bool = False, body: bool = False
) -> dict[str, Any]:
    responses: dict[str, Any] = {
        "200": ok,
        "400": _error(
            "Invalid parameter or body, including an unknown parameter (`unknown_parameter`), or a value above the plan's bound (`limit_exceeds_plan`)."
        ),
        "401": {
            **_error(
                "Missing, invalid, revoked or conflicting credentials.", metered_headers=False
            ),
            "headers": {
                "X-Request-Id": {"$ref": "#/components/headers/XRequestId"},
                "WWW-Authenticate": {"schema": {"type": "string"}},
            },
        },
        "403": _error(
            "The capability is not in the caller's plan (`feature_not_in_plan`, `details.feature`)."
        ),
        "429": {
            **_error(
                "Per-second rate limit (`rate_limit_exceeded`) or monthly quota (`quota_exceeded`) exceeded."
            ),
        },
        "503": _error(
            "Authentication or data dependency unavailable (`service_unavailable`).",
            metered_headers=False,
        ),
    }
    responses["429"]["headers"] = {
        **_meter_headers(),
        "Retry-After": {"schema": {"type": "integer", "minimum": 1}},
    }
    if not_found:
        responses["404"] = _error("School not found (`not_found`).")
    if body:
        responses["413"] = _error(
            "The request body is larger than the documented limit (64 KiB).", metered_headers=False
        )
    return responses


def _q(
    name: str, schema: dict[str, Any], description: str, required: bool = False
) -> dict[str, Any]:
    return {
        "name": name,
        "in": "query",
        "required": required,
        "description": description,
        "schema": schema,
    }


PAGING = [
    _q(
        "page",
        {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": 1},
        "Page number, from 1.",
    ),
    _q(
        "per_page",
        {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
        "Items per page: at most 25 (developer), 50 (professional) or 100 (enterprise).",
    ),
]
FILTERS = [
    _q(
        "local_authority",
        {"type": "string", "minLength": 1, "maxLength": 200},
        "Local authority name or code.",
    ),
    _q("phase", {"type": "string", "enum": list(PHASE_VALUES)}, "Phase of education."),
    _q(
        "type",
        {"type": "string", "minLength": 1, "maxLength": 200},
        "Establishment type, e.g. 'Academy converter'.",
    ),
    _q("gender", {"type": "string", "enum": list(GENDERS)}, "Pupil gender admitted."),
    _q(
        "ofsted_rating",
        {"type": "integer", "minimum": 1, "maximum": 4},
        "Historic graded Ofsted outcome (not comparable with report cards).",
    ),
    _q(
        "min_score",
        {"type": "number", "minimum": 0, "maximum": 100},
        "Minimum svcScore (suppressed scores never match).",
    ),
    _q(
        "sort", {"type": "string", "enum": list(SORT_VALUES)}, "Sort key; ties always break by URN."
    ),
]
Q = _q(
    "q",
    {"type": "string", "minLength": 2, "maxLength": 200},
    "Matches name, local authority or type.",
)
ORIGIN = [
    _q(
        "postcode",
        {"type": "string", "minLength": 2, "maxLength": 16},
        "Full UK postcode or outward code.",
    ),
    _q(
        "latitude",
        {"type": "number", "minimum": -90, "maximum": 90},
        "WGS84 latitude (with longitude).",
    ),
    _q(
        "longitude",
        {"type": "number", "minimum": -180, "maximum": 180},
        "WGS84 longitude (with latitude).",
    ),
    _q(
        "radius_miles",
        {"type": "number", "minimum": 0.1, "maximum": 100},
        "Maximum distance from the origin, in miles.",
    ),
]
URN_PATH = {
    "name": "urn",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "pattern": URN_PATTERN},
}

SCHEMAS: dict[str, Any] = {
    "CommercialError": {
        "type": "object",
        "required": ["error"],
        "additionalProperties": False,
        "properties": {
            "error": {
                "type": "object",
                "required": ["code", "message", "request_id", "details"],
                "additionalProperties": False,
                "properties": {
                    "code": {"type": "string", "enum": list(ERROR_CODES)},
                    "message": {"type": "string"},
                    "request_id": {"type": "string", "pattern": "^req_[0-9A-Za-z]{20}$"},
                    "details": {"type": "object"},
                },
            }
        },
    },
    "Source": {
        "type": "object",
        "required": ["name", "publisher", "licence", "url", "retrieved_at"],
        "properties": {
            "name": {"type": "string"},
            "publisher": {"type": "string"},
            "licence": {"type": "string"},
            "url": _nullable("string"),
            "retrieved_at": {"type": "string", "format": "date-time"},
        },
    },
    "Meta": {
        "type": "object",
        "required": ["request_id", "data_updated_at", "sources"],
        "properties": {
            "request_id": {"type": "string"},
            "data_updated_at": _nullable("string", format="date-time"),
            "sources": {"type": "array", "items": _ref("Source")},
        },
    },
    "ListMeta": {
        "type": "object",
        "required": ["request_id", "data_updated_at", "pagination", "sources"],
        "properties": {
            "request_id": {"type": "string"},
            "data_updated_at": _nullable("string", format="date-time"),
            "pagination": {
                "type": "object",
                "required": ["page", "per_page", "total", "total_pages"],
                "additionalProperties": False,
                "properties": {
                    "page": {"type": "integer", "minimum": 1},
                    "per_page": {"type": "integer", "minimum": 1},
                    "total": {"type": "integer", "minimum": 0},
                    "total_pages": {"type": "integer", "minimum": 0},
                },
            },
            "sources": {"type": "array", "items": _ref("Source")},
        },
    },
    "Measure": {
        "type": "object",
        "required": ["value", "status"],
        "description": "A figure with its status; `value` is null unless `status` is `reported`.",
        "properties": {
            "value": _nullable("number"),
            "status": {
                "type": "string",
                "enum": ["reported", "suppressed", "not_applicable", "missing"],
            },
            "reason": {"type": "string"},
            "period": {"type": "string"},
            "cohort": {"type": "integer"},
        },
    },
    "SchoolListItem": {
        "type": "object",
        "required": ["urn", "name", "url"],
        "properties": {
            "urn": {"type": "integer"},
            "name": {"type": "string"},
            "phase": _nullable("string"),
            "type": _nullable("string"),
            "local_authority": _nullable("string"),
            "local_authority_code": _nullable("string"),
            "town": _nullable("string"),
            "postcode": _nullable("string"),
            "location": {"oneOf": [_ref("Location"), {"type": "null"}]},
            "distance_miles": {"type": "number", "minimum": 0},
            "gender": _nullable("string"),
            "statutory_low_age": _nullable("integer"),
            "statutory_high_age": _nullable("integer"),
            "pupils": _nullable("integer"),
            "ofsted_rating": _nullable("integer", minimum=1, maximum=4),
            "ofsted_historic_grade": _nullable("object"),
            "svc_score": _nullable("number", minimum=0, maximum=100),
            "score_suppressed": {"type": "boolean"},
            "score_suppressed_reason": {"type": "string"},
            "url": {"type": "string", "format": "uri"},
        },
    },
    "SchoolProfile": {
        "type": "object",
        "description": "The stable joined profile: every field licensed for commercial use, links and resources.",
        "required": ["urn", "name", "links", "resources", "url"],
        "properties": {
            "urn": {"type": "integer"},
            "name": {"type": "string"},
            "svc_score": _nullable("number", minimum=0, maximum=100),
            "score_suppressed": {"type": "boolean"},
            "links": {"type": "array", "items": {"type": "object"}},
            "resources": {"type": "object"},
            "url": {"type": "string", "format": "uri"},
        },
    },
    "SchoolHeading": {
        "type": "object",
        "required": ["urn", "name"],
        "properties": {"urn": {"type": "integer"}, "name": {"type": "string"}},
    },
    "TopicBlock": {
        "type": "object",
        "required": ["periods", "latest_period", "measures"],
        "properties": {
            "periods": {"type": "array", "items": {"type": "string"}},
            "latest_period": _nullable("string"),
            "measures": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["code", "label", "unit", "latest", "trend"],
                    "properties": {
                        "code": {"type": "string"},
                        "label": {"type": "string"},
                        "unit": {"type": "string"},
                        "latest": _ref("Measure"),
                        "trend": {"type": "array", "items": _ref("Measure")},
                        "note": {"type": "string"},
                    },
                },
            },
        },
    },
}


def _envelope(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["data", "meta"],
        "additionalProperties": False,
        "properties": {"data": data, "meta": _ref("Meta")},
    }


def _list_envelope(item: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["data", "meta"],
        "additionalProperties": False,
        "properties": {"data": {"type": "array", "items": item}, "meta": _ref("ListMeta")},
    }


def _operation(
    op_id: str, summary: str, feature: str, parameters: list[Any], ok: dict[str, Any], **kw: Any
) -> dict[str, Any]:
    return {
        "operationId": op_id,
        "summary": summary,
        "description": f"{summary}. Plan feature: `{feature}`. Metered: one request per call that passes authentication, entitlement and the rate limit.",
        "tags": ["commercial"],
        "security": [{"bearerKey": []}, {"apiKeyHeader": []}],
        "parameters": parameters,
        "responses": _responses(
            ok, not_found=kw.get("not_found", False), body=kw.get("body", False)
        ),
        "x-feature": feature,
    }


def _topic_envelope(*topics: str) -> dict[str, Any]:
    props: dict[str, Any] = {"school": _ref("SchoolHeading")}
    props.update({t: _ref("TopicBlock") for t in topics})
    return _envelope({"type": "object", "required": ["school", *topics], "properties": props})


LIST_ITEMS = _list_envelope(_ref("SchoolListItem"))

PATHS: dict[str, Any] = {
    "/api/v1/meta": {
        "get": _operation(
            "getMeta",
            "Version, source policy and API metadata",
            "meta",
            [],
            _ok(_envelope({"type": "object"}), "Metadata."),
        )
    },
    "/api/v1/data-freshness": {
        "get": _operation(
            "getDataFreshness",
            "Periods, cadence and coverage of each dataset",
            "data_freshness",
            [*PAGING],
            _ok(
                _list_envelope(
                    {
                        "type": "object",
                        "required": ["dataset", "period", "cadence", "coverage"],
                        "properties": {
                            # What `schooldata refresh` fetched (null until it first did).
                            "source_url": _nullable("string"),
                            "checked_at": _nullable("string", format="date-time"),
                            "changed_at": _nullable("string", format="date-time"),
                        },
                    }
                ),
                "Freshness.",
            ),
        )
    },
    "/api/v1/schools": {
        "get": _operation(
            "listSchools",
            "List open schools with bounded filters",
            "schools_list",
            [Q, *ORIGIN, *FILTERS, *PAGING],
            _ok(LIST_ITEMS, "A page of schools."),
        )
    },
    "/api/v1/schools/search": {
        "get": _operation(
            "searchSchoolsCommercial",
            "Search by name, authority and type",
            "schools_search",
            [{**Q, "required": True}, *FILTERS, *PAGING],
            _ok(LIST_ITEMS, "A page of matches, most relevant first."),
        )
    },
    "/api/v1/schools/nearby": {
        "get": _operation(
            "nearbySchools",
            "Proximity by postcode or coordinates, nearest first",
            "schools_nearby",
            [Q, *ORIGIN, *FILTERS, *PAGING],
            _ok(LIST_ITEMS, "A page of schools, nearest first."),
        )
    },
    "/api/v1/schools/{urn}/inspections": {
        "get": _operation(
            "getSchoolInspections",
            "Structured Ofsted inspection history",
            "inspections",
            [URN_PATH],
            _ok(
                _envelope({"type": "object", "required": ["school", "inspections"]}),
                "Inspection history, newest first.",
            ),
            not_found=True,
        )
    },
    "/api/v1/schools/{urn}/results": {
        "get": _operation(
            "getSchoolResults",
            "Results and trends by key stage",
            "results",
            [URN_PATH],
            _ok(_topic_envelope("ks2", "ks4", "16_18", "16_18_destinations"), "Results."),
            not_found=True,
        )
    },
    "/api/v1/schools/{urn}/admissions": {
        "get": _operation(
            "getSchoolAdmissions",
            "Admissions policy and demand",
            "admissions",
            [URN_PATH],
            _ok(_topic_envelope("admissions"), "Admissions."),
            not_found=True,
        )
    },
    "/api/v1/schools/{urn}/finance": {
        "get": _operation(
            "getSchoolFinance",
            "Finance and funding",
            "finance",
            [URN_PATH],
            _ok(_topic_envelope("finance"), "Finance."),
            not_found=True,
        )
    },
    "/api/v1/rankings": {
        "get": _operation(
            "getRankings",
            "Bounded derived rankings",
            "rankings",
            [
                _q(
                    "metric",
                    {"type": "string", "enum": list(RANKING_METRICS)},
                    "The ranked measure.",
                    required=True,
                ),
                _q(
                    "phase",
                    {"type": "string", "enum": list(PHASE_VALUES)},
                    "Phase (required).",
                    required=True,
                ),
                _q(
                    "local_authority",
                    {"type": "string", "minLength": 1, "maxLength": 200},
                    "Restrict to one authority.",
                ),
                _q(
                    "order",
                    {"type": "string", "enum": ["desc", "asc"], "default": "desc"},
                    "Best first (desc) or last.",
                ),
                *PAGING,
            ],
            _ok(
                _list_envelope({"type": "object", "required": ["rank", "urn", "name", "value"]}),
                "Ranked schools; suppressed or non-comparable ones are excluded and counted in meta.ranking.excluded.",
            ),
        )
    },
    "/api/v1/areas/local-authorities": {
        "get": _operation(
            "listLocalAuthorities",
            "Authority catalogue and counts of open schools",
            "local_authorities",
            [Q, *PAGING],
            _ok(
                _list_envelope({"type": "object", "required": ["code", "name", "open_schools"]}),
                "Authorities.",
            ),
        )
    },
    "/api/v1/schools/compare": {
        "post": {
            **_operation(
                "compareSchools",
                "Plan-bounded side-by-side comparison",
                "compare",
                [],
                _ok(
                    _envelope({"type": "object", "required": ["schools"]}),
                    "The schools side by side.",
                ),
                not_found=True,
                body=True,
            ),
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "required": ["urns"],
                            "additionalProperties": False,
                            "properties": {
                                "urns": {
                                    "type": "array",
                                    "minItems": 2,
                                    "maxItems": 25,
                                    "uniqueItems": True,
                                    # A six-digit string, or the integer it spells.
                                    "items": {
                                        "type": ["string", "integer"],
                                        "pattern": URN_PATTERN,
                                        "minimum": 100000,
                                        "maximum": 999999,
                                    },
                                }
                            },
                        }
                    }
                },
            },
        }
    },
}

PROFILE_OPERATION = _operation(
    "getSchoolProfile",
    "Stable joined profile (keyed callers of /api/v1/schools/{urn})",
    "school_profile",
    [URN_PATH],
    _ok(_envelope(_ref("SchoolProfile")), "The joined profile."),
    not_found=True,
)


def components() -> dict[str, Any]:
    headers = {
        name.replace("-", ""): {
            "description": f"`{name}`: UTC epoch seconds for resets.",
            "schema": {"type": "string", "pattern": "^[0-9]+$"},
        }
        for name in METER_HEADERS
    }
    return {
        "schemas": SCHEMAS,
        "headers": headers,
        "securitySchemes": {
            "bearerKey": {
                "type": "http",
                "scheme": "bearer",
                "description": "Authorization: Bearer svc_live_... (preferred).",
            },
            "apiKeyHeader": {
                "type": "apiKey",
                "in": "header",
                "name": "X-API-Key",
                "description": "For constrained legacy systems.",
            },
        },
    }
