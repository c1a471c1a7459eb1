"""Structural differences between two JSON Schemas (or two OpenAPI documents), as facts a test
can allow one by one.

A difference is `(where, aspect, before, after)`: `where` names the place (an operation and
status, or a tool, then a JSON path into the body such as `data[].school`), `aspect` what
differs there (`required`, `properties`, `type`, a bound, `enum`...). References are followed
on both sides, so a shape moved into a component compares equal to the same shape inline.
Descriptions, titles and key order are not compared.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

Difference = tuple[str, str, Any, Any]
NULL = {"type": "null"}
COMPARED = (
    "enum",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "pattern",
    "format",
    "default",
)


class Side:
    """One document: its schemas resolved against its own components."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document

    def resolve(self, schema: Any) -> Any:
        """The schema a reference names; a nullable one (`oneOf` it and null) as the same
        schema with "null" among its types, as an inline nullable object is written."""
        while isinstance(schema, dict) and "$ref" in schema:
            target: Any = self.document
            for part in schema["$ref"].removeprefix("#/").split("/"):
                target = target[part]
            schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        for combinator in ("oneOf", "anyOf"):
            choices = schema.get(combinator) if isinstance(schema, dict) else None
            if choices and len(choices) == 2 and NULL in choices:
                other = self.resolve(next(c for c in choices if c != NULL))
                rest = {k: v for k, v in schema.items() if k != combinator}
                return {**other, **rest, "type": sorted(_types(other) | {"null"})}
        return schema


def schemas(where: str, before: Any, after: Any, old: Side, new: Side) -> Iterator[Difference]:
    before, after = old.resolve(before), new.resolve(after)
    if not isinstance(before, dict) or not isinstance(after, dict):
        if before != after:
            yield where, "schema", before, after
        return
    for combinator in ("oneOf", "anyOf", "allOf"):
        left, right = before.get(combinator), after.get(combinator)
        if left is None and right is None:
            continue
        if left is None or right is None or len(left) != len(right):
            yield where, combinator, _count(left), _count(right)
            continue
        for i, (a, b) in enumerate(zip(left, right, strict=True)):
            yield from schemas(f"{where}|{combinator}[{i}]", a, b, old, new)
    if _types(before) != _types(after):
        yield where, "type", sorted(_types(before)), sorted(_types(after))
    for aspect in COMPARED:
        if before.get(aspect) != after.get(aspect):
            yield where, aspect, before.get(aspect), after.get(aspect)
    yield from _objects(where, before, after, old, new)
    if "items" in before or "items" in after:
        yield from schemas(f"{where}[]", before.get("items"), after.get("items"), old, new)


def _objects(
    where: str, before: dict[str, Any], after: dict[str, Any], old: Side, new: Side
) -> Iterator[Difference]:
    left = before.get("properties", {})
    right = after.get("properties", {})
    if set(before.get("required", [])) != set(after.get("required", [])):
        yield (
            where,
            "required",
            sorted(before.get("required", [])),
            sorted(after.get("required", [])),
        )
    if set(left) != set(right):
        yield where, "properties", sorted(set(left) - set(right)), sorted(set(right) - set(left))
    closed = (before.get("additionalProperties"), after.get("additionalProperties"))
    if _closed(closed[0]) != _closed(closed[1]):
        yield where, "additionalProperties", closed[0], closed[1]
    elif isinstance(closed[0], dict) or isinstance(closed[1], dict):
        yield from schemas(f"{where}{{}}", closed[0], closed[1], old, new)
    for name in sorted(set(left) & set(right)):
        yield from schemas(f"{where}.{name}", left[name], right[name], old, new)


def _closed(value: Any) -> Any:
    """`additionalProperties` as a rule: absent and `true` say the same."""
    return True if value is None else value


def _types(schema: dict[str, Any]) -> set[str]:
    kind = schema.get("type")
    if kind is None:
        return set()
    return set(kind) if isinstance(kind, list) else {kind}


def _count(value: Any) -> Any:
    return None if value is None else len(value)


# ---------------------------------------------------------------------------- documents


PARAMETER_FACTS = ("in", "required")


def documents(before: dict[str, Any], after: dict[str, Any]) -> Iterator[Difference]:
    """Every difference between two OpenAPI documents' operations."""
    old, new = Side(before), Side(after)
    left, right = _operations(before), _operations(after)
    for key in sorted(set(left) ^ set(right)):
        yield key, "operation", key in left, key in right
    for key in sorted(set(left) & set(right)):
        yield from _operation(key, left[key], right[key], old, new)


def _operations(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        f"{method.upper()} {path}": operation
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
    }


def _operation(
    key: str, before: dict[str, Any], after: dict[str, Any], old: Side, new: Side
) -> Iterator[Difference]:
    for fact in ("operationId", "tags", "security", "x-feature", "deprecated"):
        if before.get(fact) != after.get(fact):
            yield key, fact, before.get(fact), after.get(fact)
    left = {p["name"]: p for p in before.get("parameters", [])}
    right = {p["name"]: p for p in after.get("parameters", [])}
    if list(left) != list(right):
        yield key, "parameters", list(left), list(right)
    for name in sorted(set(left) & set(right)):
        for fact in PARAMETER_FACTS:
            if left[name].get(fact) != right[name].get(fact):
                yield f"{key} ?{name}", fact, left[name].get(fact), right[name].get(fact)
        yield from schemas(f"{key} ?{name}", left[name]["schema"], right[name]["schema"], old, new)
    yield from _body(key, before.get("requestBody"), after.get("requestBody"), old, new)
    responses = before["responses"], after["responses"]
    if set(responses[0]) != set(responses[1]):
        yield key, "statuses", sorted(responses[0]), sorted(responses[1])
    for status in sorted(set(responses[0]) & set(responses[1])):
        a, b = responses[0][status], responses[1][status]
        if set(a.get("headers", {})) != set(b.get("headers", {})):
            yield (
                f"{key} {status}",
                "headers",
                sorted(a.get("headers", {})),
                sorted(b.get("headers", {})),
            )
        if set(a.get("content", {})) != set(b.get("content", {})):
            yield (
                f"{key} {status}",
                "content",
                sorted(a.get("content", {})),
                sorted(b.get("content", {})),
            )
        for media in sorted(set(a.get("content", {})) & set(b.get("content", {}))):
            yield from schemas(
                f"{key} {status}",
                a["content"][media]["schema"],
                b["content"][media]["schema"],
                old,
                new,
            )


def _body(
    key: str, before: dict[str, Any] | None, after: dict[str, Any] | None, old: Side, new: Side
) -> Iterator[Difference]:
    if before is None or after is None:
        if before is not after:
            yield key, "requestBody", before is not None, after is not None
        return
    if before.get("required") != after.get("required"):
        yield key, "requestBody.required", before.get("required"), after.get("required")
    schema = "content", "application/json", "schema"
    yield from schemas(f"{key} body", _dig(before, schema), _dig(after, schema), old, new)


def _dig(value: Any, keys: tuple[str, ...]) -> Any:
    for k in keys:
        value = value[k]
    return value
