"""Every tool's summary of every answer of the contract calls is the text it was before the
summaries read the answer's Struct instead of its plain JSON (`baseline/mcp_summaries.json`,
captured from the summaries that read plain JSON, on the rich dataset). Issue 54 added the
two `include_predecessors` cases, whose summaries name each predecessor; no other changed."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from tests.contract.answers_calls import BASE_URL, REQUEST_ID, application, calls, outcome

from schooldata.application.pipeline import Refused
from schooldata.entrypoints import answers
from schooldata.entrypoints.mcp_server.invoke import invoke
from schooldata.entrypoints.mcp_server.state import McpRequest
from schooldata.entrypoints.mcp_server.tools import COMMERCIAL_TOOLS, PUBLIC_TOOLS

BASELINE = json.loads((Path(__file__).parent / "baseline" / "mcp_summaries.json").read_text())


def _summaries() -> dict[str, str]:
    app = application()
    found: dict[str, str] = {}
    for label, call in calls():
        result = outcome(app, call)
        if isinstance(result, Refused):
            continue
        for tier, tools in (("public", PUBLIC_TOOLS), ("commercial", COMMERCIAL_TOOLS)):
            for tool in tools:
                names = {op.name for op in (tool.entry.public, tool.entry.keyed) if op}
                if result.operation.name in names:
                    shape = answers.shape(result, base_url=BASE_URL, request_id=REQUEST_ID)
                    found[f"{label} {tier}:{tool.name}"] = tool.summary(shape)
    return found


@pytest.fixture(scope="module")
def summaries() -> dict[str, str]:
    return _summaries()


def test_every_tool_summarises_the_same_answers_as_when_the_baseline_was_captured(
    summaries: dict[str, str],
) -> None:
    assert list(summaries) == list(BASELINE)


@pytest.mark.parametrize("case", list(BASELINE))
def test_a_summary_reads_as_it_did(summaries: dict[str, str], case: str) -> None:
    assert summaries[case] == BASELINE[case]


def test_a_search_summarised_from_its_result_reads_as_its_struct_summary() -> None:
    """The public search's answer is sent from fragments and summarised from its schools'
    Structs (`result_summary`): the text is the one its whole `SearchResponse` gives."""
    app = application()
    checked = []
    for label, call in calls():
        result = outcome(app, call)
        if isinstance(result, Refused):
            continue
        for tool in (*PUBLIC_TOOLS, *COMMERCIAL_TOOLS):
            names = {op.name for op in (tool.entry.public, tool.entry.keyed) if op}
            if tool.result_summary is None or result.operation.name not in names:
                continue
            assert answers.public_json(result, base_url=BASE_URL) is not None, label
            shape = answers.shape(result, base_url=BASE_URL, request_id=REQUEST_ID)
            assert tool.result_summary(result.result, BASE_URL) == tool.summary(shape), label
            checked.append(label)
    assert len(checked) >= 5, checked


def test_a_search_answer_from_fragments_is_the_json_and_values_of_its_struct() -> None:
    app = application()
    tool = next(t for t in PUBLIC_TOOLS if t.name == "search_schools")
    for label, call in calls():
        operation, arguments, who = call
        if operation != "searchSchools" or who != "anonymous":
            continue
        request = McpRequest(caller=None, request_id=REQUEST_ID, base_url=BASE_URL)
        answer = invoke(app.pipeline, tool, request, arguments)
        if answer.is_error:
            continue
        result = outcome(app, call)
        assert not isinstance(result, Refused)
        shape = answers.shape(result, base_url=BASE_URL, request_id=REQUEST_ID)
        assert answer.encoded is not None, label
        assert answer.json() == msgspec.json.encode(shape), label
        assert answer.payload == msgspec.to_builtins(shape), label
