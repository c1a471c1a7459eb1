"""The commercial records of one school, comparison and rankings."""

from __future__ import annotations

from schooldata.application import lookup
from schooldata.application.commercial import Profile
from schooldata.application.lineage import HistoryRequest, InspectionHistory, SchoolTopics
from schooldata.application.operations.declaration import Operation, Port
from schooldata.application.operations.param import Kind, Param, Place, PlanBound
from schooldata.application.operations.params import (
    INCLUDE_PREDECESSORS,
    LOCAL_AUTHORITY,
    PAGING,
    PHASE,
    URN,
)
from schooldata.application.operations.reading import (
    prepare_compare,
    prepare_history,
    prepare_lookup,
    prepare_rankings,
    prepare_urn,
)
from schooldata.application.operations.uses import UseCases
from schooldata.application.school_data import RANKING_METRICS, Comparison, Ranking, RankingRequest
from schooldata.domain.plans import Feature
from schooldata.domain.urn import Urn

NULLS = "- null means unavailable or suppressed, never zero; each figure carries its status."


def _profile(uses: UseCases, urn: Urn) -> Profile:
    return uses.commercial.profile(urn)


PROFILE: Operation[Urn, Profile] = Operation(
    name="getSchoolProfile",
    summary="Stable joined profile (keyed callers of /api/v1/schools/{urn})",
    method="GET",
    path="/api/v1/schools/{urn}",
    feature=Feature.SCHOOL_PROFILE,
    params=(URN,),
    prepare=prepare_urn,
    run=_profile,
    reads=frozenset({Port.SCHOOLS, Port.LINKS, Port.DATASETS}),
    rules="- Every commercially licensed field, predecessor/successor links, resource URLs.\n"
    + NULLS,
)


def _look_up(uses: UseCases, urns: tuple[Urn, ...]) -> lookup.Lookup:
    return lookup.look_up(uses.commercial, urns)


LOOKUP: Operation[tuple[Urn, ...], lookup.Lookup] = Operation(
    name="lookupSchools",
    summary="Bulk lookup: the joined profiles of several schools in one request",
    method="POST",
    path="/api/v1/schools/lookup",
    feature=Feature.SCHOOL_PROFILE,
    params=(
        Param(
            name="urns",
            kind=Kind.URNS,
            description="1 or more distinct six-digit URNs, up to the plan's per_page maximum.",
            required=True,
            place=Place.BODY,
            min_items=lookup.LOOKUP_MINIMUM,
            plan_bound=PlanBound.LOOKUP,
        ),
    ),
    prepare=prepare_lookup,
    run=_look_up,
    reads=PROFILE.reads,
    reports_missing=True,
    rules="- 1..plan per_page maximum distinct URNs; `data` holds each open school's profile "
    "(as GET /api/v1/schools/{urn} gives it) in the order asked; `meta.not_found` lists the "
    "URNs that name no open school (unknown, closed, proposed): never a 404.\n"
    "- One request is metered once, whatever it holds.\n" + NULLS,
)


def _inspections(uses: UseCases, request: HistoryRequest) -> InspectionHistory:
    return uses.school_data.history(request)


def _results(uses: UseCases, request: HistoryRequest) -> SchoolTopics:
    return uses.school_data.results_of(request)


def _admissions(uses: UseCases, urn: Urn) -> SchoolTopics:
    return uses.school_data.admissions(urn)


def _finance(uses: UseCases, urn: Urn) -> SchoolTopics:
    return uses.school_data.finance(urn)


PREDECESSORS = (
    "- `include_predecessors=true`: `predecessors` lists the school's predecessors (GIAS "
    "conversion and amalgamation links, transitively, nearest first), each with its URN, "
    "name, status, dates, the link that led there and its own records; without it the "
    "answer is the school's own, unchanged."
)
INSPECTIONS: Operation[HistoryRequest, InspectionHistory] = Operation(
    name="getSchoolInspections",
    summary="Structured Ofsted inspection history",
    method="GET",
    path="/api/v1/schools/{urn}/inspections",
    feature=Feature.INSPECTIONS,
    params=(URN, INCLUDE_PREDECESSORS),
    prepare=prepare_history,
    run=_inspections,
    reads=frozenset({Port.SCHOOLS, Port.INSPECTIONS, Port.LINKS, Port.DATASETS}),
    rules="- Ofsted only, newest first; graded outcomes are historic and not comparable with "
    "report cards, whose areas are their own fields.\n" + PREDECESSORS,
)
RESULTS: Operation[HistoryRequest, SchoolTopics] = Operation(
    name="getSchoolResults",
    summary="Results and trends by key stage",
    method="GET",
    path="/api/v1/schools/{urn}/results",
    feature=Feature.RESULTS,
    params=(URN, INCLUDE_PREDECESSORS),
    prepare=prepare_history,
    run=_results,
    reads=frozenset({Port.SCHOOLS, Port.MEASURES, Port.LINKS, Port.DATASETS}),
    rules="- Progress 8 for 2024/25 is null with reason no_ks2_baseline; 16-18 destinations are "
    "the 2022/23 institution cohort.\n"
    "- Each year's `releases`: provisional, revised or final as the publisher's file says "
    "(null: it does not), and the publisher's release date, per dataset; a newer release of a "
    "year replaces the older.\n" + PREDECESSORS + "\n" + NULLS,
)
ADMISSIONS: Operation[Urn, SchoolTopics] = Operation(
    name="getSchoolAdmissions",
    summary="Admissions policy and demand",
    method="GET",
    path="/api/v1/schools/{urn}/admissions",
    feature=Feature.ADMISSIONS,
    params=(URN,),
    prepare=prepare_urn,
    run=_admissions,
    reads=frozenset({Port.SCHOOLS, Port.MEASURES, Port.DATASETS}),
    rules=NULLS,
)
FINANCE: Operation[Urn, SchoolTopics] = Operation(
    name="getSchoolFinance",
    summary="Finance and funding",
    method="GET",
    path="/api/v1/schools/{urn}/finance",
    feature=Feature.FINANCE,
    params=(URN,),
    prepare=prepare_urn,
    run=_finance,
    reads=frozenset({Port.SCHOOLS, Port.MEASURES, Port.DATASETS}),
    rules=NULLS,
)


def _compare(uses: UseCases, urns: tuple[Urn, ...]) -> Comparison:
    return uses.school_data.compare_schools(urns)


COMPARE: Operation[tuple[Urn, ...], Comparison] = Operation(
    name="compareSchools",
    summary="Plan-bounded side-by-side comparison",
    method="POST",
    path="/api/v1/schools/compare",
    feature=Feature.COMPARE,
    params=(
        Param(
            name="urns",
            kind=Kind.URNS,
            description="2 or more distinct six-digit URNs, up to the plan's limit.",
            required=True,
            place=Place.BODY,
            min_items=2,
            plan_bound=PlanBound.COMPARE,
        ),
    ),
    prepare=prepare_compare,
    run=_compare,
    reads=frozenset({Port.SCHOOLS, Port.MEASURES, Port.DATASETS}),
    rules="- 2..plan maximum distinct URNs, in the order asked; an unknown URN -> not found "
    "naming it.\n" + NULLS,
)


def _rank(uses: UseCases, request: RankingRequest) -> Ranking:
    return uses.school_data.rank(request)


RANKINGS: Operation[RankingRequest, Ranking] = Operation(
    name="getRankings",
    summary="Bounded derived rankings",
    method="GET",
    path="/api/v1/rankings",
    feature=Feature.RANKINGS,
    params=(
        Param(
            name="metric",
            kind=Kind.CHOICE,
            description="What to rank by: svc_score or a rankable published measure.",
            required=True,
            choices=RANKING_METRICS,
        ),
        Param(
            name="phase",
            kind=PHASE.kind,
            description="Rank schools of this phase only (required).",
            required=True,
            choices=PHASE.choices,
        ),
        LOCAL_AUTHORITY,
        Param(
            name="order",
            kind=Kind.CHOICE,
            description="desc: highest value first (default); asc: lowest first.",
            choices=("desc", "asc"),
            default="desc",
        ),
        *PAGING,
    ),
    prepare=prepare_rankings,
    run=_rank,
    reads=frozenset({Port.SCHOOLS, Port.MEASURES, Port.DATASETS}),
    paged=True,
    rules="- One phase (required), optionally one authority; suppressed, missing, stale or "
    "non-comparable values are left out and counted by reason; ties break by URN.",
)

RECORD_OPERATIONS = (PROFILE, LOOKUP, INSPECTIONS, RESULTS, ADMISSIONS, FINANCE, COMPARE, RANKINGS)
