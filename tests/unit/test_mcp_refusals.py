"""Every domain error reaches an MCP caller with its own code: a refused tools/call is a
result with `isError` in the caller's tier shape (public or commercial, the bodies
`entrypoints/refusals.py` builds for every face), and credentials refused before any call are
answered with the status that module's one table gives the error's kind."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from schooldata.application.pipeline import Refused
from schooldata.domain.errors import DataUnavailable, DomainError
from schooldata.domain.keys import AuthenticationFailed
from schooldata.domain.metering import LimitReached
from schooldata.entrypoints.http.request import REQUEST_KEY, read
from schooldata.entrypoints.http.route_table import RouteTable
from schooldata.entrypoints.mcp_server.auth import send_auth_failure
from schooldata.entrypoints.mcp_server.invoke import invoke
from schooldata.entrypoints.mcp_server.state import McpRequest
from schooldata.entrypoints.mcp_server.tools import PUBLIC_TOOLS
from schooldata.entrypoints.refusals import status_of


def kinds(base: type[DomainError] = DomainError) -> Iterator[type[DomainError]]:
    """Every kind of domain error (each module defining some is imported above)."""
    for kind in base.__subclasses__():
        yield kind
        yield from kinds(kind)


def an_error(kind: type[DomainError]) -> DomainError:
    """An error of `kind`, whatever its own constructor asks for (a limit says when to retry)."""
    error = kind.__new__(kind)
    DomainError.__init__(error, f"Refused: {kind.__name__}.", details={"asked": "x"})
    if isinstance(error, LimitReached):
        error.retry_after = 3
    return error


class RefusingPipeline:
    """A pipeline that refuses every call with the given error."""

    def __init__(self, error: DomainError, *, keyed: bool) -> None:
        self.refused = Refused(error, keyed=keyed)

    def call(self, *_args: Any, **_kwargs: Any) -> Any:
        raise self.refused


ERRORS = sorted(set(kinds()), key=str)


@pytest.mark.parametrize("kind", ERRORS, ids=[kind.__name__ for kind in ERRORS])
@pytest.mark.parametrize("keyed", [False, True], ids=["public", "commercial"])
def test_a_refused_tool_call_carries_the_errors_code_in_the_callers_tier_shape(
    kind: type[DomainError], keyed: bool
) -> None:
    error = an_error(kind)
    request = McpRequest(caller=None, request_id="req_1", base_url="http://x")
    if keyed:
        request.caller = object()  # type: ignore[assignment]
    pipeline = RefusingPipeline(error, keyed=keyed)
    answer = invoke(pipeline, PUBLIC_TOOLS[1], request, {})  # type: ignore[arg-type]
    message, details = error.message, {"asked": "x"}
    if isinstance(error, LimitReached):  # (told when to retry, in words and in the details)
        message, details = f"{message} Retry after 3 s.", {**details, "retry_after": 3}
    assert answer.is_error
    assert answer.summary == f"{error.code}: {message}"
    if keyed:
        assert answer.payload == {
            "error": {
                "code": error.code,
                "message": message,
                "request_id": "req_1",
                "details": details,
            }
        }
    else:
        assert answer.payload == {"error": message, "code": error.code}


@pytest.mark.parametrize("error", [AuthenticationFailed("No such key."), DataUnavailable()])
def test_credentials_refused_before_any_call_take_their_status_from_the_one_table(
    error: DomainError,
) -> None:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope: dict[str, Any] = {"type": "http", "method": "POST", "path": "/mcp", "headers": []}
    scope[REQUEST_KEY] = read(scope, "req_2", RouteTable())
    asyncio.run(send_auth_failure(scope, send, error))
    assert sent[0]["status"] == status_of(error)
    assert json.loads(sent[1]["body"]) == {
        "error": {
            "code": error.code,
            "message": error.message,
            "request_id": "req_2",
            "details": {},
        }
    }
