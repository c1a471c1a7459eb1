"""A JSON request body as arguments: an object, sent as JSON, or a clear 400 naming why."""

from __future__ import annotations

from schooldata.domain.errors import InvalidParameter, shown_input
from schooldata.entrypoints import json_body as strict_json


def json_body(content_type: str | None, body: bytes) -> dict[str, object]:
    """`content_type`: the request's first Content-Type, as sent."""
    media_type = (content_type or "").partition(";")[0].strip().lower()
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
