"""Domain errors: every rule the core enforces fails with one of these, never a bare exception.

Each carries a stable machine `code` (the contract's error codes) and a message written for a
person. The faces translate them to HTTP statuses, JSON-RPC results or exit codes in one place
each; the core never knows which face asked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# An API key pasted into the wrong place (a URN, a postcode, a parameter name, an MCP method or
# tool name) is never echoed back: only its display prefix is (DECISIONS: Authentication 5).
_KEY_SHAPED = re.compile(r"(svc_(?:live|test)_[0-9A-Za-z]{4})[0-9A-Za-z]+")
_KEY_SHAPED_BYTES = re.compile(rb"(svc_(?:live|test)_[0-9A-Za-z]{4})[0-9A-Za-z]+")


def without_keys(text: str) -> str:
    """`text` with anything shaped like an API key cut to its display prefix and `...`
    (`svc_live_AbCd...`): the one rule for every answer that repeats what a caller sent."""
    return _KEY_SHAPED.sub(r"\1...", text) if "svc_" in text else text


def without_keys_in(data: bytes) -> bytes:
    """`without_keys` over an encoded answer (JSON bytes: a key's characters never need
    escaping, so the cut stays inside its string). `data` itself when it holds no key: one
    byte search decides, nearly always."""
    if data.find(b"svc_") < 0:
        return data
    return _KEY_SHAPED_BYTES.sub(rb"\1...", data)


class DomainError(Exception):
    """Base of every rule violation the core reports."""

    code: str = "domain_error"

    def __init__(self, message: str, *, details: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details: dict[str, Any] = dict(details or {})


class InvalidParameter(DomainError):
    """A parameter's value breaks a documented bound or format."""

    code = "invalid_parameter"

    def __init__(self, parameter: str, message: str) -> None:
        super().__init__(message, details={"parameter": parameter})
        self.parameter = parameter


class MissingSearchInput(InvalidParameter):
    """Neither a text query nor a location was supplied."""

    def __init__(self, message: str = "Supply at least one of 'query' or 'postcode'.") -> None:
        super().__init__("query", message)


class UnknownParameter(DomainError):
    """Names a bounded number of the unsupported parameters, and how many there were."""

    code = "unknown_parameter"
    MAX_NAMED = 20

    def __init__(self, parameters: list[str], *, hint: str = "") -> None:
        """`hint`: a sentence after the list (a local caller's "did you mean")."""
        everything = sorted(without_keys(name) for name in parameters)  # never a key
        shown = [_cut(name) for name in everything[: self.MAX_NAMED]]
        more = len(everything) - len(shown)
        listed = ", ".join(shown) + (f" (and {more} more)" if more else "")
        details: dict[str, Any] = {"parameters": shown}
        if more:
            details["count"] = len(everything)
        message = f"Unsupported parameter(s): {listed}." + (f" {hint}" if hint else "")
        super().__init__(message, details=details)
        self.parameters = shown


class UnknownOperation(InvalidParameter):
    """A local caller (the CLI's `call`, the library's `call`) named no operation."""

    def __init__(self, name: str, hint: str = "") -> None:
        message = f"There is no operation {shown_input(name)}." + (f" {hint}" if hint else "")
        super().__init__("operation", message)


class TooManyParameters(DomainError):
    code = "too_many_parameters"

    def __init__(self, maximum: int) -> None:
        super().__init__(
            f"A request may carry at most {maximum} parameters.", details={"max": maximum}
        )


class QueryTooLong(DomainError):
    code = "query_too_long"

    def __init__(self, maximum: int) -> None:
        super().__init__(
            f"The query string may be at most {maximum} bytes long.", details={"max": maximum}
        )


class InvalidUrn(InvalidParameter):
    code = "invalid_urn"

    def __init__(self, raw: object, *, parameter: str = "urn") -> None:
        super().__init__(parameter, f"URN must be exactly six digits; got {shown_input(raw)}.")


class MissingUrn(InvalidParameter):
    code = "invalid_urn"

    def __init__(self, parameter: str = "urn") -> None:
        super().__init__(parameter, f"{parameter} (six digits) is required.")


class UnknownPostcode(InvalidParameter):
    code = "unknown_postcode"

    def __init__(self, raw: str) -> None:
        super().__init__("postcode", f"Unknown postcode: {shown_input(raw)}.")


class SchoolNotFound(DomainError):
    code = "not_found"

    def __init__(self, urn: object) -> None:
        super().__init__(f"No open school has URN {urn}.", details={"urn": str(urn)})
        self.urn = urn


class OrganisationNotFound(DomainError):
    code = "not_found"

    def __init__(self, slug: str) -> None:
        super().__init__(f"Organisation {slug!r} not found.", details={"organisation": slug})
        self.slug = slug


class KeyNotFound(DomainError):
    """No live key has the display prefix given (none ever did, or all are revoked)."""

    code = "not_found"

    def __init__(self, display_prefix: str) -> None:
        super().__init__(
            f"No live key with display prefix {display_prefix!r} found.",
            details={"display_prefix": display_prefix},
        )
        self.display_prefix = display_prefix


class FeatureNotInPlan(DomainError):
    code = "feature_not_in_plan"

    def __init__(self, feature: str, plan: str) -> None:
        super().__init__(
            f"The '{feature}' capability is not included in the {plan} plan.",
            details={"feature": feature, "plan": plan},
        )
        self.feature = feature


class LimitExceedsPlan(DomainError):
    code = "limit_exceeds_plan"

    def __init__(self, parameter: str, maximum: int, plan: str) -> None:
        super().__init__(
            f"'{parameter}' may be at most {maximum} on the {plan} plan.",
            details={"parameter": parameter, "max": maximum},
        )
        self.parameter = parameter
        self.maximum = maximum


class SinceExpired(DomainError):
    """A `since` older than the changes still kept (the retention): the caller's copy must be
    rebuilt from a full read, then kept current from `details.oldest` or a later version."""

    code = "since_expired"

    def __init__(self, since: str, *, oldest: str) -> None:
        super().__init__(
            f"Changes since {since} are no longer kept; the oldest version changes can be "
            f"listed from is {oldest}. Read the data afresh, then ask for changes since the "
            "meta.data_version of that read.",
            details={"parameter": "since", "since": since, "oldest": oldest},
        )
        self.oldest = oldest


class NotAcceptable(DomainError):
    """The client's `Accept` allows none of the representations an answer has."""

    code = "not_acceptable"

    def __init__(self, available: tuple[str, ...]) -> None:
        super().__init__(
            f"This answer is available as {' or '.join(available)}; the Accept header "
            "allows none of them.",
            details={"available": list(available)},
        )
        self.available = available


class DataUnavailable(DomainError):
    """A driven dependency (store, key store, meter) failed; the answer would be partial."""

    code = "service_unavailable"

    def __init__(self, message: str = "A data dependency is temporarily unavailable.") -> None:
        super().__init__(message)


class SearchUnavailable(DataUnavailable):
    """Public search keeps the contract's failure: 'temporarily unavailable' (REST 500)."""

    code = "search_unavailable"

    def __init__(
        self, message: str = "The search service is temporarily unavailable; please retry."
    ) -> None:
        super().__init__(message)


class ImportRejected(DomainError):
    """A whole input file was refused (wrong layout, too many bad rows); nothing was changed."""

    code = "import_rejected"


def _cut(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


class DownloadFailed(DomainError):
    """A publisher's file could not be fetched whole (unreachable, a server error that
    outlasted the retries, a cut-off or oversized body); nothing was imported."""

    code = "download_failed"


def shown_input(raw: object) -> str:
    """Quote user input for a message without letting a huge or hostile value, or a key,
    through whole."""
    text = without_keys(str(raw))
    if len(text) > 40:
        text = text[:37] + "..."
    return repr(text)
