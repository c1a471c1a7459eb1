"""A JSON request body as arguments: an object, sent as JSON, or a clear 400 naming why."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schooldata.domain.errors import InvalidParameter, shown_input
from schooldata.entrypoints import json_body as strict_json
from schooldata.entrypoints.scope import first_header


def json_body(scope: Mapping[str, Any], body: bytes) -> dict[str, object]:
    media_type = (first_header(scope, b"content-type") or "").partition(";")[0].strip().lower()
    if media_type != "application/json" and not (
        media_type.startswith("application/") and media_type.endswith("+json")
    ):
        raise InvalidParameter(
            "body", "Send the body as JSON with 'Content-Type: application/json'."
        )
    try:
        document = strict_json.loads(body.decode("utf-8"))
    except strict_json.DuplicateMember as duplicate:
        raise InvalidParameter(
            "body", f"The body names the member {shown_input(duplicate.name)} more than once."
        ) from None
    except (ValueError, RecursionError):
        # ValueError: bad UTF-8, bad JSON, or an integer of more than 4300 digits;
        # RecursionError: arrays or objects nested thousands deep. All are the client's.
        raise InvalidParameter("body", "The body is not valid UTF-8 JSON.") from None
    if not isinstance(document, dict):
        raise InvalidParameter("body", 'The body must be a JSON object: {"urns": ["100000", ...]}.')
    return document
