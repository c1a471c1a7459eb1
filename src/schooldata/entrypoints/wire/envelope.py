"""The commercial envelope and error, the same on REST and MCP.

An answer is `{"data": ..., "meta": {...}}`: `meta` carries the request id, the dataset
generation time, the pagination of a list, source attribution and, last, the data version the
answer was served from (`data_version`; null until an import has made one). A refusal is
`{"error": {"code", "message", "request_id", "details"}}`.

A list's pagination names the next and previous pages as absolute URLs where the answer has
an address to page by (REST: the request's URL with `page` replaced); where a client pages by
arguments instead (MCP, the library) they are null. `meta` says which pages those are and
builds the meta of each answer.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

import msgspec
from msgspec import Meta as Constraint
from msgspec import Struct

from schooldata.domain.versions import ID_PATTERN
from schooldata.entrypoints.wire.common import Count, Instant, Uri

REQUEST_ID_PATTERN = "^req_[0-9A-Za-z]{20}$"
DataVersionId = Annotated[
    str,
    Constraint(
        pattern=ID_PATTERN,
        description="A data version: its time (UTC, to the second), then its sequence number; "
        "ids sort in time.",
    ),
]
ERROR_CODES = (
    "invalid_parameter",
    "unknown_parameter",
    "too_many_parameters",
    "query_too_long",
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
    "since_expired",
    "method_not_allowed",
    "not_acceptable",
    "payload_too_large",
    "rate_limit_exceeded",
    "quota_exceeded",
    "service_unavailable",
    "search_unavailable",
    "import_rejected",
    "download_failed",
    "internal_error",
    "invalid_request",
)
ErrorCode = Annotated[str, Constraint(extra_json_schema={"enum": list(ERROR_CODES)})]
RequestId = Annotated[str, Constraint(pattern=REQUEST_ID_PATTERN)]
UrnText = Annotated[str, Constraint(pattern="^[0-9]{6}$")]


class Source(Struct, kw_only=True):
    """One source's attribution."""

    name: str
    publisher: str
    licence: str
    url: str | None
    retrieved_at: Instant
    dataset: str
    attribution: str
    extract_date: dt.date | None
    synthetic: bool


class Pagination(Struct, kw_only=True, forbid_unknown_fields=True):
    """Where this page is in the list; `next`/`prev` are the URLs of the pages either side
    (null: there is none, or the face pages by arguments rather than by URL)."""

    page: Annotated[int, Constraint(ge=1)]
    per_page: Annotated[int, Constraint(ge=1)]
    total: Count
    total_pages: Count
    next: Uri | None
    prev: Uri | None


class Meta(Struct, kw_only=True):
    """About one answer: its request id, when its data was generated, its sources, and the
    data version it was served from."""

    request_id: str
    data_updated_at: Instant | None
    sources: list[Source]
    data_version: DataVersionId | None


class ListMeta(Struct, kw_only=True):
    """About one page of a list: `Meta` with the pagination (true totals)."""

    request_id: str
    data_updated_at: Instant | None
    pagination: Pagination
    sources: list[Source]
    data_version: DataVersionId | None


class LookupMeta(Struct, kw_only=True):
    """About a bulk lookup: the list's `meta` and the URNs asked for that name no open
    school (unknown, closed or proposed to open), in the order asked."""

    request_id: str
    data_updated_at: Instant | None
    pagination: Pagination
    sources: list[Source]
    not_found: list[UrnText]
    data_version: DataVersionId | None


class CommercialErrorBody(Struct, kw_only=True, forbid_unknown_fields=True):
    code: ErrorCode
    message: str
    request_id: RequestId
    details: dict[str, Any]


class CommercialError(Struct, kw_only=True, forbid_unknown_fields=True):
    """A commercial refusal; `details` holds what the code needs (`feature`, `parameter`,
    `max`, `retry_after`, ...)."""

    error: CommercialErrorBody


def envelope_of(name: str, data: Any, meta: type[Struct]) -> type[Struct]:
    """The envelope of one kind of answer: its own Struct, so its schema names its data."""
    return msgspec.defstruct(
        name,
        [("data", data), ("meta", meta)],
        kw_only=True,
        forbid_unknown_fields=True,
        namespace={"__doc__": f"The commercial envelope: `data` and its `{meta.__name__}`."},
    )


def commercial_error(
    code: str, message: str, request_id: str, details: dict[str, Any] | None = None
) -> CommercialError:
    return CommercialError(
        error=CommercialErrorBody(
            code=code, message=message, request_id=request_id, details=details or {}
        )
    )
