"""Every way the generated schemas may differ from the hand-written ones they replaced
(`baseline/openapi.json`, `baseline/mcp_tools.json`), each with its reason.

Where the two hand-written sets disagreed (they had drifted), the generated schema takes what
is true of the code; where one left a shape undescribed, the generated one describes it. The
rules behind the entries:

- Public shapes' `required` lists are the contract's tables, unchanged.
- In a commercial shape, a property is `required` exactly when every answer sends it (the
  hand-written lists named a few, differently in OpenAPI and MCP); a property sent only
  sometimes (`distance_miles`, `score_suppressed_reason`, a measure's `reason`/`period`/
  `cohort`, an inspection's framework-specific fields) is not.
- Every property an answer can send is described (the hand-written schemas left several
  shapes as a bare `object`).
- Bounds, formats, patterns and closedness that one document stated and the other missed are
  stated in both.
- Additive v1 features (issue 23, DECISIONS "Additive v1 features"): the bulk lookup
  operation; page links (`meta.pagination.next`/`prev`, the `Link` header of paged lists);
  CSV (`text/csv`) beside JSON on the public search and the commercial lists, which answer
  406 to an `Accept` allowing neither.
- Data through time (issue 54, DECISIONS "Data through time"): the changes operation;
  `meta.data_version` on every commercial answer; `include_predecessors` on results and
  inspections (REST and their MCP tools) and the `predecessors` it adds; each results key
  stage's `releases`; a profile link's `status`, `opened` and `closed`.

An entry matches a difference when its place matches `where` (`*` any text) and its aspect is
`aspect`; `before`/`after`, when given, must equal the two values. The test fails on a
difference no entry allows, and on an entry that no longer allows anything.
"""

from __future__ import annotations

from attrs import frozen

from schooldata.entrypoints.wire.envelope import ERROR_CODES, REQUEST_ID_PATTERN
from schooldata.entrypoints.wire.records import SchoolProfile, SchoolRecord

ANY = object()
SOURCE_ADDED = ["attribution", "dataset", "extract_date", "synthetic"]
GRADE_ADDED = ["framework", "note"]
GRADE = ["comparable", "framework", "grade", "historic", "inspection_date", "label", "note"]
HEADING = ["local_authority", "name", "phase", "type", "urn"]
LIST_ITEM = [
    *["gender", "local_authority", "local_authority_code", "location", "name"],
    *["ofsted_historic_grade", "ofsted_rating", "phase", "postcode", "pupils"],
    *["score_suppressed", "statutory_high_age", "statutory_low_age", "svc_score", "town"],
    *["type", "url", "urn"],
]
FRESHNESS = [
    *["cadence", "changed_at", "checked_at", "coverage", "dataset", "extract_date"],
    *["imported_at", "period", "publisher", "rows", "source_url", "synthetic", "title"],
]
RANKED = ["local_authority", "metric", "name", "period", "phase", "rank", "type", "urn", "value"]
RANKING = [
    *["excluded", "excluded_total", "metric", "metric_label", "period", "phase"],
    *["ranked", "ties"],
]
COMPARED = [
    *["capacity", "gender", "local_authority", "measures", "name", "ofsted_historic_grade"],
    *["ofsted_rating", "phase", "postcode", "pupils", "score_suppressed", "svc_score", "town"],
    *["type", "urn"],
]
INSPECTION = [
    *["framework", "inspection_date", "inspection_number", "inspection_type"],
    *["inspectorate", "publication_date"],
]
RESOURCES = ["admissions", "finance", "inspections", "results"]
INSPECTION_ALL = sorted(
    [
        *INSPECTION,
        *["comparable", "comparable_with_graded", "evaluation_areas", "historic", "outcome"],
        *["overall_effectiveness", "overall_effectiveness_label", "safeguarding"],
        *["safeguarding_effective", "sub_judgements"],
    ]
)
LINK = ["established", "link_type", "name", "urn"]
LINK_FACTS = ["closed", "opened", "status"]  # (issue 54: the linked school as registered)
HISTORY = ["historic_grade", "inspections", "latest_report_card", "note", "school"]
HISTORY_PROPERTIES = sorted([*HISTORY, "predecessors"])  # (issue 54: include_predecessors)
# The open record: the contract's table (what the hand-written schemas listed), then every
# other publicly licensed field, `url`, and `synthetic` (sent only on the bundled demo's
# records: true, so a client can tell an invented school from a real one).
RECORD_TABLE = ["urn", "name", "postcode", "town", "phase", "type", "svcScore"]
RECORD_TABLE += ["scoreSuppressed", "scoreSuppressedReason"]
RECORD_ADDED = sorted(set(SchoolRecord.__struct_encode_fields__) - set(RECORD_TABLE))
assert {"url", "synthetic"} <= set(RECORD_ADDED)
# The profile: every commercially licensed field (from the licensing registry), its links,
# resources and url; all always sent but `score_suppressed_reason`.
PROFILE = sorted(SchoolProfile.__struct_encode_fields__)
PROFILE_REQUIRED = sorted(set(PROFILE) - {"score_suppressed_reason"})
META_DOCUMENT = [
    *["api_version", "commercial_launch", "description_version", "mcp_protocol_versions"],
    *["null_policy", "plans", "service", "source_policy", "sources"],
]

# Issue 54: every commercial meta names its data version, last.
META_REQUIRED = ["data_updated_at", "request_id", "sources"]
LIST_META_REQUIRED = sorted([*META_REQUIRED, "pagination"])
TOPIC_REQUIRED = ["latest_period", "measures", "periods"]

# Issue 23: the paged lists (Link header, CSV, 406) and their statuses before.
PAGED_LISTS = (
    "/api/v1/schools",
    "/api/v1/schools/search",
    "/api/v1/schools/nearby",
    "/api/v1/rankings",
    "/api/v1/areas/local-authorities",
    "/api/v1/data-freshness",
)
KEYED_STATUSES = ["200", "400", "401", "403", "429", "503"]
SEARCH_STATUSES = ["200", "400", "401", "500"]
METERED_HEADERS = [
    *["X-Quota-Limit", "X-Quota-Remaining", "X-Quota-Reset", "X-RateLimit-Limit"],
    *["X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Request-Id"],
]
PAGINATION = ["next", "page", "per_page", "prev", "total", "total_pages"]


@frozen
class Allowed:
    where: str
    aspect: str
    why: str
    before: object = ANY
    after: object = ANY


ALLOWED: tuple[Allowed, ...] = (
    # ------------------------------------------------------------------ additive (issue 54)
    Allowed(
        "GET /api/v1/changes",
        "operation",
        "What changed since a data version (listChanges, feature `changes`); no MCP tool.",
        before=False,
        after=True,
    ),
    Allowed(
        "*.meta",
        "properties",
        "meta.data_version: the data version every commercial answer was served from.",
        before=[],
        after=["data_version"],
    ),
    *(
        Allowed(
            "*.meta",
            "required",
            "meta.data_version is always sent (null until an import made a version).",
            before=before,
            after=sorted([*before, "data_version"]),
        )
        for before in (
            META_REQUIRED,
            LIST_META_REQUIRED,
            sorted([*LIST_META_REQUIRED, "ranking"]),
        )
    ),
    *(
        Allowed(
            f"GET /api/v1/schools/{{urn}}/{topic}",
            "parameters",
            "include_predecessors: the predecessors' records too (GIAS conversion links).",
            before=["urn"],
            after=["urn", "include_predecessors"],
        )
        for topic in ("results", "inspections")
    ),
    *(
        Allowed(
            f"{tool} input[*]",
            "properties",
            "MCP: the same optional include_predecessors argument.",
            before=[],
            after=["include_predecessors"],
        )
        for tool in ("get_school_results", "get_school_inspection_history")
    ),
    *(
        Allowed(
            where,
            "properties",
            "`predecessors`, sent only with include_predecessors=true.",
            before=[],
            after=["predecessors"],
        )
        for where in (
            "GET /api/v1/schools/{urn}/results 200.data",
            "get_school_results output|anyOf[0].data",
            "get_school_inspection_history output|anyOf[0].data",
        )
    ),
    Allowed(
        "*results*.data.*",
        "properties",
        "A key stage's `releases` (each year's release status and date), and `cohort`.",
        before=[],
        after=["cohort", "releases"],
    ),
    Allowed(
        "*results*.data.*",
        "required",
        "A key stage's `releases` is always sent.",
        before=TOPIC_REQUIRED,
        after=sorted([*TOPIC_REQUIRED, "releases"]),
    ),
    Allowed(
        "get_school output|anyOf[0].data.links[]",
        "properties",
        "A link names the linked school's status and dates as registered (null: unknown).",
        before=[],
        after=LINK_FACTS,
    ),
    # ------------------------------------------------------------------ additive (issue 23)
    Allowed(
        "POST /api/v1/schools/lookup",
        "operation",
        "The bulk lookup: one new operation (lookupSchools), no MCP tool.",
        before=False,
        after=True,
    ),
    *(
        Allowed(
            f"GET {path}",
            "statuses",
            "406 not_acceptable: an Accept allowing neither JSON nor CSV.",
            before=KEYED_STATUSES,
            after=sorted([*KEYED_STATUSES, "406"]),
        )
        for path in PAGED_LISTS
    ),
    Allowed(
        "GET /api/v1/search",
        "statuses",
        "406 not_acceptable: an Accept allowing neither JSON nor CSV.",
        before=SEARCH_STATUSES,
        after=sorted([*SEARCH_STATUSES, "406"]),
    ),
    *(
        Allowed(
            f"GET {path} 200",
            "headers",
            "A paged list's page links: the RFC 8288 Link header.",
            before=METERED_HEADERS,
            after=sorted([*METERED_HEADERS, "Link"]),
        )
        for path in PAGED_LISTS
    ),
    *(
        Allowed(
            f"GET {path} 200",
            "content",
            "The list as CSV for Accept: text/csv.",
            before=["application/json"],
            after=["application/json", "text/csv"],
        )
        for path in (*PAGED_LISTS, "/api/v1/search")
    ),
    Allowed(
        "*.meta.pagination",
        "properties",
        "Page links: the next and previous pages' URLs (null: none, or paged by arguments).",
        before=[],
        after=["next", "prev"],
    ),
    Allowed("*.meta.pagination", "required", "Always sent (null or a URL).", after=PAGINATION),
    # ------------------------------------------------------------------ errors
    Allowed(
        "*error.code",
        "enum",
        "The code enum lists every code the core can raise: too_many_parameters and "
        "query_too_long (the REST query caps), search_unavailable, import_rejected, "
        "since_expired (issue 54's 410).",
        after=list(ERROR_CODES),
    ),
    Allowed(
        "* output|anyOf[1].error",
        "additionalProperties",
        "MCP: the commercial error object is closed, as OpenAPI said.",
        before=None,
        after=False,
    ),
    Allowed(
        "* output|anyOf[1].error.request_id",
        "pattern",
        "MCP: the request id's pattern, as OpenAPI gave it.",
        before=None,
        after=REQUEST_ID_PATTERN,
    ),
    # ------------------------------------------------------------------ inputs
    Allowed(
        "find_schools_near_location input[*].postcode",
        "maxLength",
        "MCP: the commercial postcode's 16-character bound that OpenAPI showed and the code "
        "enforces (the Param declares it); the MCP schema had dropped it.",
        before=None,
        after=16,
    ),
    # ------------------------------------------------------------------ envelope
    Allowed(
        "* output|anyOf[0]",
        "additionalProperties",
        "MCP: the envelope holds only data and meta, as OpenAPI said.",
        before=None,
        after=False,
    ),
    Allowed(
        "* output|anyOf[0].meta.pagination",
        "additionalProperties",
        "MCP: pagination is closed, as OpenAPI said.",
        before=None,
        after=False,
    ),
    Allowed(
        "*.meta.sources[]",
        "properties",
        "Every source also carries dataset, attribution, extract_date and synthetic.",
        before=[],
        after=SOURCE_ADDED,
    ),
    Allowed(
        "*.meta.sources[]",
        "required",
        "Always sent: required.",
        after=sorted(["licence", "name", "publisher", "retrieved_at", "url", *SOURCE_ADDED]),
    ),
    Allowed(
        "* output*",
        "format",
        "MCP: the formats OpenAPI gave (date-time, uri), and `date` for dates.",
        before=None,
    ),
    Allowed(
        "GET /api/v1/rankings 200.meta",
        "properties",
        "OpenAPI: a ranking's meta carries `ranking` (MCP described it), and (issue 54) "
        "`data_version`.",
        before=[],
        after=["data_version", "ranking"],
    ),
    Allowed(
        "GET /api/v1/rankings 200.meta",
        "required",
        "Always sent: required (`ranking`, and issue 54's `data_version`).",
        before=LIST_META_REQUIRED,
        after=sorted([*LIST_META_REQUIRED, "data_version", "ranking"]),
    ),
    Allowed(
        "*.meta.ranking",
        "properties",
        "MCP: `ties` says how ties break.",
        before=[],
        after=["ties"],
    ),
    Allowed("*.meta.ranking", "required", "Always sent: required.", after=RANKING),
    # ------------------------------------------------------------------ public
    *(
        Allowed(
            where,
            "properties",
            "OpenAPI: the open SchoolRecord describes every publicly licensed field (its "
            "required list stays the contract's), its url, and `synthetic` (true on the demo's "
            "records only).",
            before=[],
            after=RECORD_ADDED,
        )
        for where in ("GET /api/get-school 200", "GET /api/v1/schools/{urn} 200|oneOf[0]")
    ),
    Allowed(
        "get_school output|anyOf[0]",
        "properties",
        "MCP: the public record describes every publicly licensed field, its url and "
        "`synthetic` (true on the demo's records only).",
        before=[],
        after=RECORD_ADDED,
    ),
    Allowed(
        "search_schools output|anyOf[0].results",
        "maxItems",
        "MCP: at most 25 results, as OpenAPI said.",
        before=None,
        after=25,
    ),
    Allowed(
        "search_schools output|anyOf[0].results[].distanceMiles",
        "minimum",
        "MCP: a distance is never negative, as OpenAPI said.",
        before=None,
        after=0,
    ),
    # ------------------------------------------------------------------ commercial data
    *(
        Allowed(
            where, "required", "A list item: required exactly when always sent.", after=LIST_ITEM
        )
        for where in (
            "GET /api/v1/schools* 200.data[]",
            "search_schools output|anyOf[0].data[]",
            "find_schools_near_location output|anyOf[0].data[]",
        )
    ),
    Allowed(
        "GET /api/* 200*.ofsted_historic_grade",
        "properties",
        "OpenAPI: the historic grade was a bare object; now described.",
        before=[],
        after=GRADE,
    ),
    Allowed(
        "* output*historic_grade",
        "properties",
        "MCP: the grade's framework (`graded`) and note are sent too.",
        before=[],
        after=GRADE_ADDED,
    ),
    Allowed("*historic_grade", "required", "Always sent: required.", after=GRADE),
    Allowed(
        "GET /api/v1/data-freshness 200.data[]",
        "properties",
        "OpenAPI: the freshness item was undescribed.",
        before=[],
        after=FRESHNESS,
    ),
    Allowed(
        "get_school_data_freshness output|anyOf[0].data[]",
        "properties",
        "MCP: `synthetic` is sent too, and (refresh) where and when the file was fetched.",
        before=[],
        after=["changed_at", "checked_at", "source_url", "synthetic"],
    ),
    Allowed("*data-freshness* 200.data[]", "required", "Always sent.", after=FRESHNESS),
    Allowed(
        "get_school_data_freshness output*.data[]", "required", "Always sent.", after=FRESHNESS
    ),
    Allowed(
        "GET /api/v1/areas/local-authorities 200.data[]",
        "properties",
        "OpenAPI: the authority item was undescribed.",
        before=[],
        after=["code", "name", "open_schools"],
    ),
    Allowed(
        "GET /api/v1/meta 200.data",
        "properties",
        "OpenAPI: the metadata document was a bare object.",
        before=[],
        after=META_DOCUMENT,
    ),
    Allowed("GET /api/v1/meta 200.data", "required", "Always sent.", after=META_DOCUMENT),
    Allowed(
        "GET /api/v1/rankings 200.data[]",
        "properties",
        "OpenAPI: the ranked item was undescribed.",
        before=[],
        after=RANKED,
    ),
    Allowed("*rankings* 200.data[]", "required", "Always sent.", after=RANKED),
    Allowed("get_school_rankings output*.data[]", "required", "Always sent.", after=RANKED),
    *(
        Allowed(where, "properties", "Every licensed field is described.", before=[])
        for where in (
            "GET /api/v1/schools/{urn} 200|oneOf[1].data",
            "get_school output|anyOf[0].data",
        )
    ),
    *(
        Allowed(where, "required", "Every licensed field is always sent.", after=PROFILE_REQUIRED)
        for where in (
            "GET /api/v1/schools/{urn} 200|oneOf[1].data",
            "get_school output|anyOf[0].data",
        )
    ),
    Allowed(
        "GET /api/v1/schools/{urn} 200|oneOf[1].data.links[]",
        "properties",
        "OpenAPI: a link was a bare object (and, issue 54, names the linked school's status "
        "and dates).",
        before=[],
        after=sorted([*LINK, *LINK_FACTS]),
    ),
    Allowed("*.data.links[]", "required", "Always sent.", after=sorted([*LINK, *LINK_FACTS])),
    Allowed(
        "get_school output|anyOf[0].data.links[].link_type",
        "type",
        "A link always has its type (EstablishmentLink.link_type is never None).",
        before=["null", "string"],
        after=["string"],
    ),
    Allowed(
        "*.data.resources", "properties", "The four resources, named.", before=[], after=RESOURCES
    ),
    Allowed("*.data.resources", "required", "Always sent.", after=RESOURCES),
    Allowed(
        "get_school output|anyOf[0].data.resources",
        "additionalProperties",
        "MCP: named properties instead of a map of strings.",
        before={"type": "string"},
        after=None,
    ),
    Allowed(
        "GET /api/v1/schools/{urn}/* 200.data.school",
        "properties",
        "OpenAPI: the heading's phase, type and authority are sent too (MCP said so).",
        before=[],
        after=["local_authority", "phase", "type"],
    ),
    Allowed(
        "GET /api/v1/schools/{urn}/* 200.data.school", "required", "Always sent.", after=HEADING
    ),
    Allowed(
        "GET /api/v1/schools/{urn}/admissions 200.data",
        "properties",
        "OpenAPI: admissions also carries admissions_policy (MCP said so).",
        before=[],
        after=["admissions_policy"],
    ),
    Allowed(
        "GET /api/v1/schools/{urn}/admissions 200.data",
        "required",
        "Always sent.",
        after=["admissions", "admissions_policy", "school"],
    ),
    Allowed(
        "*.data.*",
        "properties",
        "A topic block may carry `cohort` (the destinations block says whose figures they are).",
        before=[],
        after=["cohort"],
    ),
    Allowed(
        "*.measures[].*cohort",
        "type",
        "MCP: a measure's cohort is sent only when known, never as null.",
        before=["integer", "null"],
        after=["integer"],
    ),
    Allowed(
        "GET /api/v1/schools/{urn}/inspections 200.data",
        "properties",
        "OpenAPI: the inspection history was undescribed (and, issue 54, `predecessors` is "
        "sent with include_predecessors=true).",
        before=[],
        after=HISTORY_PROPERTIES,
    ),
    Allowed(
        "*inspections 200.data",
        "required",
        "Always sent.",
        after=["historic_grade", "inspections", "latest_report_card", "note", "school"],
    ),
    Allowed(
        "get_school_inspection_history output|anyOf[0].data",
        "required",
        "Always sent (the note too).",
        after=["historic_grade", "inspections", "latest_report_card", "note", "school"],
    ),
    *(
        Allowed(
            f"get_school_inspection_history output|anyOf[0].data.{where}",
            "properties",
            "MCP: an inspection was a bare object; each framework's fields, described.",
            before=[],
            after=INSPECTION_ALL,
        )
        for where in ("inspections[]", "latest_report_card")
    ),
    *(
        Allowed(
            f"get_school_inspection_history output|anyOf[0].data.{where}",
            "required",
            "The fields every framework sends.",
            after=INSPECTION,
        )
        for where in ("inspections[]", "latest_report_card")
    ),
    Allowed(
        "POST /api/v1/schools/compare 200.data",
        "properties",
        "OpenAPI: the comparison was undescribed.",
        before=[],
        after=["schools"],
    ),
    Allowed(
        "compare_schools output|anyOf[0].data.schools[]",
        "properties",
        "MCP: every fact a compared school carries.",
        before=[],
    ),
    Allowed(
        "compare_schools output|anyOf[0].data.schools[]", "required", "Always sent.", after=COMPARED
    ),
    Allowed(
        "compare_schools output|anyOf[0].data.schools[].measures",
        "additionalProperties",
        "MCP: a compared measure carries its label (always) and no cohort (never sent).",
    ),
)
