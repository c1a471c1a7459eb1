"""Input schemas from the operations' `Param` declarations: the OpenAPI parameters and request
body, and the MCP tools' argument objects.

A parameter has two forms. Its HTTP form is text (a query or path value): a URN is a
six-digit string. Its JSON form (an MCP argument, a JSON body) is the JSON value a client
sends: a URN may be that string or the integer it spells. Neither form refuses what the other
face accepts: enums list the canonical values and say "any case" where the code accepts any
case, and JSON Schema counts an integral float (`2.0`) as an integer, as the code does.

A plan-bound limit (`per_page`, the URNs to compare) is the largest plan's in the OpenAPI
document, whose description lists every plan's; an MCP tool shows the caller's plan's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schooldata.application.operations.declaration import AnyOperation
from schooldata.application.operations.param import Kind, Param, Place, PlanBound
from schooldata.domain.plans import Plan
from schooldata.domain.versions import ID_PATTERN
from schooldata.entrypoints.schemas.style import Schema

URN_PATTERN = "^[0-9]{6}$"
URN_MIN, URN_MAX = 100_000, 999_999
URN_EXAMPLE = 'e.g. "100001" (the number 100001 is accepted too)'
# A full UK postcode or an outward code, any case, spaces anywhere (as the domain reads it): a
# hint for models filling MCP arguments; the REST description says it in words.
POSTCODE_PATTERN = (
    r"^\s*[A-Za-z]\s*([A-Za-z]\s*)?[0-9]\s*([A-Za-z0-9]\s*)?([0-9]\s*[A-Za-z]\s*[A-Za-z]\s*)?$"
)

_TYPES = {
    Kind.TEXT: "string",
    Kind.POSTCODE: "string",
    Kind.CHOICE: "string",
    Kind.INTEGER: "integer",
    Kind.NUMBER: "number",
    Kind.BOOLEAN: "boolean",
    Kind.VERSION: "string",
}


def limit_of(plan: Plan, bound: PlanBound) -> int:
    return plan.compare_max if bound is PlanBound.COMPARE else plan.per_page_max


def value_schema(param: Param, *, json: bool, limit: int | None = None) -> Schema:
    """The schema of one value of `param` (its description aside). `limit` is the plan's
    bound on a plan-bound parameter."""
    if param.kind is Kind.URN:
        return _urn(json=json)
    if param.kind is Kind.URNS:
        schema: Schema = {"type": "array", "items": _urn(json=True)}
        if param.min_items is not None:
            schema["minItems"] = param.min_items
        if limit is not None:
            schema["maxItems"] = limit
        schema["uniqueItems"] = True
        return schema
    schema = {"type": _TYPES[param.kind]}
    if param.choices:
        schema["enum"] = list(param.choices)
    bounds = (
        ("minimum", param.minimum),
        ("maximum", param.maximum if limit is None else limit),
        ("minLength", param.min_length),
        ("maxLength", param.max_length),
    )
    schema.update({key: _number(value) for key, value in bounds if value is not None})
    if param.kind is Kind.POSTCODE and json:
        schema["pattern"] = POSTCODE_PATTERN
    if param.kind is Kind.VERSION:
        schema["pattern"] = ID_PATTERN
    if param.default is not None:
        default = param.default
        schema["default"] = min(default, limit) if isinstance(default, int) and limit else default
    return schema


def _urn(*, json: bool) -> Schema:
    if not json:
        return {"type": "string", "pattern": URN_PATTERN}
    # `pattern` constrains the text form, `minimum`/`maximum` the number form.
    return {
        "type": ["string", "integer"],
        "pattern": URN_PATTERN,
        "minimum": URN_MIN,
        "maximum": URN_MAX,
    }


def _number(value: Any) -> Any:
    """A bound as JSON shows it: `1`, not `1.0`."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


# ---------------------------------------------------------------------------- OpenAPI


def http_parameters(operation: AnyOperation, plans: Sequence[Plan]) -> list[Schema]:
    """The operation's query and path parameters as OpenAPI parameter objects."""
    return [
        {
            "name": param.name,
            "in": param.place.value,
            "required": param.required,
            "description": _every_plan(param, plans),
            "schema": value_schema(param, json=False, limit=_largest(param, plans)),
        }
        for param in operation.params
        if param.place is not Place.BODY
    ]


def request_body(operation: AnyOperation, plans: Sequence[Plan]) -> Schema | None:
    """The JSON body of an operation with body parameters: an object of exactly those."""
    params = operation.body_params
    if not params:
        return None
    properties = {
        p.name: {
            **value_schema(p, json=True, limit=_largest(p, plans)),
            "description": _every_plan(p, plans),
        }
        for p in params
    }
    schema = _object(properties, [p.name for p in params if p.required])
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _largest(param: Param, plans: Sequence[Plan]) -> int | None:
    bound = param.plan_bound
    return None if bound is None else max(limit_of(plan, bound) for plan in plans)


def _every_plan(param: Param, plans: Sequence[Plan]) -> str:
    bound = param.plan_bound
    if bound is None:
        return param.description
    limits = [f"{limit_of(plan, bound)} ({plan.name})" for plan in plans]
    listed = limits[0] if len(limits) == 1 else ", ".join(limits[:-1]) + " or " + limits[-1]
    return f"{param.description.rstrip('.')}: at most {listed}."


# ---------------------------------------------------------------------------- MCP


def tool_input(operation: AnyOperation, plan: Plan | None) -> Schema:
    """An MCP tool's arguments: an object of exactly the operation's parameters (anything
    else is refused), each bounded by the caller's plan. No `$ref`, no top-level combinator:
    several clients refuse them."""
    properties = {}
    for param in operation.params:
        limit = None
        if param.plan_bound is not None:
            if plan is None:  # pragma: no cover - plan-bound tools are listed to keyed callers
                raise ValueError(f"{operation.name}: a plan-bound argument needs the plan")
            limit = limit_of(plan, param.plan_bound)
        schema = value_schema(param, json=True, limit=limit)
        schema["description"] = _for_model(param, schema, plan, limit)
        properties[param.name] = schema
    return _object(properties, [p.name for p in operation.params if p.required])


def _for_model(param: Param, schema: Schema, plan: Plan | None, limit: int | None) -> str:
    """The description a model reads: the declaration's, with the caller's plan's bound and
    the leniency a JSON value has (a URN may be a number)."""
    text = param.description.rstrip(".")
    if param.kind is Kind.URN:
        return f"{text}, {URN_EXAMPLE}."
    if plan is None or limit is None:
        return param.description
    if param.kind is Kind.URNS:
        return (
            f"{text}: {param.min_items} to {limit} on the {plan.name} plan, "
            'e.g. ["100001", "100004"]; numbers are accepted too.'
        )
    default = schema.get("default")
    shown = "" if default is None else f" (default {default})"
    return f"{text}: 1 to {limit} on the {plan.name} plan{shown}."


def _object(properties: dict[str, Schema], required: list[str]) -> Schema:
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema
