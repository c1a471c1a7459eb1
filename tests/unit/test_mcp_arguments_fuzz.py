"""Any JSON a client sends as a tool's arguments gets an answer or a parameter error, never an
internal error: the use cases' own `prepare` now sees the values before the input schema does
(so every face reports mistakes in one order), and must hold up to any JSON value."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.support.dataset import build_store

from schooldata.bootstrap import bootstrap_memory
from schooldata.entrypoints.mcp_server.invoke import invoke
from schooldata.entrypoints.mcp_server.state import McpRequest
from schooldata.entrypoints.mcp_server.tools import COMMERCIAL_TOOLS, PUBLIC_TOOLS

APP = bootstrap_memory(store=build_store())
KEY = APP.keys.create_key(organisation="fuzz", name="t", plan="enterprise").key
CALLER = APP.authenticate.execute(authorization=f"Bearer {KEY}", x_api_key=None)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["100001", "100002", " 100001 ", "SW1A 1AA", "primary", "st mary", ""]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


def _arguments(tool: Any, keyed: bool) -> st.SearchStrategy[dict[str, Any]]:
    names = list(tool.input_schema(CALLER.plan if keyed else None).get("properties", {}))
    return (
        st.dictionaries(st.sampled_from(names), json_values, max_size=len(names))
        if names
        else st.just({})
    )


tools = st.sampled_from([(t, False) for t in PUBLIC_TOOLS] + [(t, True) for t in COMMERCIAL_TOOLS])


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_no_arguments_make_a_tool_fail_internally(data: st.DataObject) -> None:
    tool, keyed = data.draw(tools)
    arguments = data.draw(_arguments(tool, keyed))
    request = McpRequest(
        caller=CALLER if keyed else None, request_id="req_test", base_url="http://t"
    )
    result = invoke(APP.pipeline, tool, request, arguments)
    if result.is_error:
        body = result.payload
        code = body["error"]["code"] if keyed else body.get("code")
        assert code != "internal_error", (tool.name, arguments, body)
