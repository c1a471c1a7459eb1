"""The commercial shapes of the register (snake_case): list items, the joined profile, the
authority catalogue, the service's metadata and the freshness of each dataset."""

from __future__ import annotations

import datetime as dt
from typing import Any

from msgspec import UNSET, Struct, UnsetType

from schooldata.application.about import Freshness, ServiceMeta
from schooldata.application.commercial import AuthorityCount, Profile
from schooldata.domain.links import EstablishmentLink
from schooldata.entrypoints.wire.common import (
    Count,
    Distance,
    HistoricGrade,
    Instant,
    Location,
    OfstedRating,
    SvcScore,
    Uri,
    school_url,
    timestamp,
)
from schooldata.entrypoints.wire.envelope import Source
from schooldata.entrypoints.wire.meta import source
from schooldata.entrypoints.wire.records import PROFILE, Link, Resources

RESOURCES = ("inspections", "results", "admissions", "finance")


class SchoolListItem(Struct, kw_only=True):
    """A school in a commercial list: the essentials for choosing which profile to fetch.
    `distance_miles` only from an origin; `score_suppressed_reason` only when suppressed."""

    urn: int
    name: str
    phase: str | None
    type: str | None
    local_authority: str | None
    local_authority_code: str | None
    town: str | None
    postcode: str | None
    location: Location | None
    distance_miles: Distance | UnsetType = UNSET
    gender: str | None
    statutory_low_age: int | None
    statutory_high_age: int | None
    pupils: int | None
    ofsted_rating: OfstedRating | None
    ofsted_historic_grade: HistoricGrade | None
    svc_score: SvcScore | None
    score_suppressed: bool
    score_suppressed_reason: str | UnsetType = UNSET
    url: Uri


def profile(answer: Profile, *, base_url: str) -> Any:
    """The stable joined profile (a `records.SchoolProfile`)."""
    url = school_url(base_url, answer.school.urn)
    links = [link_of(link) for link in answer.links]
    resources = Resources(**{name: f"{url}/{name}" for name in RESOURCES})
    return PROFILE.of(answer.school, links=links, resources=resources, url=url)


def link_of(link: EstablishmentLink) -> Link:
    facts = link.linked
    return Link(
        urn=link.linked_urn.value,
        name=link.name,
        link_type=link.link_type,
        established=link.established,
        status=None if facts is None else facts.status,
        opened=None if facts is None else facts.opened,
        closed=None if facts is None else facts.closed,
    )


class Authority(Struct, kw_only=True):
    """A local authority and how many open schools it has."""

    code: str | None
    name: str
    open_schools: Count


def authority(item: AuthorityCount) -> Authority:
    return Authority(code=item.code, name=item.name, open_schools=item.schools)


class SourcePolicy(Struct, kw_only=True):
    licence: str
    never_served: list[str]
    only_open_establishments: bool
    ofsted_graded_outcomes: str


class PlanSummary(Struct, kw_only=True):
    name: str
    per_page_max: int
    compare_max: int
    rate_per_second: int
    monthly_quota: int
    features: list[str]


class ServiceDocument(Struct, kw_only=True):
    """The API's versions, plans and policies, and every source it serves."""

    service: str
    api_version: str
    description_version: str
    commercial_launch: str
    mcp_protocol_versions: list[str]
    null_policy: str
    source_policy: SourcePolicy
    plans: list[PlanSummary]
    sources: list[Source]


def meta_document(meta: ServiceMeta) -> ServiceDocument:
    return ServiceDocument(
        service="schooldata",
        api_version=meta.api_version,
        description_version=meta.description_version,
        commercial_launch=meta.commercial_launch,
        mcp_protocol_versions=list(meta.mcp_protocol_versions),
        null_policy="null means unavailable or suppressed; it never means zero",
        source_policy=SourcePolicy(
            licence="Government open data under the Open Government Licence v3.0, attributed per source",
            never_served=sorted({exclusion.value for _, exclusion in meta.never_served}),
            only_open_establishments=True,
            ofsted_graded_outcomes="historic and not comparable with report cards after 2025-11-10",
        ),
        plans=[
            PlanSummary(
                name=plan.name,
                per_page_max=plan.per_page_max,
                compare_max=plan.compare_max,
                rate_per_second=plan.rate_per_second,
                monthly_quota=plan.monthly_quota,
                features=sorted(f.value for f in plan.features),
            )
            for plan in meta.plans.all()
        ],
        sources=[source(r) for r in meta.sources],
    )


class FreshnessItem(Struct, kw_only=True):
    """One dataset: what it covers, how often it changes, when it was extracted and imported."""

    dataset: str
    title: str
    publisher: str
    period: str | None
    cadence: str
    coverage: str
    extract_date: dt.date | None
    imported_at: Instant
    rows: Count
    synthetic: bool
    # What `schooldata refresh` fetched it from, and when; null until it first did.
    source_url: Uri | None
    checked_at: Instant | None
    changed_at: Instant | None


def freshness_item(item: Freshness) -> FreshnessItem:
    record, fetched = item.dataset, item.source
    return FreshnessItem(
        dataset=record.name,
        title=record.title,
        publisher=record.publisher,
        period=record.period,
        cadence=item.cadence,
        coverage=item.coverage,
        extract_date=record.extract_date,
        imported_at=timestamp(record.imported_at),
        rows=record.row_count,
        synthetic=record.synthetic,
        source_url=None if fetched is None else fetched.source_url,
        checked_at=None if fetched is None else timestamp(fetched.checked_at),
        changed_at=None if fetched is None else timestamp(fetched.changed_at),
    )
