"""The MCP tools: two public, ten commercial. Each is one row: its name and words for a
model, and the registry entry it runs (the same operations as its REST twins, through the
same pipeline, so the same entitlement, rules and metering).

Public tools answer with the public boundary (the JSON of anonymous REST); commercial tools
answer with the commercial envelope `{"data", "meta"}` of keyed REST. A tool's input schema is
its operation's parameters (with the caller's plan's bounds) and its output schema the Struct
its answer is encoded from, both generated (`entrypoints.schemas`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attrs import field, frozen

from schooldata.application.access import Caller
from schooldata.application.operations.declaration import AnyOperation, Entry
from schooldata.application.operations.registry import REGISTRY
from schooldata.application.service import Application
from schooldata.domain.plans import Feature, Plan
from schooldata.entrypoints.mcp_server import summaries
from schooldata.entrypoints.schemas.outputs import tool_output
from schooldata.entrypoints.schemas.parameters import tool_input
from schooldata.entrypoints.schemas.style import Schema


@frozen(kw_only=True)
class ToolSpec:
    name: str
    title: str
    description: str
    entry: Entry  # the operations it runs: public (anonymous) and keyed
    summary: Callable[[Any], str]  # of the answer's declared Struct (`summaries`)
    # Of the operation's result and base URL, the same text, for an answer whose JSON is made
    # from fragments (`answers.public_json`) rather than encoded from its Struct.
    result_summary: Callable[[Any, str], str] | None = None
    output_schema: Schema = field(init=False)

    def __attrs_post_init__(self) -> None:
        keyed = self.entry.keyed is not None
        object.__setattr__(self, "output_schema", tool_output(self.operation.name, keyed=keyed))

    @property
    def operation(self) -> AnyOperation:
        """The operation whose parameters are the tool's arguments."""
        operation = self.entry.keyed or self.entry.public
        assert operation is not None  # an entry always holds one
        return operation

    @property
    def feature(self) -> Feature | None:
        """The plan feature of its keyed operation (None: a public tool)."""
        keyed = self.entry.keyed
        return None if keyed is None else keyed.feature

    def input_schema(self, plan: Plan | None) -> Schema:
        """The arguments, bounded by the caller's plan (None: an anonymous caller)."""
        return tool_input(self.operation, plan)


def _public(name: str) -> Entry:
    return Entry(REGISTRY[name], None)


def _keyed(name: str) -> Entry:
    return Entry(None, REGISTRY[name])


# ---------------------------------------------------------------------------- public


PUBLIC_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="search_schools",
        title="Search schools",
        description=(
            "Search open UK schools by name, local authority or school type, or find the schools "
            "nearest a UK postcode. Give `query`, `postcode` or both (at least one is required). "
            "With a postcode, results are nearest first and carry distanceMiles; `radius_miles` "
            "(0.1-100) bounds the distance. Optional `phase` filter; `limit` 1-25 (default 10). "
            "`total` counts every match, `results` holds at most `limit`. Public fields only; "
            "null means unavailable or suppressed, never zero. Use get_school with a result's "
            "urn for its full public record."
        ),
        entry=_public("searchSchools"),
        summary=summaries.public_search,
        result_summary=summaries.public_search_result,
    ),
    ToolSpec(
        name="get_school",
        title="Get a school",
        description=(
            "Get the current public record of one open school by its six-digit URN (for example "
            "a urn from search_schools): name, town, postcode, phase, type, Ofsted grade "
            "(single-word grades are historic after 2025-11-10) and svcScore, a 0-100 comparison "
            "signal that is null, with scoreSuppressed and a reason, when the evidence is not "
            "comparable. Null means unavailable or suppressed, never zero. A closed or unknown "
            "URN is not found."
        ),
        entry=_public("getSchool"),
        summary=summaries.public_school,
    ),
)

# ---------------------------------------------------------------------------- commercial


def _dataset(
    name: str,
    title: str,
    operation: str,
    description: str,
    summary: Callable[[Any], str],
) -> ToolSpec:
    """One dataset tool whose answer is the envelope of one document."""
    return ToolSpec(
        name=name,
        title=title,
        description=description,
        entry=_keyed(operation),
        summary=summary,
    )


_NULLS = "Null means unavailable or suppressed, never zero; each figure carries its status."

COMMERCIAL_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="search_schools",
        title="Search schools",
        description=(
            "Search open schools by name, local authority or type (`q`, required, at least 2 "
            "characters), with optional filters (phase, local_authority, type, gender, "
            "ofsted_rating, min_score), `sort` and paging (`page`, `per_page`). Returns the "
            "commercial list envelope: `data` (schools) and `meta` (pagination with true "
            "totals, sources, data_updated_at, request_id). Ties break by URN, so paging is "
            "deterministic. For schools near a place use find_schools_near_location."
        ),
        entry=_keyed("searchSchoolsCommercial"),
        summary=summaries.commercial_list,
    ),
    ToolSpec(
        name="get_school",
        title="Get a school's profile",
        description=(
            "Get the stable joined profile of one open school by six-digit URN: every "
            "commercially licensed field, its predecessor/successor links, and the addresses of "
            "its inspections, results, admissions and finance resources. " + _NULLS
        ),
        entry=_keyed("getSchoolProfile"),
        summary=summaries.profile,
    ),
    ToolSpec(
        name="find_schools_near_location",
        title="Find schools near a location",
        description=(
            "Find open schools near a UK postcode or a latitude/longitude point, nearest first, "
            "each with distance_miles. Give `postcode` or `latitude` with `longitude` (one "
            "origin, not both); `radius_miles` (0.1-100) bounds the distance. Optional `q`, "
            "filters (phase, local_authority, type, gender, ofsted_rating, min_score), `sort` "
            "and paging. Returns the commercial list envelope. An unknown postcode is an error."
        ),
        entry=_keyed("nearbySchools"),
        summary=summaries.commercial_list,
    ),
    _dataset(
        "compare_schools",
        "Compare schools",
        "compareSchools",
        "Compare 2 or more open schools (the plan sets the maximum) side by side: for each, "
        "its headline facts and the latest comparable headline measures for its phase, each "
        "with status and period. An unknown URN fails naming it. " + _NULLS,
        summaries.comparison,
    ),
    _dataset(
        "get_school_inspection_history",
        "Get a school's inspection history",
        "getSchoolInspections",
        "Structured Ofsted inspection history of one school, newest first: report-card "
        "evaluation areas and safeguarding (from 2025-11-10), and graded inspections (overall "
        "effectiveness 1-4, historic and not comparable with report cards). Independent-school "
        "inspectorate material is never included.",
        summaries.inspections,
    ),
    _dataset(
        "get_school_results",
        "Get a school's results",
        "getSchoolResults",
        "Results of one school by stage (KS2, KS4, 16-18 and 16-18 destinations): each "
        "measure's latest value with status, period and cohort, and its trend. Progress 8 for "
        "2024/25 is null with reason no_ks2_baseline; destinations are the 2022/23 institution "
        "cohort. " + _NULLS,
        summaries.topics,
    ),
    _dataset(
        "get_school_admissions",
        "Get a school's admissions",
        "getSchoolAdmissions",
        "Admissions policy and demand data of one school (as published for state-funded "
        "primary and secondary schools in England), with periods and trends. " + _NULLS,
        summaries.topics,
    ),
    _dataset(
        "get_school_finances",
        "Get a school's finances",
        "getSchoolFinance",
        "Finance and funding measures of one school (as published for maintained schools and "
        "academies in England), with periods and trends. " + _NULLS,
        summaries.topics,
    ),
    ToolSpec(
        name="get_school_data_freshness",
        title="Get data freshness",
        description=(
            "Which datasets the service holds and how fresh they are: for each, its publisher, "
            "the period it covers, update cadence, coverage, extract date and import time. "
            "A list like the others: optional page and per_page."
        ),
        entry=_keyed("getDataFreshness"),
        summary=summaries.freshness,
    ),
    ToolSpec(
        name="get_school_rankings",
        title="Get school rankings",
        description=(
            "Rank open schools of one phase (optionally one local authority) by svc_score or a "
            "rankable published measure, highest first unless order is asc. Schools whose value "
            "is suppressed, missing, stale or not comparable are left out and counted by reason "
            "in meta.ranking.excluded. Ties break by URN. Paged like the lists."
        ),
        entry=_keyed("getRankings"),
        summary=summaries.rankings,
    ),
)


class ToolCatalogue:
    """Which tools a caller sees: the public two anonymously, the commercial ten with a key."""

    def __init__(self) -> None:
        self._public = {t.name: t for t in PUBLIC_TOOLS}
        self._commercial = {t.name: t for t in COMMERCIAL_TOOLS}

    def tools_for(self, caller: Caller | None) -> tuple[ToolSpec, ...]:
        return PUBLIC_TOOLS if caller is None else COMMERCIAL_TOOLS

    def find(self, name: str, caller: Caller | None) -> ToolSpec | None:
        return (self._public if caller is None else self._commercial).get(name)

    @staticmethod
    def plans_with(feature: Feature, app: Application) -> list[str]:
        return [plan.name for plan in app.plans.all() if feature in plan.features]
