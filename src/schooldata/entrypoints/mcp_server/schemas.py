"""JSON Schemas of the MCP tools: what each accepts (with the documented bounds) and returns.

Written with the keywords every dialect in use agrees on (draft-07 for the handshake eras,
2020-12 for 2026-07-28): `type`, `properties`, `required`, `additionalProperties`, `items`,
`enum`, `minimum`/`maximum`, `minLength`/`maxLength`, `pattern`, `minItems`/`maxItems`,
`uniqueItems`, `anyOf`. No `$ref`, no top-level combinators in input schemas (several clients
refuse them), no custom keywords.

Plan-bound limits (`per_page`, the number of URNs to compare) are written into the schema a
keyed caller is shown, from that caller's plan.

A schema never refuses what the REST twin accepts (see `validation`): enums list the canonical
values but any case is accepted, a URN may be a six-digit string or that integer, and the
public `query` has no maximum length because the public search has none.

Output schemas: the success shape, or the tool error's body. A tool error carries its error
object in `structuredContent` too, and some clients validate that against the output schema even
when `isError` is true, so each output schema admits both (`anyOf`).
"""

from __future__ import annotations

from typing import Any

from schooldata.application.commercial import GENDERS
from schooldata.application.parameters import MAX_PAGE
from schooldata.application.school_data import RANKING_METRICS
from schooldata.domain.catalogue import RESULT_TOPICS, Topic
from schooldata.domain.measure import MeasureStatus
from schooldata.domain.phase import PHASE_VALUES
from schooldata.domain.plans import COMMERCIAL_PER_PAGE_DEFAULT, Plan
from schooldata.domain.search import (
    MAX_RADIUS_MILES,
    MIN_QUERY_LENGTH,
    MIN_RADIUS_MILES,
    PUBLIC_DEFAULT_LIMIT,
    PUBLIC_MAX_LIMIT,
    SORT_VALUES,
)

Schema = dict[str, Any]

URN_PATTERN = "^[0-9]{6}$"
URN_MIN, URN_MAX = 100_000, 999_999
# A full UK postcode or an outward code, case-insensitive, spaces anywhere (as the domain reads it).
POSTCODE_PATTERN = (
    r"^\s*[A-Za-z]\s*([A-Za-z]\s*)?[0-9]\s*([A-Za-z0-9]\s*)?([0-9]\s*[A-Za-z]\s*[A-Za-z]\s*)?$"
)
MAX_TEXT = 200
NULL_MEANS = "null means unavailable or suppressed, never zero"

# ---------------------------------------------------------------------------- small parts


def _string(description: str, *, min_length: int = 1, max_length: int | None = MAX_TEXT) -> Schema:
    schema: Schema = {"type": "string", "minLength": min_length}
    if max_length is not None:
        schema["maxLength"] = max_length
    schema["description"] = description
    return schema


def _nullable(kind: str) -> Schema:
    return {"type": [kind, "null"]}


def _obj(
    properties: dict[str, Schema], required: list[str] | None = None, *, closed: bool = False
) -> Schema:
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    if closed:
        schema["additionalProperties"] = False
    return schema


def _arguments(properties: dict[str, Schema], required: list[str] | None = None) -> Schema:
    """A tool's input: an object of exactly these arguments (anything else is refused)."""
    return _obj(properties, required, closed=True)


URN: Schema = {
    # `pattern` constrains the text form, `minimum`/`maximum` the number form.
    "type": ["string", "integer"],
    "pattern": URN_PATTERN,
    "minimum": URN_MIN,
    "maximum": URN_MAX,
    "description": (
        'The school\'s Unique Reference Number: exactly six digits, e.g. "100001" (the '
        "number 100001 is accepted too)."
    ),
}
PHASE: Schema = {
    "type": "string",
    "enum": list(PHASE_VALUES),
    "description": "Phase of education: " + ", ".join(PHASE_VALUES) + " (any case).",
}
RADIUS: Schema = {
    "type": "number",
    "minimum": MIN_RADIUS_MILES,
    "maximum": MAX_RADIUS_MILES,
    "description": "Maximum distance in miles from the origin (0.1 to 100). Needs an origin.",
}
POSTCODE: Schema = {
    "type": "string",
    "minLength": 2,
    "pattern": POSTCODE_PATTERN,
    "description": (
        "A full UK postcode ('SW1A 1AA') or an outward code ('SW1A'); case and spaces are "
        "ignored. Results are sorted nearest first and carry their distance in miles."
    ),
}
PAGE: Schema = {
    "type": "integer",
    "minimum": 1,
    "maximum": MAX_PAGE,
    "default": 1,
    "description": "Page number, from 1. Past the last page the data is empty; totals stay true.",
}


def per_page(plan: Plan) -> Schema:
    return {
        "type": "integer",
        "minimum": 1,
        "maximum": plan.per_page_max,
        "default": min(COMMERCIAL_PER_PAGE_DEFAULT, plan.per_page_max),
        "description": (
            f"Results per page: 1 to {plan.per_page_max} on the {plan.name} plan "
            f"(default {min(COMMERCIAL_PER_PAGE_DEFAULT, plan.per_page_max)})."
        ),
    }


# ---------------------------------------------------------------------------- public inputs

PUBLIC_SEARCH_INPUT = _arguments(
    {
        "query": _string(
            "School name, local authority or school type to match (at least 2 characters). "
            "Every word must prefix-match, e.g. 'st marys westminster'.",
            min_length=MIN_QUERY_LENGTH,
            max_length=None,  # the public search sets no maximum (REST neither)
        ),
        "postcode": POSTCODE,
        "phase": PHASE,
        "radius_miles": {
            **RADIUS,
            "description": RADIUS["description"].replace("an origin", "a postcode"),
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": PUBLIC_MAX_LIMIT,
            "default": PUBLIC_DEFAULT_LIMIT,
            "description": f"Maximum number of results, 1 to {PUBLIC_MAX_LIMIT} (default {PUBLIC_DEFAULT_LIMIT}).",
        },
    }
)

URN_INPUT = _arguments({"urn": URN}, ["urn"])

# ---------------------------------------------------------------------------- commercial inputs


def _filters() -> dict[str, Schema]:
    return {
        "local_authority": _string("Local authority name or code, e.g. 'Camden' or '202'."),
        "phase": PHASE,
        "type": _string("Establishment type, e.g. 'Academy converter', 'Community school'."),
        "gender": {
            "type": "string",
            "enum": list(GENDERS),
            "description": "Pupil gender admitted: " + ", ".join(GENDERS) + " (any case).",
        },
        "ofsted_rating": {
            "type": "integer",
            "minimum": 1,
            "maximum": 4,
            "description": (
                "Latest graded Ofsted overall effectiveness (1 Outstanding .. 4 Inadequate). "
                "Graded outcomes are historic after 2025-11-10 and not comparable with report cards."
            ),
        },
        "min_score": {
            "type": "number",
            "minimum": 0,
            "maximum": 100,
            "description": "Minimum svcScore (0 to 100); schools without a score never match.",
        },
        "sort": {
            "type": "string",
            "enum": list(SORT_VALUES),
            "description": (
                "Order: relevance (needs q), distance (needs an origin), name, urn or score. "
                "Ties break by URN."
            ),
        },
    }


def _query(*, required: bool) -> Schema:
    need = "required" if required else "optional"
    return _string(
        f"Text to match against name, local authority and type ({need}, at least 2 characters).",
        min_length=MIN_QUERY_LENGTH,
    )


def commercial_search_input(plan: Plan) -> Schema:
    return _arguments(
        {
            "q": _query(required=True),
            **_filters(),
            "page": PAGE,
            "per_page": per_page(plan),
        },
        ["q"],
    )


def nearby_input(plan: Plan) -> Schema:
    return _arguments(
        {
            "postcode": {
                **POSTCODE,
                "description": POSTCODE["description"] + " Give this or latitude+longitude.",
            },
            "latitude": {
                "type": "number",
                "minimum": -90,
                "maximum": 90,
                "description": "Latitude (WGS84) of the origin; give it with longitude, not with postcode.",
            },
            "longitude": {
                "type": "number",
                "minimum": -180,
                "maximum": 180,
                "description": "Longitude (WGS84) of the origin; give it with latitude.",
            },
            "radius_miles": RADIUS,
            "q": _query(required=False),
            **_filters(),
            "page": PAGE,
            "per_page": per_page(plan),
        }
    )


def compare_input(plan: Plan) -> Schema:
    return _arguments(
        {
            "urns": {
                "type": "array",
                "items": URN,
                "minItems": 2,
                "maxItems": plan.compare_max,
                "uniqueItems": True,
                "description": (
                    f"2 to {plan.compare_max} distinct six-digit URNs (the {plan.name} plan's "
                    'limit), e.g. ["100001", "100004"]; numbers are accepted too.'
                ),
            }
        },
        ["urns"],
    )


def rankings_input(plan: Plan) -> Schema:
    return _arguments(
        {
            "metric": {
                "type": "string",
                "enum": list(RANKING_METRICS),
                "description": "What to rank by: svc_score or a rankable published measure.",
            },
            "phase": {**PHASE, "description": "Rank schools of this phase only (required)."},
            "local_authority": _string("Restrict to one local authority (name or code)."),
            "order": {
                "type": "string",
                "enum": ["desc", "asc"],
                "default": "desc",
                "description": "desc: highest value first (default); asc: lowest first.",
            },
            "page": PAGE,
            "per_page": per_page(plan),
        },
        ["metric", "phase"],
    )


def paging_input(plan: Plan) -> Schema:
    """A list's only arguments: which page, and how many per page (bounded by the plan)."""
    return _arguments({"page": PAGE, "per_page": per_page(plan)})


# ---------------------------------------------------------------------------- public outputs

LOCATION: Schema = {
    **_obj(
        {"latitude": {"type": "number"}, "longitude": {"type": "number"}},
        ["latitude", "longitude"],
        closed=True,
    ),
    "type": ["object", "null"],
}
OFSTED_RATING: Schema = {"type": ["integer", "null"], "minimum": 1, "maximum": 4}
SVC_SCORE: Schema = {"type": ["number", "null"], "minimum": 0, "maximum": 100}

SEARCH_RESULT = _obj(
    {
        "urn": {"type": "integer"},
        "name": {"type": "string"},
        "phase": _nullable("string"),
        "type": _nullable("string"),
        "localAuthority": _nullable("string"),
        "location": LOCATION,
        "distanceMiles": {"type": "number"},
        "ofstedRating": OFSTED_RATING,
        "svcScore": SVC_SCORE,
        "scoreSuppressed": {"type": "boolean"},
        "url": {"type": "string"},
    },
    ["urn", "name", "url"],
    closed=True,
)

SEARCH_RESPONSE = _obj(
    {
        "query": _nullable("string"),
        "postcode": _nullable("string"),
        "phase": _nullable("string"),
        "radiusMiles": _nullable("number"),
        "total": {"type": "integer", "minimum": 0},
        "limit": {"type": "integer", "minimum": 1, "maximum": PUBLIC_MAX_LIMIT},
        "results": {"type": "array", "items": SEARCH_RESULT},
    },
    ["query", "postcode", "phase", "radiusMiles", "total", "limit", "results"],
    closed=True,
)

SCHOOL_RECORD = _obj(
    {
        "urn": {"type": "integer"},
        "name": {"type": "string"},
        "postcode": _nullable("string"),
        "town": _nullable("string"),
        "phase": _nullable("string"),
        "type": _nullable("string"),
        "svcScore": SVC_SCORE,
        "scoreSuppressed": {"type": "boolean"},
        "scoreSuppressedReason": {"type": "string"},
    },
    ["urn", "name"],
)

PUBLIC_ERROR = _obj({"error": {"type": "string"}, "code": {"type": "string"}}, ["error"])

# ---------------------------------------------------------------------------- commercial outputs

COMMERCIAL_ERROR = _obj(
    {
        "error": _obj(
            {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "request_id": {"type": "string"},
                "details": {"type": "object"},
            },
            ["code", "message", "request_id", "details"],
        )
    },
    ["error"],
    closed=True,
)

SOURCE = _obj(
    {
        "name": {"type": "string"},
        "publisher": {"type": "string"},
        "licence": {"type": "string"},
        "url": _nullable("string"),
        "retrieved_at": {"type": "string"},
    },
    ["name", "publisher", "licence", "url", "retrieved_at"],
)
PAGINATION = _obj(
    {
        "page": {"type": "integer", "minimum": 1},
        "per_page": {"type": "integer", "minimum": 1},
        "total": {"type": "integer", "minimum": 0},
        "total_pages": {"type": "integer", "minimum": 0},
    },
    ["page", "per_page", "total", "total_pages"],
)
HISTORIC_GRADE: Schema = {
    **_obj(
        {
            "grade": {"type": "integer", "minimum": 1, "maximum": 4},
            "label": {"type": "string"},
            "inspection_date": _nullable("string"),
            "historic": {"type": "boolean"},
            "comparable": {"type": "boolean"},
        },
        ["grade", "label", "inspection_date", "historic", "comparable"],
    ),
    "type": ["object", "null"],
}
SCHOOL_HEADING = _obj(
    {
        "urn": {"type": "integer"},
        "name": {"type": "string"},
        "phase": _nullable("string"),
        "type": _nullable("string"),
        "local_authority": _nullable("string"),
    },
    ["urn", "name", "phase", "type", "local_authority"],
)
LIST_ITEM = _obj(
    {
        **SCHOOL_HEADING["properties"],
        "local_authority_code": _nullable("string"),
        "town": _nullable("string"),
        "postcode": _nullable("string"),
        "location": LOCATION,
        "distance_miles": {"type": "number", "minimum": 0},
        "gender": _nullable("string"),
        "statutory_low_age": _nullable("integer"),
        "statutory_high_age": _nullable("integer"),
        "pupils": _nullable("integer"),
        "ofsted_rating": OFSTED_RATING,
        "ofsted_historic_grade": HISTORIC_GRADE,
        "svc_score": SVC_SCORE,
        "score_suppressed": {"type": "boolean"},
        "score_suppressed_reason": {"type": "string"},
        "url": {"type": "string"},
    },
    ["urn", "name", "phase", "type", "local_authority", "ofsted_rating", "svc_score", "url"],
)
PROFILE = _obj(
    {
        "urn": {"type": "integer"},
        "name": {"type": "string"},
        "links": {
            "type": "array",
            "items": _obj(
                {
                    "urn": {"type": "integer"},
                    "name": _nullable("string"),
                    "link_type": _nullable("string"),
                    "established": _nullable("string"),
                },
                ["urn", "link_type"],
            ),
        },
        "resources": {"type": "object", "additionalProperties": {"type": "string"}},
        "url": {"type": "string"},
    },
    ["urn", "name", "links", "resources", "url"],
)
MEASURE_VALUE = _obj(
    {
        "value": _nullable("number"),
        "status": {"type": "string", "enum": [s.value for s in MeasureStatus]},
        "reason": {"type": "string"},
        "period": {"type": "string"},
        "cohort": _nullable("integer"),
    },
    ["value", "status"],
)
SERIES = _obj(
    {
        "code": {"type": "string"},
        "label": {"type": "string"},
        "unit": {"type": "string"},
        "latest": MEASURE_VALUE,
        "trend": {"type": "array", "items": MEASURE_VALUE},
        "note": {"type": "string"},
    },
    ["code", "label", "unit", "latest", "trend"],
)
TOPIC_BLOCK = _obj(
    {
        "periods": {"type": "array", "items": {"type": "string"}},
        "latest_period": _nullable("string"),
        "measures": {"type": "array", "items": SERIES},
    },
    ["periods", "latest_period", "measures"],
)


def _topics(topics: tuple[Topic, ...], extra: dict[str, Schema] | None = None) -> Schema:
    blocks = {topic.value: TOPIC_BLOCK for topic in topics}
    return _obj(
        {"school": SCHOOL_HEADING, **blocks, **(extra or {})}, ["school", *blocks, *(extra or {})]
    )


RESULTS = _topics(RESULT_TOPICS)
ADMISSIONS = _topics((Topic.ADMISSIONS,), {"admissions_policy": _nullable("string")})
FINANCE = _topics((Topic.FINANCE,))
INSPECTIONS = _obj(
    {
        "school": SCHOOL_HEADING,
        "latest_report_card": _nullable("object"),
        "historic_grade": HISTORIC_GRADE,
        "inspections": {"type": "array", "items": {"type": "object"}},
        "note": {"type": "string"},
    },
    ["school", "latest_report_card", "historic_grade", "inspections"],
)
COMPARISON = _obj(
    {
        "schools": {
            "type": "array",
            "items": _obj(
                {
                    **SCHOOL_HEADING["properties"],
                    "ofsted_rating": OFSTED_RATING,
                    "svc_score": SVC_SCORE,
                    "measures": {"type": "object", "additionalProperties": MEASURE_VALUE},
                },
                ["urn", "name", "measures"],
            ),
        }
    },
    ["schools"],
)
RANKED = _obj(
    {
        "rank": {"type": "integer", "minimum": 1},
        **SCHOOL_HEADING["properties"],
        "metric": {"type": "string"},
        "value": {"type": "number"},
        "period": _nullable("string"),
    },
    ["rank", "urn", "name", "metric", "value", "period"],
)
RANKING_META = _obj(
    {
        "metric": {"type": "string"},
        "metric_label": {"type": "string"},
        "phase": {"type": "string"},
        "period": _nullable("string"),
        "ranked": {"type": "integer", "minimum": 0},
        "excluded": {"type": "object", "additionalProperties": {"type": "integer"}},
        "excluded_total": {"type": "integer", "minimum": 0},
    },
    ["metric", "phase", "ranked", "excluded", "excluded_total"],
)
FRESHNESS_ITEM = _obj(
    {
        "dataset": {"type": "string"},
        "title": {"type": "string"},
        "publisher": {"type": "string"},
        "period": _nullable("string"),
        "cadence": {"type": "string"},
        "coverage": {"type": "string"},
        "extract_date": _nullable("string"),
        "imported_at": {"type": "string"},
        "rows": {"type": "integer", "minimum": 0},
        # Where `schooldata refresh` fetched it, its last check and last change (null before).
        "source_url": _nullable("string"),
        "checked_at": _nullable("string"),
        "changed_at": _nullable("string"),
    },
    ["dataset", "title", "publisher", "period", "cadence", "coverage", "imported_at"],
)


def envelope(
    data: Schema, *, paginated: bool = False, meta: dict[str, Schema] | None = None
) -> Schema:
    """The commercial envelope: `data` plus `meta` (request id, dataset time, sources)."""
    meta_properties: dict[str, Schema] = {
        "request_id": {"type": "string"},
        "data_updated_at": _nullable("string"),
        "sources": {"type": "array", "items": SOURCE},
    }
    required = ["request_id", "data_updated_at", "sources"]
    if paginated:
        meta_properties["pagination"] = PAGINATION
        required.append("pagination")
    for name, schema in (meta or {}).items():
        meta_properties[name] = schema
        required.append(name)
    return _obj({"data": data, "meta": _obj(meta_properties, required)}, ["data", "meta"])


def or_error(success: Schema, error: Schema) -> Schema:
    """An output schema: the tool's result, or (isError: true) the error body."""
    return {
        "type": "object",
        "description": f"The result ({NULL_MEANS}); a tool error carries the error object instead.",
        "anyOf": [success, error],
    }


LIST_OUTPUT = or_error(
    envelope({"type": "array", "items": LIST_ITEM}, paginated=True), COMMERCIAL_ERROR
)
