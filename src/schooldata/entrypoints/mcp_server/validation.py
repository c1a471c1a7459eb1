"""Tool arguments against the tool's input schema -> the domain's own parameter errors.

This is the "arguments validated" step of MCP metering: it runs before a use is consumed, so a
call refused here costs nothing. The messages and codes are the ones REST gives for the same
mistake (`invalid_parameter`, `invalid_urn`, `unknown_parameter`, `limit_exceeds_plan`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from jsonschema.exceptions import best_match  # type: ignore[import-untyped]

from schooldata.domain.errors import (
    DomainError,
    InvalidParameter,
    InvalidUrn,
    LimitExceedsPlan,
    UnknownParameter,
)
from schooldata.domain.plans import Plan

_TYPE_NAMES = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "array": "an array",
    "boolean": "true or false",
    "object": "an object",
}
_URNS_MESSAGES = {
    "minItems": "Compare needs at least 2 URNs.",
    "uniqueItems": "Each URN may appear only once.",
    "type": "urns must be an array of six-digit URN strings.",
}
_PATTERN_MESSAGES = {
    "postcode": (
        "postcode must be a full UK postcode (e.g. 'SW1A 1AA') or an outward code (e.g. 'SW1A')."
    ),
}


def check_plan_limits(schema: Mapping[str, Any], arguments: Mapping[str, Any], plan: Plan) -> None:
    """Plan bounds first, so going over them reads as the plan's limit, not a schema error."""
    accepted = schema.get("properties", {})
    requested = arguments.get("per_page")
    if "per_page" in accepted and isinstance(requested, int) and not isinstance(requested, bool):
        plan.per_page(requested)  # raises limit_exceeds_plan above the plan's maximum
    urns = arguments.get("urns")
    if "urns" in accepted and isinstance(urns, list) and len(urns) > plan.compare_max:
        raise LimitExceedsPlan("urns", plan.compare_max, plan.name)


def validate_arguments(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> None:
    """Raise the domain error for the most relevant schema violation, if any."""
    error = best_match(Draft202012Validator(schema).iter_errors(dict(arguments)))
    if error is not None:
        raise _domain_error(error, schema, arguments)


class _UrnNotText(InvalidUrn):
    """A URN sent as a number or anything but text: same code, a message that says why."""

    def __init__(self) -> None:
        InvalidParameter.__init__(
            self, "urn", 'A URN is a string of exactly six digits, e.g. "100001".'
        )


def _domain_error(
    error: Any, schema: Mapping[str, Any], arguments: Mapping[str, Any]
) -> DomainError:
    path = list(error.absolute_path)
    keyword: str = error.validator
    if not path:
        if keyword == "additionalProperties":
            known = schema.get("properties", {})
            return UnknownParameter([name for name in arguments if name not in known])
        if keyword == "required":
            missing = [n for n in error.validator_value if n not in arguments]
            name = missing[0] if missing else "arguments"
            return InvalidParameter(name, f"{name} is required.")
        return InvalidParameter("arguments", "Tool arguments must be a JSON object.")
    name = str(path[0])
    value = error.instance
    if name == "urn" or (name == "urns" and len(path) > 1):
        return InvalidUrn(value) if isinstance(value, str) else _UrnNotText()
    if name == "urns" and keyword in _URNS_MESSAGES:
        return InvalidParameter(name, _URNS_MESSAGES[keyword])
    return InvalidParameter(name, _message(name, keyword, error.schema))


def _message(name: str, keyword: str, schema: Mapping[str, Any]) -> str:
    if keyword == "type":
        kinds: list[str] = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        return f"{name} must be " + " or ".join(_TYPE_NAMES.get(k) or k for k in kinds) + "."
    if keyword == "enum":
        return f"{name} must be one of: {', '.join(map(str, schema['enum']))}."
    if keyword in ("minimum", "maximum"):
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and high is not None:
            return f"{name} must be between {_num(low)} and {_num(high)}."
        bound = "at least" if keyword == "minimum" else "at most"
        return f"{name} must be {bound} {_num(schema[keyword])}."
    if keyword == "minLength":
        return f"{name} must be at least {schema['minLength']} characters long."
    if keyword == "maxLength":
        return f"{name} must be at most {schema['maxLength']} characters long."
    if keyword == "pattern":
        return _PATTERN_MESSAGES.get(name, f"{name} has an invalid format.")
    if keyword == "minItems":
        return f"{name} needs at least {schema['minItems']} items."
    if keyword == "maxItems":
        return f"{name} takes at most {schema['maxItems']} items."
    if keyword == "uniqueItems":
        return f"Each item of {name} may appear only once."
    return f"{name} is invalid."


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
