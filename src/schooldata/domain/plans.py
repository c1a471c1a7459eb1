"""Plans and entitlements: which capabilities and bounds an organisation's keys get."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from attrs import frozen

from schooldata.domain.errors import FeatureNotInPlan, InvalidParameter, LimitExceedsPlan


class Feature(enum.Enum):
    META = "meta"
    DATA_FRESHNESS = "data_freshness"
    SCHOOLS_LIST = "schools_list"
    SCHOOLS_SEARCH = "schools_search"
    SCHOOLS_NEARBY = "schools_nearby"
    SCHOOL_PROFILE = "school_profile"
    INSPECTIONS = "inspections"
    LOCAL_AUTHORITIES = "local_authorities"
    RESULTS = "results"
    ADMISSIONS = "admissions"
    COMPARE = "compare"
    RANKINGS = "rankings"
    FINANCE = "finance"
    CHANGES = "changes"


COMMERCIAL_PER_PAGE_DEFAULT = 20


@frozen(kw_only=True)
class Plan:
    name: str
    per_page_max: int
    compare_max: int
    rate_per_second: int
    monthly_quota: int
    features: frozenset[Feature]

    def require(self, feature: Feature) -> None:
        if feature not in self.features:
            raise FeatureNotInPlan(feature.value, self.name)

    def per_page(self, requested: int | None) -> int:
        """Default 20 (capped by the plan); above the plan's maximum -> limit_exceeds_plan."""
        if requested is None:
            return min(COMMERCIAL_PER_PAGE_DEFAULT, self.per_page_max)
        if requested < 1:
            raise InvalidParameter("per_page", "per_page must be at least 1.")
        if requested > self.per_page_max:
            raise LimitExceedsPlan("per_page", self.per_page_max, self.name)
        return requested


_DEVELOPER = frozenset(
    {
        Feature.META,
        Feature.DATA_FRESHNESS,
        Feature.SCHOOLS_LIST,
        Feature.SCHOOLS_SEARCH,
        Feature.SCHOOLS_NEARBY,
        Feature.SCHOOL_PROFILE,
        Feature.INSPECTIONS,
        Feature.LOCAL_AUTHORITIES,
    }
)
_PROFESSIONAL = _DEVELOPER | {
    Feature.RESULTS,
    Feature.ADMISSIONS,
    Feature.COMPARE,
    Feature.RANKINGS,
    Feature.CHANGES,
}
_ENTERPRISE = _PROFESSIONAL | {Feature.FINANCE}

DEFAULT_PLANS: tuple[Plan, ...] = (
    Plan(
        name="developer",
        per_page_max=25,
        compare_max=3,
        rate_per_second=5,
        monthly_quota=1_000,
        features=_DEVELOPER,
    ),
    Plan(
        name="professional",
        per_page_max=50,
        compare_max=10,
        rate_per_second=25,
        monthly_quota=100_000,
        features=_PROFESSIONAL,
    ),
    Plan(
        name="enterprise",
        per_page_max=100,
        compare_max=25,
        rate_per_second=100,
        monthly_quota=2_000_000,
        features=_ENTERPRISE,
    ),
)


class PlanCatalogue:
    """The plans by name. The default catalogue is the product's; a TOML file may replace it."""

    def __init__(self, plans: tuple[Plan, ...] = DEFAULT_PLANS) -> None:
        if not plans:
            raise ValueError("a plan catalogue needs at least one plan")
        self._plans = {p.name: p for p in plans}

    def get(self, name: str) -> Plan:
        try:
            return self._plans[name]
        except KeyError:
            raise InvalidParameter(
                "plan", f"Unknown plan {name!r}; plans: {', '.join(self.names())}."
            ) from None

    def names(self) -> list[str]:
        return list(self._plans)

    def all(self) -> list[Plan]:
        return list(self._plans.values())


def catalogue_from_mapping(data: Mapping[str, Any]) -> PlanCatalogue:
    """Build a catalogue from parsed TOML: `[plans.NAME]` tables with the Plan fields."""
    plans_table = data.get("plans")
    if not isinstance(plans_table, Mapping) or not plans_table:
        raise ValueError("the plan catalogue needs a [plans.<name>] table per plan")
    known = {f.value: f for f in Feature}
    plans = []
    for name, spec in plans_table.items():
        if not isinstance(spec, Mapping):
            raise ValueError(f"plan {name!r} must be a table")
        try:
            features = frozenset(known[f] for f in spec["features"])
            plans.append(
                Plan(
                    name=str(name),
                    per_page_max=_positive(spec, "per_page_max", name),
                    compare_max=_positive(spec, "compare_max", name),
                    rate_per_second=_positive(spec, "rate_per_second", name),
                    monthly_quota=_positive(spec, "monthly_quota", name),
                    features=features,
                )
            )
        except KeyError as missing_key:
            raise ValueError(f"plan {name!r}: unknown or missing {missing_key}") from None
    return PlanCatalogue(tuple(plans))


def _positive(spec: Mapping[str, Any], field: str, plan: str) -> int:
    value = spec[field]
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"plan {plan!r}: {field} must be a positive integer")
    return value
