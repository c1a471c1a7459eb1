"""The SDK's validation of a `tools/call` request, remembered per envelope shape.

Whether the SDK accepts an envelope depends on everything in it but the contents of
`arguments` (any JSON object is valid there) and the value of the id (an integer or a
string): so an envelope is judged by the SDK's own models once per shape, the message with
those two abstracted, and a repeated shape is not judged again. Its 2026-07-28 ladder
(`_meta`, the routing headers, the version) reads the same message and the headers: it is run
once per shape and remembered header list. The SDK's pydantic models cost more per call than
the rest of the call road's checks together (docs/performance.md).

Three verdicts: None (the SDK's transport refuses the message before any method runs: it
answers), an envelope whose params are invalid (-32602, answered by the call road as the
SDK's dispatch would), or the call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
from attrs import frozen
from mcp.shared.inbound import InboundModernRoute, classify_inbound_request
from mcp_types import CallToolRequestParams, JSONRPCRequest, jsonrpc_message_adapter
from mcp_types import methods as spec_methods

MAX_SHAPES = 256  # remembered shapes (a client sends a few: its _meta and its id's type)
MAX_SHAPE_CHARS = 2_048  # a larger envelope is judged every time, never kept
MAX_LADDERS = 1_024  # remembered (shape, header list) verdicts: lists differ in Content-Length
REFUSED = ""  # a remembered verdict of the ladder's: the request is refused


ACCEPTED = 1  # remembered verdicts of a shape's models
INVALID = 2
DECLINED = 3


@frozen
class Envelope:
    request_id: int | str
    name: str
    arguments: Mapping[str, Any]
    valid: bool = True  # False: the params fail the method's models (-32602)


class Envelopes:
    def __init__(self) -> None:
        self._verdicts: dict[tuple[str, str], int] = {}
        self._versions: dict[tuple[str, int], str] = {}

    def checked(
        self, message: Mapping[str, Any], headers: Mapping[str, str], serial: int | None
    ) -> Envelope | None:
        """The call the SDK would take from `message` sent with `headers` (each name's first
        value), or None when it would refuse it. `serial` names the remembered header list
        `headers` was read from (None: it was not remembered, so neither is the verdict)."""
        shape = shape_of(message)
        if shape is None:
            return judged(message, headers)
        version = self._version(message, headers, shape, serial)
        if version == REFUSED:
            return None
        return self._judged_at(message, version, shape, modern=True)

    def checked_at(self, message: Mapping[str, Any], version: str) -> Envelope | None:
        """The same for a handshake-era message (`message` as the SDK's own JSON reader
        decodes it) served at `version`: no ladder; the message must be a JSON-RPC request
        among the transport's union of messages."""
        shape = shape_of(message)
        if shape is None:
            return judged_at(message, version, modern=False)
        return self._judged_at(message, version, shape, modern=False)

    def _judged_at(
        self, message: Mapping[str, Any], version: str, shape: str, *, modern: bool
    ) -> Envelope | None:
        verdict = self._verdicts.get((version, shape))
        if verdict is None:
            envelope = judged_at(message, version, modern=modern)
            if len(self._verdicts) >= MAX_SHAPES:
                self._verdicts.clear()
            self._verdicts[(version, shape)] = (
                DECLINED if envelope is None else ACCEPTED if envelope.valid else INVALID
            )
            return envelope
        if verdict == DECLINED:
            return None
        if verdict == INVALID:
            return Envelope(message["id"], "", {}, valid=False)
        params = message["params"]
        return Envelope(message["id"], params["name"], params.get("arguments") or {})

    def _version(
        self, message: Mapping[str, Any], headers: Mapping[str, str], shape: str, serial: int | None
    ) -> str:
        """The protocol version the ladder routes the request at, or REFUSED."""
        if serial is not None and (found := self._versions.get((shape, serial))) is not None:
            return found
        version = ladder(message, headers)
        if serial is not None:
            if len(self._versions) >= MAX_LADDERS:
                self._versions.clear()
            self._versions[(shape, serial)] = version
        return version


def ladder(message: Mapping[str, Any], headers: Mapping[str, str]) -> str:
    """The SDK's ladder (`classify_inbound_request`): the version it routes at, or REFUSED."""
    verdict = classify_inbound_request(message, headers=headers)
    if not isinstance(verdict, InboundModernRoute):
        return REFUSED
    return verdict.protocol_version


def judged(message: Mapping[str, Any], headers: Mapping[str, str]) -> Envelope | None:
    """Every check of the SDK's, run now: its ladder, then its models (`judged_at`)."""
    version = ladder(message, headers)
    return None if version == REFUSED else judged_at(message, version)


def judged_at(message: Mapping[str, Any], version: str, *, modern: bool = True) -> Envelope | None:
    """The SDK's own models: the JSON-RPC envelope (the transport's: refused there, None),
    then as its dispatch reads a tools/call: the method's params for `version`, and the params
    as a tools/call handler receives them (failing either, an envelope that is not valid)."""
    try:
        if modern:
            envelope = JSONRPCRequest.model_validate(message)
        else:
            read = jsonrpc_message_adapter.validate_python(message, by_name=False)
            if not isinstance(read, JSONRPCRequest):
                return None  # (a notification, say: the transport acknowledges it)
            envelope = read
    except ValueError:  # (pydantic's ValidationError is one)
        return None
    try:
        spec_methods.validate_client_request("tools/call", version, envelope.params)
        params = CallToolRequestParams.model_validate(envelope.params or {}, by_name=False)
    except KeyError:  # (no such method at that version: the SDK's -32601)
        return None
    except ValueError:  # (pydantic's ValidationError: the versions asked about are all known)
        return Envelope(envelope.id, "", {}, valid=False)
    return Envelope(envelope.id, params.name, params.arguments or {})


def shape_of(message: Mapping[str, Any]) -> str | None:
    """`message` with its id's value and its arguments' contents abstracted (None: it has no
    shape worth keeping: an id or arguments of another kind, or too large)."""
    request_id = message.get("id")
    if type(request_id) is int:
        kind: object = 0
    elif type(request_id) is str:
        kind = ""
    else:
        return None
    params = message.get("params")
    if type(params) is not dict:
        return None
    if "arguments" in params:
        arguments = params["arguments"]
        if type(arguments) is dict:
            params = {**params, "arguments": {}}
        elif arguments is not None:
            return None
    abstracted = {**message, "id": kind, "params": params}
    try:
        shape = _as_json(abstracted)
        if shape.find("null") >= 0:  # JSON writes NaN and infinities as null too: repr tells
            shape = repr(abstracted)
    except (RecursionError, ValueError):  # too deep, a lone surrogate, an int too long
        return None
    return shape if len(shape) <= MAX_SHAPE_CHARS else None


def _as_json(value: Any) -> str:
    """`value` (what a JSON decoder gives: str keys, lists, no tuples) as JSON text: one string
    for one such value, in a quarter of repr's time; it never equals a repr (`["`, `('`)."""
    return msgspec.json.encode(value).decode()
