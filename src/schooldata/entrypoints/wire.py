"""The one place that owns the JSON shape of every domain type, for every face.

Public shapes are camelCase (the public contract); commercial shapes are snake_case (the
commercial envelope's convention). Both are projected through the licensing registry, so a
field reaches a caller only if `domain.licensing` says that tier may see it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

import cattrs

from schooldata.application.about import Freshness, ServiceMeta
from schooldata.application.commercial import AuthorityCount, ListAnswer, Profile
from schooldata.application.school_data import (
    Comparison,
    InspectionHistory,
    Ranking,
    SchoolData,
    SchoolTopics,
    metric_label,
)
from schooldata.application.search_schools import PublicSearchAnswer
from schooldata.domain.catalogue import Topic, spec_of
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.geo import Location, shown_distance
from schooldata.domain.licensing import Tier, served_fields
from schooldata.domain.measure import Measure
from schooldata.domain.ofsted import (
    GRADE_NAMES,
    REPORT_CARDS_START,
    HistoricGrade,
    InspectionRecord,
    ReportCard,
    UngradedInspection,
)
from schooldata.domain.phase import GiasPhase, Phase
from schooldata.domain.plans import Plan
from schooldata.domain.results import DESTINATIONS_NOTE, MeasureSeries
from schooldata.domain.school import School
from schooldata.domain.search import SearchHit
from schooldata.domain.urn import Urn

converter = cattrs.Converter()
converter.register_unstructure_hook(Urn, lambda u: u.value)
converter.register_unstructure_hook(dt.date, lambda d: d.isoformat())
converter.register_unstructure_hook(
    dt.datetime, lambda d: d.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
)
converter.register_unstructure_hook(
    Location, lambda loc: {"latitude": loc.latitude, "longitude": loc.longitude}
)
converter.register_unstructure_hook(Phase, lambda p: p.value)
converter.register_unstructure_hook(GiasPhase, lambda p: p.value)
converter.register_unstructure_hook(
    Measure,
    lambda m: {"value": m.value, "status": m.status.value, "reason": m.reason},
)


def _historic_grade(grade: HistoricGrade | None, *, camel: bool = False) -> dict[str, Any] | None:
    """The graded judgement with its date and flags; camelCase keys inside the public record
    (whose keys are camelCase), snake_case in commercial bodies."""
    if grade is None:
        return None
    return {
        "grade": grade.grade,
        "label": grade.label,
        "inspectionDate" if camel else "inspection_date": converter.unstructure(
            grade.inspection_date
        ),
        "framework": "graded",
        "historic": True,
        "comparable": grade.comparable,
        "note": (
            "Single-word overall grades are historic after "
            f"{REPORT_CARDS_START.isoformat()} and not comparable with report-card outcomes."
        ),
    }


# Attribute -> public JSON key. Attributes not listed keep their camelCased name.
_PUBLIC_KEYS = {"type_name": "type", "la_name": "localAuthority"}
# Attribute -> commercial JSON key.
_COMMERCIAL_KEYS = {
    "type_name": "type",
    "la_name": "local_authority",
    "la_code": "local_authority_code",
    "gias_phase": "phase_of_education",
}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


# ---------------------------------------------------------------------------- public


def public_school_url(base_url: str, urn: Urn) -> str:
    return f"{base_url.rstrip('/')}/api/v1/schools/{urn}"


def public_search_result(hit: SearchHit, *, base_url: str, with_distance: bool) -> dict[str, Any]:
    s = hit.school
    result: dict[str, Any] = {
        "urn": s.urn.value,
        "name": s.name,
        "phase": converter.unstructure(s.phase),
        "type": s.type_name,
        "localAuthority": s.la_name,
        "location": converter.unstructure(s.location),
    }
    if with_distance and hit.distance_miles is not None:
        result["distanceMiles"] = shown_distance(hit.distance_miles)
    result["ofstedRating"] = s.ofsted_rating
    result["svcScore"] = s.svc_score
    result["scoreSuppressed"] = s.score_suppressed
    result["url"] = public_school_url(base_url, s.urn)
    return result


def public_search_response(answer: PublicSearchAnswer, *, base_url: str) -> dict[str, Any]:
    request = answer.request
    return {
        "query": request.query,
        "postcode": request.postcode,
        "phase": request.phase,
        "radiusMiles": request.radius_miles,
        "total": answer.page.total,
        "limit": answer.limit,
        "results": [
            public_search_result(h, base_url=base_url, with_distance=answer.with_distance)
            for h in answer.page.hits
        ],
    }


def _score_fields(school: School, *, camel: bool) -> dict[str, Any]:
    keys = (
        ("svcScore", "scoreSuppressed", "scoreSuppressedReason")
        if camel
        else (
            "svc_score",
            "score_suppressed",
            "score_suppressed_reason",
        )
    )
    out: dict[str, Any] = {keys[0]: school.svc_score, keys[1]: school.score_suppressed}
    if school.score_suppressed:
        out[keys[2]] = school.score_suppressed_reason or "no_comparable_evidence"
    return out


def public_school_record(school: School, *, base_url: str) -> dict[str, Any]:
    """The open `SchoolRecord`: the required fields first, then every other public field."""
    record: dict[str, Any] = {
        "urn": school.urn.value,
        "name": school.name,
        "postcode": school.postcode,
        "town": school.town,
        "phase": converter.unstructure(school.phase),
        "type": school.type_name,
    }
    record.update(_score_fields(school, camel=True))
    for name in served_fields(Tier.PUBLIC):
        if name in {"urn", "name", "postcode", "town", "phase", "type_name", "svc_score"}:
            continue
        if name == "ofsted":
            grade = school.ofsted
            record["ofstedRating"] = None if grade is None else grade.grade
            record["ofstedRatingHistoric"] = _historic_grade(grade, camel=True)
            continue
        record[_PUBLIC_KEYS.get(name, _camel(name))] = converter.unstructure(getattr(school, name))
    record["url"] = public_school_url(base_url, school.urn)
    return record


def public_error(message: str, code: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"error": message}
    if code is not None:
        body["code"] = code
    return body


# ---------------------------------------------------------------------------- commercial


def commercial_school(school: School) -> dict[str, Any]:
    """The stable joined profile's school part: every field licensed for commercial use."""
    out: dict[str, Any] = {}
    for name in served_fields(Tier.COMMERCIAL):
        if name == "svc_score":
            out.update(_score_fields(school, camel=False))
            continue
        if name == "ofsted":
            out["ofsted_rating"] = school.ofsted_rating
            out["ofsted_historic_grade"] = _historic_grade(school.ofsted)
            continue
        value = school.phase if name == "phase" else getattr(school, name)
        out[_COMMERCIAL_KEYS.get(name, name)] = converter.unstructure(value)
    return out


def source(record: DatasetRecord) -> dict[str, Any]:
    """One element of `meta.sources`."""
    return {
        "name": record.title,
        "publisher": record.publisher,
        "licence": record.licence,
        "url": record.url,
        "retrieved_at": converter.unstructure(record.imported_at),
        "dataset": record.name,
        "attribution": record.attribution,
        "extract_date": converter.unstructure(record.extract_date),
        "synthetic": record.synthetic,
    }


def data_updated_at(records: list[DatasetRecord]) -> str | None:
    if not records:
        return None
    return str(converter.unstructure(max(r.imported_at for r in records)))


def commercial_list_item(hit: SearchHit, *, base_url: str, with_distance: bool) -> dict[str, Any]:
    """A school in a commercial list: the essentials for choosing which profile to fetch."""
    s = hit.school
    item: dict[str, Any] = {
        "urn": s.urn.value,
        "name": s.name,
        "phase": converter.unstructure(s.phase),
        "type": s.type_name,
        "local_authority": s.la_name,
        "local_authority_code": s.la_code,
        "town": s.town,
        "postcode": s.postcode,
        "location": converter.unstructure(s.location),
    }
    if with_distance and hit.distance_miles is not None:
        item["distance_miles"] = shown_distance(hit.distance_miles)
    item.update(
        {
            "gender": s.gender,
            "statutory_low_age": s.statutory_low_age,
            "statutory_high_age": s.statutory_high_age,
            "pupils": s.pupils,
            "ofsted_rating": s.ofsted_rating,
            "ofsted_historic_grade": _historic_grade(s.ofsted),
        }
    )
    item.update(_score_fields(s, camel=False))
    item["url"] = commercial_school_url(base_url, s.urn)
    return item


def commercial_school_url(base_url: str, urn: Urn) -> str:
    return f"{base_url.rstrip('/')}/api/v1/schools/{urn}"


def commercial_profile(profile: Profile, *, base_url: str) -> dict[str, Any]:
    """The stable joined profile: the licensed school fields, its links, and where to go next."""
    data = commercial_school(profile.school)
    data["links"] = [
        {
            "urn": link.linked_urn.value,
            "name": link.linked_name,
            "link_type": link.link_type,
            "established": converter.unstructure(link.established),
        }
        for link in profile.links
    ]
    base = commercial_school_url(base_url, profile.school.urn)
    data["resources"] = {
        name: f"{base}/{name}" for name in ("inspections", "results", "admissions", "finance")
    }
    data["url"] = base
    return data


def authority(item: AuthorityCount) -> dict[str, Any]:
    return {"code": item.code, "name": item.name, "open_schools": item.schools}


def meta_document(meta: ServiceMeta) -> dict[str, Any]:
    return {
        "service": "schooldata",
        "api_version": meta.api_version,
        "description_version": meta.description_version,
        "commercial_launch": meta.commercial_launch,
        "mcp_protocol_versions": list(meta.mcp_protocol_versions),
        "null_policy": "null means unavailable or suppressed; it never means zero",
        "source_policy": {
            "licence": "Government open data under the Open Government Licence v3.0, attributed per source",
            "never_served": sorted({exclusion.value for _, exclusion in meta.never_served}),
            "only_open_establishments": True,
            "ofsted_graded_outcomes": "historic and not comparable with report cards after 2025-11-10",
        },
        "plans": [
            {
                "name": plan.name,
                "per_page_max": plan.per_page_max,
                "compare_max": plan.compare_max,
                "rate_per_second": plan.rate_per_second,
                "monthly_quota": plan.monthly_quota,
                "features": sorted(f.value for f in plan.features),
            }
            for plan in meta.plans.all()
        ],
        "sources": [source(r) for r in meta.sources],
    }


def freshness_item(item: Freshness) -> dict[str, Any]:
    record, source = item.dataset, item.source
    return {
        "dataset": record.name,
        "title": record.title,
        "publisher": record.publisher,
        "period": record.period,
        "cadence": item.cadence,
        "coverage": item.coverage,
        "extract_date": converter.unstructure(record.extract_date),
        "imported_at": converter.unstructure(record.imported_at),
        "rows": record.row_count,
        "synthetic": record.synthetic,
        # What `schooldata refresh` fetched it from, and when; null until it first did.
        "source_url": source.source_url if source else None,
        "checked_at": converter.unstructure(source.checked_at) if source else None,
        "changed_at": converter.unstructure(source.changed_at) if source else None,
    }


# ---------------------------------------------------------------------------- datasets


def measure_value(
    measure: Measure, *, period: str | None = None, cohort: int | None = None
) -> dict[str, Any]:
    """A figure with its status: `value` is null unless `status` is `reported`."""
    out: dict[str, Any] = {"value": measure.value, "status": measure.status.value}
    if measure.reason is not None:
        out["reason"] = measure.reason
    if period is not None:
        out["period"] = period
    if cohort is not None:
        out["cohort"] = cohort
    return out


def _school_heading(school: School) -> dict[str, Any]:
    return {
        "urn": school.urn.value,
        "name": school.name,
        "phase": converter.unstructure(school.phase),
        "type": school.type_name,
        "local_authority": school.la_name,
    }


def _series(series: MeasureSeries) -> dict[str, Any]:
    spec = spec_of(series.code)
    out: dict[str, Any] = {
        "code": series.code,
        "label": spec.label,
        "unit": spec.unit,
        "latest": measure_value(
            series.latest.measure, period=series.latest.period, cohort=series.latest.cohort
        ),
        "trend": [measure_value(p.measure, period=p.period, cohort=p.cohort) for p in series.trend],
    }
    if series.note:
        out["note"] = series.note
    return out


def school_topics(answer: SchoolTopics) -> dict[str, Any]:
    topics: dict[str, Any] = {}
    for topic in answer.topics:
        block: dict[str, Any] = {
            "periods": list(topic.periods),
            "latest_period": topic.periods[-1] if topic.periods else None,
            "measures": [_series(s) for s in topic.series],
        }
        if topic.topic is Topic.DESTINATIONS:
            block["cohort"] = DESTINATIONS_NOTE
        topics[topic.topic.value] = block
    out = {"school": _school_heading(answer.school), **topics}
    if any(t.topic is Topic.ADMISSIONS for t in answer.topics):
        out["admissions_policy"] = answer.school.admissions_policy
    return out


def _inspection(record: InspectionRecord) -> dict[str, Any]:
    inspection = record.inspection
    base: dict[str, Any] = {
        "inspectorate": "Ofsted",
        "framework": record.framework,
        "inspection_number": record.inspection_number,
        "inspection_date": converter.unstructure(inspection.inspection_date),
        "publication_date": converter.unstructure(inspection.publication_date),
        "inspection_type": inspection.inspection_type,
    }
    if isinstance(inspection, ReportCard):
        base["evaluation_areas"] = {
            area: (None if grade is None else grade.value)
            for area, grade in inspection.areas.items()
        }
        base["safeguarding"] = (
            None
            if inspection.safeguarding_met is None
            else ("met" if inspection.safeguarding_met else "not met")
        )
        base["comparable_with_graded"] = False
        return base
    if isinstance(inspection, UngradedInspection):
        # Ofsted's words, as published: an ungraded inspection gives no grade of its own.
        base["outcome"] = inspection.outcome
        base["historic"] = True
        base["comparable"] = False
        return base
    base["overall_effectiveness"] = inspection.overall_effectiveness
    base["overall_effectiveness_label"] = (
        None
        if inspection.overall_effectiveness is None
        else GRADE_NAMES[inspection.overall_effectiveness]
    )
    base["sub_judgements"] = dict(inspection.sub_grades)
    base["safeguarding_effective"] = inspection.safeguarding_effective
    base["historic"] = True
    base["comparable"] = False
    return base


def inspection_history_document(history: InspectionHistory) -> dict[str, Any]:
    current = next((r for r in history.inspections if r.framework == "report_card"), None)
    return {
        "school": _school_heading(history.school),
        "latest_report_card": None if current is None else _inspection(current),
        "historic_grade": _historic_grade(history.school.ofsted),
        "inspections": [_inspection(r) for r in history.inspections],
        "note": (
            "Report cards (from 2025-11-10) and graded inspections are different frameworks and "
            "are not comparable; graded outcomes are historic."
        ),
    }


def comparison_document(comparison: Comparison) -> dict[str, Any]:
    schools = []
    for school in comparison.schools:
        measures = comparison.measures[school.urn]
        schools.append(
            {
                **_school_heading(school),
                "town": school.town,
                "postcode": school.postcode,
                "gender": school.gender,
                "pupils": school.pupils,
                "capacity": school.capacity,
                "ofsted_rating": school.ofsted_rating,
                "ofsted_historic_grade": _historic_grade(school.ofsted),
                **_score_fields(school, camel=False),
                "measures": {
                    code: {"label": spec_of(code).label, **measure_value(m, period=period)}
                    for code, (period, m) in measures.items()
                },
            }
        )
    return {"schools": schools}


def ranking_items(ranking: Ranking) -> list[dict[str, Any]]:
    return [
        {
            "rank": item.rank,
            **_school_heading(item.school),
            "metric": ranking.metric,
            "value": item.value,
            "period": item.period,
        }
        for item in ranking.items
    ]


def ranking_meta(ranking: Ranking) -> dict[str, Any]:
    return {
        "metric": ranking.metric,
        "metric_label": metric_label(ranking.metric),
        "phase": ranking.phase.value,
        "period": ranking.period,
        "ranked": ranking.total,
        "excluded": ranking.excluded,
        "excluded_total": sum(ranking.excluded.values()),
        "ties": "broken by URN, ascending",
    }


class DatasetDocuments:
    """The dataset queries as the API's `data` JSON, for every face that prints or returns it
    (REST envelopes it; MCP returns it as structured content; the CLI prints it)."""

    def __init__(self, school_data: SchoolData) -> None:
        self._data = school_data

    def inspections(self, urn_raw: str) -> dict[str, Any]:
        return inspection_history_document(self._data.inspections(urn_raw))

    def results(self, urn_raw: str) -> dict[str, Any]:
        return school_topics(self._data.results(urn_raw))

    def admissions(self, urn_raw: str) -> dict[str, Any]:
        return school_topics(self._data.admissions(urn_raw))

    def finance(self, urn_raw: str) -> dict[str, Any]:
        return school_topics(self._data.finance(urn_raw))

    def compare(self, urns: object, plan: Plan) -> dict[str, Any]:
        return comparison_document(self._data.compare(urns, plan))

    def rankings(self, params: Mapping[str, object], plan: Plan) -> list[dict[str, Any]]:
        return ranking_items(self._data.rankings(params, plan))

    def ranking(self, params: Mapping[str, object], plan: Plan) -> Ranking:
        return self._data.rankings(params, plan)


def envelope(
    data: Any,
    *,
    request_id: str,
    sources: list[DatasetRecord],
    pagination: dict[str, int] | None = None,
) -> dict[str, Any]:
    """The commercial envelope, the same on REST and MCP: `data` plus request id, dataset
    generation time, pagination (lists) and source attribution."""
    meta: dict[str, Any] = {"request_id": request_id, "data_updated_at": data_updated_at(sources)}
    if pagination is not None:
        meta["pagination"] = pagination
    meta["sources"] = [source(r) for r in sources]
    return {"data": data, "meta": meta}


def pagination(page: int, per_page: int, total: int) -> dict[str, int]:
    return {
        "page": page,
        "per_page": per_page,
        "total": total,
        "total_pages": (total + per_page - 1) // per_page,
    }


def list_page(answer: ListAnswer, *, base_url: str) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """A page of schools and its pagination, as every face shows it."""
    data = [
        commercial_list_item(h, base_url=base_url, with_distance=answer.with_distance)
        for h in answer.result.hits
    ]
    return data, pagination(answer.page, answer.per_page, answer.result.total)


def ranking_page(ranking: Ranking) -> tuple[list[dict[str, Any]], dict[str, int]]:
    return ranking_items(ranking), pagination(ranking.page, ranking.per_page, ranking.total)
