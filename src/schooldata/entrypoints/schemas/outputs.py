"""The output schemas: every answer's body, and the two error bodies, from their Structs.

One set of components serves both faces: the OpenAPI document refers to them under
`#/components/schemas/`, and each MCP tool's output schema is the same schema inlined.
"""

from __future__ import annotations

from typing import Any

from schooldata.entrypoints.answers import OUTPUTS
from schooldata.entrypoints.schemas.style import Schema, components, inline
from schooldata.entrypoints.wire.envelope import CommercialError
from schooldata.entrypoints.wire.public import Error

NULL_MEANS = "null means unavailable or suppressed, never zero"


def _bodies() -> list[Any]:
    """Each operation's body type once, in registry order, then the errors."""
    kinds: list[Any] = []
    for output in OUTPUTS.values():
        if output.body not in kinds:
            kinds.append(output.body)
    return [*kinds, Error, CommercialError]


_KINDS = _bodies()
_ROOTS, COMPONENTS = components(_KINDS)
_BY_KIND = dict(zip(map(id, _KINDS), _ROOTS, strict=True))

ERROR: Schema = _BY_KIND[id(Error)]
COMMERCIAL_ERROR: Schema = _BY_KIND[id(CommercialError)]


def body(operation: str) -> Schema:
    """The schema of an operation's answer (a reference to its component)."""
    return dict(_BY_KIND[id(OUTPUTS[operation].body)])


def inlined(schema: Schema) -> Schema:
    """`schema` with its references replaced by the components they name (MCP)."""
    return inline(schema, COMPONENTS, descriptions=False)


def tool_output(operation: str, *, keyed: bool) -> Schema:
    """An MCP tool's output schema: its answer, or (a tool error) its tier's error body.

    A tool error carries the error object in `structuredContent` too, and some clients
    validate that against the output schema even when `isError` is true, so both are admitted.
    """
    error = COMMERCIAL_ERROR if keyed else ERROR
    return {
        "type": "object",
        "description": f"The result ({NULL_MEANS}); a tool error carries the error object instead.",
        "anyOf": [inlined(body(operation)), inlined(error)],
    }
