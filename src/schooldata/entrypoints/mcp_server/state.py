"""The per-request holder shared by the ASGI wrapper, the call road and the SDK's handlers.

The wrapper authenticates the HTTP request into one `McpRequest` and reads it back when the
response starts: a tools/call that consumed a use fills `reading`, so the six metering headers
describe that use. The call road is handed it; for the SDK (which lists the caller's tools) it
is bound in a context variable, which the SDK's handler tasks copy.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from attrs import define

from schooldata.application.access import Caller
from schooldata.domain.metering import MeterReading


@define(kw_only=True)
class McpRequest:
    caller: Caller | None
    request_id: str
    base_url: str
    reading: MeterReading | None = None
    retry_after: int | None = None  # seconds, when a tools/call met the rate limit or quota

    @property
    def keyed(self) -> bool:
        return self.caller is not None


_current: ContextVar[McpRequest | None] = ContextVar("schooldata_mcp_request", default=None)


@contextmanager
def bound(request: McpRequest) -> Iterator[McpRequest]:
    token = _current.set(request)
    try:
        yield request
    finally:
        _current.reset(token)


def current(*, fallback_base_url: str) -> McpRequest:
    """The bound request; outside the HTTP wrapper (an in-process SDK client) an anonymous one."""
    request = _current.get()
    if request is None:
        return McpRequest(caller=None, request_id="", base_url=fallback_base_url)
    return request
