"""The OpenAPI 3.1 document, generated from the operation registry and the output Structs.

Every path, operation id, parameter, response, security requirement and `x-feature` comes
from an operation's declaration; every body schema from the Struct that encodes it. The test
suite checks the running app against this document with schemathesis, and the document
against the contract's snapshot (tests/contract/test_schema_equivalence.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schooldata.application.operations.declaration import AnyOperation, Entry
from schooldata.application.operations.registry import REGISTRY, Registry
from schooldata.domain.plans import DEFAULT_PLANS, Plan
from schooldata.entrypoints.schemas.outputs import COMPONENTS
from schooldata.entrypoints.schemas.parameters import http_parameters, request_body
from schooldata.entrypoints.schemas.responses import entry_responses, header_components
from schooldata.entrypoints.schemas.style import Schema

KEYED: list[dict[str, list[str]]] = [{"bearerKey": []}, {"apiKeyHeader": []}]
METERED = (
    "Metered: one request per call that passes authentication, entitlement and the rate limit."
)
SECURITY_SCHEMES: Schema = {
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
}
TAGS = [
    {"name": "public", "description": "Anonymous access; public fields only."},
    {"name": "commercial", "description": "Keyed access; plan entitlements and metering apply."},
]


def build(
    *,
    plans: Sequence[Plan] = DEFAULT_PLANS,
    server_url: str | None = None,
    registry: Registry = REGISTRY,
) -> dict[str, Any]:
    """The document; `plans` bound the plan-bound parameters (the largest plan's limit)."""
    paths: dict[str, dict[str, Any]] = {}
    for (method, path), entry in registry.entries():
        paths.setdefault(path, {})[method.lower()] = operation(entry, plans)
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
        "paths": paths,
        "components": {
            "schemas": COMPONENTS,
            "headers": header_components(),
            "securitySchemes": SECURITY_SCHEMES,
        },
        "tags": TAGS,
    }
    if server_url:
        document["servers"] = [{"url": server_url}]
    return document


def operation(entry: Entry, plans: Sequence[Plan]) -> Schema:
    public, keyed = entry.public, entry.keyed
    shown = public or keyed
    assert shown is not None  # an entry always holds one operation
    out: Schema = {"operationId": shown.name, "summary": shown.summary}
    if public is not None and keyed is not None:
        out["summary"] = f"{public.summary} (with a key: {_lower(keyed.summary)})"
        out["description"] = _two_tiers(public, keyed)
    elif keyed is not None:
        out["description"] = f"{keyed.summary}. {_feature(keyed)} {METERED}\n\n{keyed.rules}"
    else:
        out["description"] = shown.rules
    if shown.deprecated_for is not None:
        out["deprecated"] = True
    out["tags"] = ["public" if public is not None else "commercial"]
    if keyed is not None:
        out["security"] = [{}, *KEYED] if public is not None else KEYED
    out["parameters"] = http_parameters(shown, plans)
    body = request_body(shown, plans)
    if body is not None:
        out["requestBody"] = body
    out["responses"] = entry_responses(entry)
    if keyed is not None and keyed.feature is not None:
        out["x-feature"] = keyed.feature.value
    return out


def _two_tiers(public: AnyOperation, keyed: AnyOperation) -> str:
    return (
        f"Anonymous callers get the public answer and public errors (`Error`). With an API "
        f"key the same path returns the {_lower(keyed.summary)} in the single-resource "
        f"envelope (`{{data, meta}}`; {_feature(keyed)[:-1].lower()}, metered), commercial "
        f"errors and the six meter headers.\n\n{public.rules}\n{keyed.rules}"
    )


def _feature(operation: AnyOperation) -> str:
    feature = operation.feature
    return "" if feature is None else f"Plan feature: `{feature.value}`."


def _lower(summary: str) -> str:
    """A summary inside a sentence: first letter lower case, any parenthesis dropped."""
    text = summary.split(" (")[0]
    return text[:1].lower() + text[1:]
