"""A 2026-07-28 tools/call answered directly says exactly what the SDK would have said: the
same status, headers and JSON, for every tool, public and keyed, right or wrong arguments;
requests the SDK treats specially still reach it."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.e2e.test_mcp_support import (
    COMMERCIAL_TOOLS,
    PUBLIC_TOOLS,
    McpHttp,
    bearer,
    envelope_meta,
    served,
)
from tests.support.dataset import build_store

from schooldata.bootstrap import bootstrap_memory
from schooldata.entrypoints.mcp_server.direct import DirectCalls

# Ids, clocks, and the rate window's count (the two roads' calls may fall in different
# one-second windows).
PER_REQUEST_HEADERS = frozenset(
    {
        "x-request-id",
        "x-ratelimit-reset",
        "x-ratelimit-remaining",
        "x-quota-reset",
        "content-length",
    }
)


def seen(response: httpx.Response) -> tuple[int, dict[str, str], Any]:
    """Status, headers and body (JSON where it parses), the request id made anonymous."""
    headers = {k: v for k, v in response.headers.items() if k not in PER_REQUEST_HEADERS}
    text = response.text.replace(response.headers.get("x-request-id", "-"), "req_ID")
    try:
        return response.status_code, headers, json.loads(text)
    except ValueError:
        return response.status_code, headers, text


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_schools", {"query": "Oak"}),
    ("search_schools", {"query": "St Mary’s", "limit": 2}),
    ("search_schools", {"postcode": "SW1A 1AA", "radius_miles": 2}),
    ("search_schools", {"postcode": "nowhere"}),
    ("search_schools", {"query": "x", "limit": 0}),
    ("search_schools", {"colour": "blue"}),
    ("search_schools", {}),
    ("get_school", {"urn": "100001"}),
    ("get_school", {"urn": 100001}),
    ("get_school", {"urn": "999999"}),
    ("get_school", {"urn": "bad"}),
    ("find_schools_near_location", {"postcode": "SW1A 1AA", "radius_miles": 1}),
    ("compare_schools", {"urns": ["100001", "100002"]}),
    ("get_school_inspection_history", {"urn": "100001"}),
    ("get_school_results", {"urn": "100001"}),
    ("get_school_admissions", {"urn": "100001"}),
    ("get_school_finances", {"urn": "100001"}),
    ("get_school_data_freshness", {}),
    ("get_school_rankings", {"local_authority": "Westminster"}),
]


class Twin:
    """The same app twice: one answering tools/call directly, one always through the SDK."""

    def __init__(self, direct: TestClient, sdk: TestClient, key: str, sdk_key: str) -> None:  # type: ignore[type-arg]
        self.direct, self.sdk, self.key, self.sdk_key = direct, sdk, key, sdk_key

    def both(
        self, keyed: bool, body: dict[str, Any], headers: dict[str, str]
    ) -> tuple[httpx.Response, httpx.Response]:
        direct = McpHttp(self.direct, bearer(self.key) if keyed else None)
        sdk = McpHttp(self.sdk, bearer(self.sdk_key) if keyed else None)
        return direct.post(body, headers), sdk.post(body, headers)


_SDK_ROAD = ("x-test-road", "sdk")  # the twin that must go through the SDK says so


@pytest.fixture(scope="module")
def twin() -> Iterator[Twin]:
    first, second = bootstrap_memory(store=build_store()), bootstrap_memory(store=build_store())
    key, sdk_key = issue_key(first, "enterprise"), issue_key(second, "enterprise")
    match = DirectCalls.match

    def only_on_the_direct_twin(self: DirectCalls, scope: Any, *args: Any) -> Any:
        if (b"x-test-road", b"sdk") in scope["headers"]:
            return None
        return match(self, scope, *args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DirectCalls, "match", only_on_the_direct_twin)
        for direct in served(first, Path(tempfile.mkdtemp())):
            for sdk in served(second, Path(tempfile.mkdtemp())):
                sdk.headers[_SDK_ROAD[0]] = _SDK_ROAD[1]
                yield Twin(direct, sdk, key, sdk_key)


def _call(name: str, arguments: Any, request_id: Any = 7) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": envelope_meta()},
    }


def _routing(name: str) -> dict[str, str]:
    return {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name}


def assert_same(direct: httpx.Response, sdk: httpx.Response) -> None:
    assert seen(direct) == seen(sdk)
    remaining = [r.headers.get("x-ratelimit-remaining") for r in (direct, sdk)]
    assert (remaining[0] is None) == (remaining[1] is None)


@pytest.mark.parametrize("keyed", [False, True], ids=["anonymous", "keyed"])
@pytest.mark.parametrize(
    ("name", "arguments"), CALLS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CALLS)]
)
def test_a_direct_answer_is_the_answer_the_sdk_gives(
    twin: Twin, keyed: bool, name: str, arguments: dict[str, Any]
) -> None:
    assert_same(*twin.both(keyed, _call(name, arguments), _routing(name)))


@pytest.mark.parametrize("request_id", [0, -3, 2**40, "", "abc", "ü"])
def test_every_kind_of_request_id_comes_back_as_the_sdk_returns_it(
    twin: Twin, request_id: Any
) -> None:
    body = _call("get_school", {"urn": "100001"}, request_id)
    assert_same(*twin.both(False, body, _routing("get_school")))


ODD_REQUESTS: list[tuple[str, dict[str, Any], dict[str, str]]] = [
    ("unknown tool", _call("no_such_tool", {}), _routing("no_such_tool")),
    (
        "commercial tool, no key",
        _call("get_school_results", {"urn": "100001"}),
        _routing("get_school_results"),
    ),
    ("name header differs", _call("get_school", {"urn": "100001"}), _routing("search_schools")),
    ("arguments not an object", _call("get_school", [1, 2]), _routing("get_school")),
    ("arguments null", _call("search_schools", None), _routing("search_schools")),
    (
        "no _meta",
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_school"}},
        _routing("get_school"),
    ),
    (
        "clientInfo not an object",
        {
            **_call("get_school", {}),
            "params": {
                "name": "get_school",
                "_meta": {**envelope_meta(), "io.modelcontextprotocol/clientInfo": 5},
            },
        },
        _routing("get_school"),
    ),
    ("id is a float", _call("get_school", {"urn": "100001"}, 1.5), _routing("get_school")),
    ("id is null", _call("get_school", {"urn": "100001"}, None), _routing("get_school")),
    ("name not text", _call(5, {}), {**_routing("get_school"), "Mcp-Name": "5"}),  # type: ignore[arg-type]
    (
        "JSON-only Accept",
        _call("get_school", {"urn": "100001"}),
        {**_routing("get_school"), "Accept": "application/json"},
    ),
    (
        "SSE-only Accept",
        _call("get_school", {"urn": "100001"}),
        {**_routing("get_school"), "Accept": "text/event-stream"},
    ),
    (
        "progress token",
        {
            **_call("get_school", {}),
            "params": {
                "name": "get_school",
                "arguments": {},
                "_meta": {**envelope_meta(), "progressToken": "p"},
            },
        },
        _routing("get_school"),
    ),
]


@pytest.mark.parametrize(
    ("what", "body", "headers"), ODD_REQUESTS, ids=[w for w, _, _ in ODD_REQUESTS]
)
def test_requests_the_sdk_treats_specially_get_its_answer(
    twin: Twin, what: str, body: dict[str, Any], headers: dict[str, str]
) -> None:
    assert_same(*twin.both(False, body, headers))


_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10**7) | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)
_argument_names = st.sampled_from(
    [
        "query",
        "postcode",
        "radius_miles",
        "limit",
        "phase",
        "urn",
        "urns",
        "page",
        "per_page",
        "sort",
        "x",
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    name=st.sampled_from(sorted(COMMERCIAL_TOOLS)),
    arguments=st.dictionaries(_argument_names, _values, max_size=4),
    keyed=st.booleans(),
)
def test_any_arguments_get_the_same_answer_on_both_roads(
    twin: Twin, name: str, arguments: dict[str, Any], keyed: bool
) -> None:
    if not keyed and name not in PUBLIC_TOOLS:
        keyed = True
    assert_same(*twin.both(keyed, _call(name, arguments), _routing(name)))


def test_a_well_formed_call_skips_the_sdk(twin: Twin, monkeypatch: pytest.MonkeyPatch) -> None:
    answered: list[object] = []
    answer = DirectCalls.answer

    async def spy(self: DirectCalls, call: Any, request: Any) -> bytes:
        answered.append(call.tool.name)
        return await answer(self, call, request)

    monkeypatch.setattr(DirectCalls, "answer", spy)
    direct, _ = twin.both(False, _call("get_school", {"urn": "100001"}), _routing("get_school"))
    assert direct.status_code == 200
    assert answered == ["get_school"]
