"""msgspec's JSON Schemas in the style this service publishes.

- No `title`s and no `default`s (an answer's field has no default; a field with one in its
  Struct is only left out of `required`); descriptions on one line.
- A nullable value is `{"type": [T, "null"]}` rather than an `anyOf` with null; a nullable
  reference is `oneOf` the reference and null.
- A shape marked `open_object` says `additionalProperties: true`.
- `inline` replaces every reference by the schema it names, for the MCP tools (several MCP
  clients refuse `$ref`); a nullable object becomes `{"type": ["object", "null"], ...}`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from typing import Any

import msgspec
from msgspec import inspect

Schema = dict[str, Any]
NULL: Schema = {"type": "null"}
REF_PREFIX = "#/components/schemas/"

# Keywords whose value is one schema, a list of schemas, or a map of names to schemas.
_ONE = ("items", "additionalProperties", "not")
_MANY = ("anyOf", "oneOf", "allOf", "prefixItems")
_NAMED = ("properties", "$defs")


def components(types: Iterable[Any]) -> tuple[list[Schema], dict[str, Schema]]:
    """The schema of each type (a reference for a Struct) and every component they use."""
    kinds = list(types)
    roots, found = msgspec.json.schema_components(kinds, ref_template=REF_PREFIX + "{name}")
    open_names = {cls.__name__ for cls in structs(kinds) if getattr(cls, "open_object", False)}
    named = {}
    for name, schema in found.items():
        tidy = normalise(schema)
        if name in open_names:
            tidy["additionalProperties"] = True
        named[name] = tidy
    return [normalise(root) for root in roots], named


def normalise(schema: Schema) -> Schema:
    out: Schema = {}
    for key, value in schema.items():
        if key in ("title", "default"):
            continue
        if key == "description":
            out[key] = " ".join(value.split())
        elif key in _ONE and isinstance(value, dict):
            out[key] = normalise(value)
        elif key in _MANY:
            out[key] = [normalise(item) for item in value]
        elif key in _NAMED:
            out[key] = {name: normalise(item) for name, item in value.items()}
        else:
            out[key] = value
    return _nullable(out)


def _nullable(schema: Schema) -> Schema:
    choices = schema.get("anyOf")
    if not choices or NULL not in choices or len(choices) != 2:
        return schema
    other = next(choice for choice in choices if choice != NULL)
    rest = {k: v for k, v in schema.items() if k != "anyOf"}
    if "$ref" in other:
        return {"oneOf": [other, NULL], **rest}
    merged = {**other, **rest}
    kind = other["type"]
    merged["type"] = [*kind, "null"] if isinstance(kind, list) else [kind, "null"]
    if "enum" in merged:
        merged["enum"] = [*merged["enum"], None]
    return merged


def inline(schema: Schema, named: dict[str, Schema], *, descriptions: bool = True) -> Schema:
    """`schema` with every reference replaced by the component it names."""
    if "$ref" in schema:
        target = named[schema["$ref"].removeprefix(REF_PREFIX)]
        merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        return inline(merged, named, descriptions=descriptions)
    choices = schema.get("oneOf")
    if choices and len(choices) == 2 and NULL in choices:
        other = inline(next(c for c in choices if c != NULL), named, descriptions=descriptions)
        rest = {k: v for k, v in schema.items() if k != "oneOf"}
        return {**other, **rest, "type": [other["type"], "null"]}
    out: Schema = {}
    for key, value in schema.items():
        if key == "description" and not descriptions:
            continue
        if key in _ONE and isinstance(value, dict):
            out[key] = inline(value, named, descriptions=descriptions)
        elif key in _MANY:
            out[key] = [inline(item, named, descriptions=descriptions) for item in value]
        elif key in _NAMED:
            out[key] = {
                n: inline(item, named, descriptions=descriptions) for n, item in value.items()
            }
        else:
            out[key] = copy.deepcopy(value)
    return out


def structs(types: Iterable[Any]) -> Iterator[type[msgspec.Struct]]:
    """Every Struct class the types use, each once."""
    seen: set[type[msgspec.Struct]] = set()
    pending = list(inspect.multi_type_info(list(types)))
    while pending:
        info = pending.pop()
        if isinstance(info, inspect.StructType):
            if info.cls in seen:
                continue
            seen.add(info.cls)
            yield info.cls
            pending.extend(field.type for field in info.fields)
        elif isinstance(info, inspect.Metadata):
            pending.append(info.type)
        elif isinstance(info, inspect.UnionType):
            pending.extend(info.types)
        elif isinstance(info, inspect.ListType | inspect.SetType | inspect.FrozenSetType):
            pending.append(info.item_type)
        elif isinstance(info, inspect.DictType):
            pending.append(info.value_type)
