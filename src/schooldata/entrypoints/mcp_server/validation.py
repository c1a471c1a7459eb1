"""Tool arguments against the tool's input schema -> the domain's own parameter errors.

This is the first half of the "arguments validated" step of MCP metering (the second is the
use case's own `prepare`, which holds the rules a schema cannot say, such as "a postcode or a
point, not both"). Both run before a use is consumed, so a call refused here costs nothing.
The codes are the ones REST gives for the same mistake (`invalid_parameter`, `invalid_urn`,
`unknown_parameter`, `limit_exceeds_plan`).

The schema is checked against the arguments as the core reads them, never more strictly, so a
tool accepts what its REST twin accepts: text with its surrounding spaces stripped, an enum
value in any case (`"Primary"`, `"Mixed"`: the values the answers themselves show), and an
integral number (`2.0`) where an integer is expected. The use case still receives the
arguments exactly as sent. `pattern` is applied as JSON Schema means it (ECMA-262: `$` is the
end of the text), not as Python's `re.search` would (whose `$` also matches before a final
newline, letting `"100001\\n"` through).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from typing import Any

from jsonschema import Draft202012Validator, validators  # type: ignore[import-untyped]
from jsonschema.exceptions import ValidationError, best_match  # type: ignore[import-untyped]

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
    "type": "urns must be an array of six-digit URNs.",
}
_PATTERN_MESSAGES = {
    "postcode": (
        "postcode must be a full UK postcode (e.g. 'SW1A 1AA') or an outward code (e.g. 'SW1A')."
    ),
}


def check_names(schema: Mapping[str, Any], arguments: Any) -> None:
    """What every face checks first: the arguments are an object, every name is one the tool
    takes (`unknown_parameter`), and every required name is there (then each value, in the
    use case's own order: the same order REST reports)."""
    if not isinstance(arguments, Mapping):
        raise InvalidParameter("arguments", "Tool arguments must be a JSON object.")
    known = schema.get("properties", {})
    unknown = [name for name in arguments if name not in known]
    if unknown:
        raise UnknownParameter(unknown)
    for name in schema.get("required", ()):
        if name not in arguments:
            raise InvalidParameter(name, f"{name} is required.")


def validate_arguments(
    schema: Mapping[str, Any], arguments: Mapping[str, Any], plan: Plan | None = None
) -> None:
    """Raise the domain error for the plan's limits (when there is a plan), then for the most
    relevant schema violation, if any."""
    view = canonical(schema, arguments)
    if plan is not None:
        check_plan_limits(schema, view, plan)
    error = best_match(_Validator(schema).iter_errors(view))
    if error is not None:
        raise _domain_error(error, schema, arguments)


def canonical(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments as the core reads them (see the module docstring)."""
    properties = schema.get("properties", {})
    return {name: _read(properties.get(name), value) for name, value in arguments.items()}


def check_plan_limits(schema: Mapping[str, Any], arguments: Mapping[str, Any], plan: Plan) -> None:
    """Plan bounds first, so going over them reads as the plan's limit, not a schema error.
    `arguments` is the canonical view (`60.0` is 60 here)."""
    accepted = schema.get("properties", {})
    requested = arguments.get("per_page")
    if "per_page" in accepted and isinstance(requested, int) and not isinstance(requested, bool):
        plan.per_page(requested)  # raises limit_exceeds_plan above the plan's maximum
    urns = arguments.get("urns")
    if "urns" in accepted and isinstance(urns, list) and len(urns) > plan.compare_max:
        raise LimitExceedsPlan("urns", plan.compare_max, plan.name)


def _read(schema: Any, value: Any) -> Any:
    if not isinstance(schema, Mapping):
        return value
    if isinstance(value, str):
        text = value.strip()
        for option in schema.get("enum", ()):
            if isinstance(option, str) and option.lower() == text.lower():
                return option
        # A patterned value (a URN, a postcode) is read without its surrounding spaces, as
        # the core reads it; free text keeps them, since its length bounds count the text as
        # sent (a public query of " a" is two characters, on every face).
        return text if "pattern" in schema else value
    if isinstance(value, float) and value.is_integer() and _takes_integers(schema):
        return int(value)
    items = schema.get("items")
    if isinstance(value, list) and isinstance(items, Mapping):
        return [_read(items, item) for item in value]
    return value


def _takes_integers(schema: Mapping[str, Any]) -> bool:
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return "integer" in kinds and "number" not in kinds


@functools.lru_cache(maxsize=64)
def _python_pattern(pattern: str) -> re.Pattern[str]:
    """An ECMA-262 pattern for Python's `re`: each `$` outside a character class becomes `\\Z`
    (the end of the text, which is what `$` means without the multiline flag)."""
    out: list[str] = []
    escaped = in_class = False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "$":
            out.append(r"\Z")
            continue
        out.append(char)
    return re.compile("".join(out))


def _pattern(
    validator: Any, pattern: str, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and _python_pattern(pattern).search(instance) is None:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


_Validator = validators.extend(Draft202012Validator, {"pattern": _pattern})


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
    sent = arguments.get(name)
    if name == "urn":
        return InvalidUrn(sent)
    if name == "urns" and len(path) > 1 and isinstance(sent, list):
        return InvalidUrn(sent[int(path[1])], parameter="urns")
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
