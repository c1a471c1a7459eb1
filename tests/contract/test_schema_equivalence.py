"""The generated schemas serve the contract the hand-written ones served.

The OpenAPI document and every MCP tool's schemas are compared with the snapshots taken
before generation (`baseline/`): the same paths, methods, operation ids, parameters (in,
required, type, enum, bounds, default), request bodies, statuses, headers, security,
`x-feature`, tags, and the same `required` lists and properties of every body, except the
differences `allowed_schema_changes.ALLOWED` names and explains. Then real answers of every
operation (anonymous and keyed, answered and refused, over HTTP and MCP, from the app on the
rich dataset) are validated against both the snapshots and the generated schemas.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from litestar.testing import TestClient
from tests.contract import schema_diff
from tests.contract.allowed_schema_changes import ALLOWED, ANY, Allowed
from tests.contract.answers_calls import ANONYMOUS, calls
from tests.contract.answers_dataset import build_rich_store
from tests.e2e.test_mcp_support import McpHttp, served

from schooldata.application.operations.param import Place
from schooldata.application.operations.registry import REGISTRY
from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap_memory
from schooldata.domain.plans import DEFAULT_PLANS, PlanCatalogue
from schooldata.entrypoints.mcp_server.tools import COMMERCIAL_TOOLS, PUBLIC_TOOLS, ToolSpec
from schooldata.entrypoints.rest.openapi import build_document

BASELINE = Path(__file__).parent / "baseline"
OPENAPI = json.loads((BASELINE / "openapi.json").read_text("utf-8"))
MCP_TOOLS = json.loads((BASELINE / "mcp_tools.json").read_text("utf-8"))
GENERATED = build_document()
NOWHERE = schema_diff.Side({})


# ---------------------------------------------------------------------------- structure


def mcp_differences() -> Iterator[schema_diff.Difference]:
    tiers: tuple[tuple[str, tuple[ToolSpec, ...]], ...] = (
        ("public", PUBLIC_TOOLS),
        ("commercial", COMMERCIAL_TOOLS),
    )
    for tier, tools in tiers:
        before = MCP_TOOLS[tier]
        if set(before) != {t.name for t in tools}:
            yield tier, "tools", sorted(before), sorted(t.name for t in tools)
        for tool in tools:
            old = before[tool.name]
            for fact in ("title", "description"):
                if old[fact] != getattr(tool, fact):
                    yield tool.name, fact, old[fact], getattr(tool, fact)
            plans = [(f"{tool.name} input", old["input"], None)]
            if tier == "commercial":
                plans = [
                    (f"{tool.name} input[{p.name}]", old["input"][p.name], p) for p in DEFAULT_PLANS
                ]
            for where, schema, plan in plans:
                yield from schema_diff.schemas(
                    where, schema, tool.input_schema(plan), NOWHERE, NOWHERE
                )
            yield from schema_diff.schemas(
                f"{tool.name} output", old["output"], tool.output_schema, NOWHERE, NOWHERE
            )


def every_difference() -> list[schema_diff.Difference]:
    return [*schema_diff.documents(OPENAPI, GENERATED), *mcp_differences()]


def matches(where: str, pattern: str) -> bool:
    """`*` stands for any text; everything else (brackets included) for itself."""
    return re.fullmatch(".*".join(map(re.escape, pattern.split("*"))), where) is not None


def allows(entry: Allowed, difference: schema_diff.Difference) -> bool:
    where, aspect, before, after = difference
    return (
        matches(where, entry.where)
        and aspect == entry.aspect
        and (entry.before is ANY or entry.before == before)
        and (entry.after is ANY or entry.after == after)
    )


def test_every_difference_from_the_hand_written_schemas_is_an_allowed_drift_fix() -> None:
    unexplained = [d for d in every_difference() if not any(allows(a, d) for a in ALLOWED)]
    assert not unexplained, "\n".join(map(repr, unexplained))


def test_every_allowed_difference_still_occurs() -> None:
    differences = every_difference()
    stale = [a for a in ALLOWED if not any(allows(a, d) for d in differences)]
    assert not stale, "\n".join(f"{a.where} {a.aspect}" for a in stale)


def test_the_public_shapes_require_what_the_contract_tables_require() -> None:
    schemas = GENERATED["components"]["schemas"]
    assert schemas["SchoolSearchResult"]["required"] == ["urn", "name", "url"]
    assert schemas["SchoolSearchResult"]["additionalProperties"] is False
    assert set(schemas["SearchResponse"]["required"]) == {
        *("query", "postcode", "phase", "radiusMiles", "total", "limit", "results"),
    }
    assert schemas["SearchResponse"]["additionalProperties"] is False
    assert schemas["SchoolRecord"]["required"] == ["urn", "name"]
    assert schemas["SchoolRecord"]["additionalProperties"] is True
    assert schemas["Error"]["required"] == ["error"]
    assert schemas["Error"]["additionalProperties"] is True


def test_the_document_keeps_its_components_names_headers_security_and_tags() -> None:
    components = GENERATED["components"]
    assert set(OPENAPI["components"]["schemas"]) <= set(components["schemas"])
    assert components["headers"] == OPENAPI["components"]["headers"]
    assert components["securitySchemes"] == OPENAPI["components"]["securitySchemes"]
    assert GENERATED["tags"] == OPENAPI["tags"]
    assert GENERATED["info"] == OPENAPI["info"]
    assert GENERATED["openapi"] == OPENAPI["openapi"] == "3.1.0"


def test_no_mcp_schema_has_a_reference_or_a_top_level_combinator_in_its_input() -> None:
    for tool in (*PUBLIC_TOOLS, *COMMERCIAL_TOOLS):
        for plan in DEFAULT_PLANS if tool.feature else (None,):
            schema = tool.input_schema(plan)
            assert schema["type"] == "object"
            assert not {"anyOf", "oneOf", "allOf"} & set(schema)
            assert "$ref" not in json.dumps(schema)
        assert "$ref" not in json.dumps(tool.output_schema)


# ---------------------------------------------------------------------------- real answers


def _application() -> Application:
    """The rich dataset, on plans with the usual entitlements and no practical rate limit."""
    plans = PlanCatalogue(
        tuple(attrs.evolve(p, rate_per_second=10**6, monthly_quota=10**9) for p in DEFAULT_PLANS)
    )
    return bootstrap_memory(store=build_rich_store(), plans=plans)


@pytest.fixture(scope="module")
def app() -> Application:
    return _application()


@pytest.fixture(scope="module")
def http(app: Application, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:  # type: ignore[type-arg]
    yield from served(app, tmp_path_factory.mktemp("served"))


# No snapshot describes these: issue 23's lookup, issue 54's changes.
ADDED_OPERATIONS = {"/api/v1/schools/lookup", "/api/v1/changes"}


def as_before(body: Any) -> Any:
    """The answer without what issue 23 added to existing shapes (the page links), for the
    snapshots, whose pagination is closed."""
    meta = body.get("meta") if isinstance(body, dict) else None
    if not isinstance(meta, dict) or "pagination" not in meta:
        return body
    paging = {k: v for k, v in meta["pagination"].items() if k not in ("next", "prev")}
    return {**body, "meta": {**meta, "pagination": paging}}


def validate(document: dict[str, Any], schema: dict[str, Any], body: Any) -> list[str]:
    """Validation errors of `body` against `schema`, its references resolved in `document`."""
    rooted = {**schema, "components": document.get("components", {})}
    return [e.message for e in Draft202012Validator(rooted).iter_errors(body)]


@pytest.fixture(scope="module")
def keys(app: Application) -> dict[str, str]:
    return {
        plan.name: app.keys.create_key(
            organisation=f"acme-{plan.name}", name="t", plan=plan.name
        ).key
        for plan in DEFAULT_PLANS
    }


def http_request(
    http: TestClient,  # type: ignore[type-arg]
    name: str,
    arguments: dict[str, object],
    headers: dict[str, str],
) -> tuple[str, str, Any]:
    """Send the call over HTTP: (path template, method, response)."""
    operation = REGISTRY[name]
    path, query, body = operation.path, {}, {}
    for key, value in arguments.items():
        param = operation.by_name.get(key)
        if param is not None and param.place is Place.PATH:
            path = path.replace("{" + key + "}", str(value))
        elif param is not None and param.place is Place.BODY:
            body[key] = value
        else:
            query[key] = str(value)
    if operation.method == "POST":
        response = http.post(path, params=query, json=body, headers=headers)
    else:
        response = http.get(path, params=query, headers=headers)
    return operation.path, operation.method.lower(), response


def _credentials(who: str, keys: dict[str, str]) -> dict[str, str]:
    return {} if who == ANONYMOUS else {"Authorization": f"Bearer {keys[who]}"}


def http_cases() -> Iterator[tuple[str, str, dict[str, object], str | dict[str, str]]]:
    """Every rich-dataset case, and the refusals only HTTP can provoke."""
    for label, (name, arguments, who) in calls():
        yield label, name, arguments, who
    bad_key = {"Authorization": "Bearer svc_live_" + "x" * 40}
    yield "bad-key-public", "getSchool", {"urn": "100001"}, bad_key
    yield "bad-key-keyed", "listSchools", {}, bad_key
    yield "bad-key-legacy", "getSchoolLegacy", {"urn": "100001"}, bad_key
    yield "ignored-parameter", "searchSchools", {"query": "mary", "colour": "red"}, ANONYMOUS
    huge = [str(100000 + i) for i in range(10_000)]
    yield "too-large", "compareSchools", {"urns": huge}, "enterprise"


@pytest.mark.parametrize(
    ("label", "name", "arguments", "who"), list(http_cases()), ids=[c[0] for c in http_cases()]
)
def test_every_rest_answer_matches_both_the_snapshot_and_the_generated_document(
    http: TestClient,  # type: ignore[type-arg]
    keys: dict[str, str],
    label: str,
    name: str,
    arguments: dict[str, object],
    who: str | dict[str, str],
) -> None:
    headers = who if isinstance(who, dict) else _credentials(who, keys)
    path, method, response = http_request(http, name, arguments, headers)
    status = str(response.status_code)
    documents = [("generated", GENERATED, response.json())]
    if path not in ADDED_OPERATIONS:
        documents.append(("snapshot", OPENAPI, as_before(response.json())))
    for which, document, answer in documents:
        responses = document["paths"][path][method]["responses"]
        assert status in responses, f"{which}: {label} answered an undocumented {status}"
        schema = responses[status]["content"]["application/json"]["schema"]
        errors = validate(document, schema, answer)
        assert not errors, f"{which}: {label} ({status}): {errors[:3]}"


def mcp_cases() -> Iterator[tuple[str, str, dict[str, object], str]]:
    """The rich-dataset cases that some MCP tool asks: (label, tool, arguments, who)."""
    tools = {
        (t.operation.name, t.feature is None): t.name for t in (*PUBLIC_TOOLS, *COMMERCIAL_TOOLS)
    }
    for label, (name, arguments, who) in calls():
        entry = REGISTRY.entry_of(name)
        anonymous = who == ANONYMOUS
        operation = entry.public if anonymous else (entry.keyed or entry.public)
        tool = None if operation is None else tools.get((operation.name, anonymous))
        if tool is not None:
            yield label, tool, arguments, who


@pytest.mark.parametrize(
    ("label", "tool", "arguments", "who"), list(mcp_cases()), ids=[c[0] for c in mcp_cases()]
)
def test_every_mcp_answer_matches_both_the_snapshot_and_the_generated_output_schema(
    http: TestClient,  # type: ignore[type-arg]
    keys: dict[str, str],
    label: str,
    tool: str,
    arguments: dict[str, object],
    who: str,
) -> None:
    caller = McpHttp(http, _credentials(who, keys))
    result = caller.call(tool, arguments)
    tier = "public" if who == ANONYMOUS else "commercial"
    generated = caller.tools()[tool]["outputSchema"]
    content = result["structuredContent"]
    for which, schema, answer in (
        ("snapshot", MCP_TOOLS[tier][tool]["output"], as_before(content)),
        ("generated", generated, content),
    ):
        errors = validate({}, schema, answer)
        assert not errors, f"{which}: {label}: {errors[:3]}"


def test_the_cases_reach_every_operation_and_every_tool_answered_and_refused() -> None:
    asked = {name for _, (name, _, _) in calls()}
    assert {op.name for op in REGISTRY.operations} - asked <= {"getSchoolProfile"}
    tools = {(tool, who == ANONYMOUS) for _, tool, _, who in mcp_cases()}
    assert {(t.name, True) for t in PUBLIC_TOOLS} <= tools
    assert {(t.name, False) for t in COMMERCIAL_TOOLS} <= tools
