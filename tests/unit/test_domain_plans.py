"""Plans: the default catalogue of DECISIONS.md, page bounds and entitlements."""

from __future__ import annotations

from typing import Any

import pytest

from schooldata.domain.errors import FeatureNotInPlan, InvalidParameter, LimitExceedsPlan
from schooldata.domain.plans import (
    COMMERCIAL_PER_PAGE_DEFAULT,
    DEFAULT_PLANS,
    Feature,
    Plan,
    PlanCatalogue,
    catalogue_from_mapping,
)

DEVELOPER_FEATURES = {
    "meta",
    "data_freshness",
    "schools_list",
    "schools_search",
    "schools_nearby",
    "school_profile",
    "inspections",
    "local_authorities",
}
PROFESSIONAL_FEATURES = DEVELOPER_FEATURES | {
    "results",
    "admissions",
    "compare",
    "rankings",
    "changes",
}
ENTERPRISE_FEATURES = PROFESSIONAL_FEATURES | {"finance"}

CATALOGUE = PlanCatalogue()


@pytest.mark.parametrize(
    ("name", "per_page_max", "compare_max", "rate", "quota", "features"),
    [
        ("developer", 25, 3, 5, 1_000, DEVELOPER_FEATURES),
        ("professional", 50, 10, 25, 100_000, PROFESSIONAL_FEATURES),
        ("enterprise", 100, 25, 100, 2_000_000, ENTERPRISE_FEATURES),
    ],
)
def test_the_default_plans_match_the_decisions(
    name: str, per_page_max: int, compare_max: int, rate: int, quota: int, features: set[str]
) -> None:
    plan = CATALOGUE.get(name)
    assert plan.name == name
    assert plan.per_page_max == per_page_max
    assert plan.compare_max == compare_max
    assert plan.rate_per_second == rate
    assert plan.monthly_quota == quota
    assert {f.value for f in plan.features} == features


def test_the_default_catalogue_has_exactly_three_plans_in_order() -> None:
    assert CATALOGUE.names() == ["developer", "professional", "enterprise"]
    assert [p.name for p in CATALOGUE.all()] == CATALOGUE.names()


def test_every_feature_is_in_the_enterprise_plan() -> None:
    assert CATALOGUE.get("enterprise").features == frozenset(Feature)


def test_an_unknown_plan_is_an_invalid_plan_parameter() -> None:
    with pytest.raises(InvalidParameter) as caught:
        CATALOGUE.get("platinum")
    assert caught.value.parameter == "plan"


def test_an_empty_catalogue_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one plan"):
        PlanCatalogue(())


@pytest.mark.parametrize("name", ["developer", "professional", "enterprise"])
def test_per_page_defaults_to_20(name: str) -> None:
    assert COMMERCIAL_PER_PAGE_DEFAULT == 20
    assert CATALOGUE.get(name).per_page(None) == 20


def test_the_per_page_default_is_capped_by_a_smaller_plan_maximum() -> None:
    small = Plan(
        name="tiny",
        per_page_max=10,
        compare_max=2,
        rate_per_second=1,
        monthly_quota=1,
        features=frozenset(),
    )
    assert small.per_page(None) == 10


@pytest.mark.parametrize(
    ("name", "maximum"), [("developer", 25), ("professional", 50), ("enterprise", 100)]
)
def test_per_page_up_to_the_plan_maximum_is_accepted(name: str, maximum: int) -> None:
    plan = CATALOGUE.get(name)
    assert plan.per_page(1) == 1
    assert plan.per_page(maximum) == maximum


@pytest.mark.parametrize(
    ("name", "maximum"), [("developer", 25), ("professional", 50), ("enterprise", 100)]
)
def test_per_page_above_the_plan_maximum_exceeds_the_plan(name: str, maximum: int) -> None:
    with pytest.raises(LimitExceedsPlan) as caught:
        CATALOGUE.get(name).per_page(maximum + 1)
    assert caught.value.code == "limit_exceeds_plan"
    assert caught.value.details == {"parameter": "per_page", "max": maximum}


@pytest.mark.parametrize("requested", [0, -1])
def test_per_page_below_one_is_an_invalid_parameter(requested: int) -> None:
    with pytest.raises(InvalidParameter) as caught:
        CATALOGUE.get("developer").per_page(requested)
    assert caught.value.parameter == "per_page"


@pytest.mark.parametrize("feature", ["results", "admissions", "compare", "rankings", "finance"])
def test_the_developer_plan_refuses_premium_features_naming_them(feature: str) -> None:
    with pytest.raises(FeatureNotInPlan) as caught:
        CATALOGUE.get("developer").require(Feature(feature))
    assert caught.value.code == "feature_not_in_plan"
    assert caught.value.details["feature"] == feature


def test_the_professional_plan_refuses_finance() -> None:
    with pytest.raises(FeatureNotInPlan) as caught:
        CATALOGUE.get("professional").require(Feature.FINANCE)
    assert caught.value.details["feature"] == "finance"


@pytest.mark.parametrize("feature", sorted(DEVELOPER_FEATURES))
def test_a_plan_admits_its_own_features(feature: str) -> None:
    for plan in CATALOGUE.all():
        plan.require(Feature(feature))


# ---------------------------------------------------------------------------- TOML catalogue


def plan_table(**overrides: Any) -> dict[str, Any]:
    table: dict[str, Any] = {
        "per_page_max": 30,
        "compare_max": 4,
        "rate_per_second": 7,
        "monthly_quota": 500,
        "features": ["meta", "schools_list"],
    }
    table.update(overrides)
    return table


def test_a_catalogue_is_built_from_a_plans_table() -> None:
    catalogue = catalogue_from_mapping({"plans": {"starter": plan_table()}})
    plan = catalogue.get("starter")
    assert (plan.per_page_max, plan.compare_max, plan.rate_per_second, plan.monthly_quota) == (
        30,
        4,
        7,
        500,
    )
    assert plan.features == {Feature.META, Feature.SCHOOLS_LIST}
    assert catalogue.names() == ["starter"]


def test_the_default_plans_round_trip_through_a_mapping() -> None:
    data = {
        "plans": {
            p.name: {
                "per_page_max": p.per_page_max,
                "compare_max": p.compare_max,
                "rate_per_second": p.rate_per_second,
                "monthly_quota": p.monthly_quota,
                "features": sorted(f.value for f in p.features),
            }
            for p in DEFAULT_PLANS
        }
    }
    assert catalogue_from_mapping(data).all() == list(DEFAULT_PLANS)


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"plans": {}},
        {"plans": []},
        {"plans": "developer"},
        {"plans": {"x": "not a table"}},
        {"plans": {"x": plan_table(features=["meta", "teleport"])}},
        {"plans": {"x": {k: v for k, v in plan_table().items() if k != "monthly_quota"}}},
        {"plans": {"x": {k: v for k, v in plan_table().items() if k != "features"}}},
        {"plans": {"x": plan_table(per_page_max=0)}},
        {"plans": {"x": plan_table(rate_per_second=-5)}},
        {"plans": {"x": plan_table(compare_max=True)}},
        {"plans": {"x": plan_table(monthly_quota="1000")}},
        {"plans": {"x": plan_table(per_page_max=2.5)}},
    ],
)
def test_an_invalid_catalogue_is_a_value_error(data: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"plan"):
        catalogue_from_mapping(data)


def test_a_catalogue_error_names_the_plan_and_field() -> None:
    with pytest.raises(ValueError, match=r"'starter'.*per_page_max"):
        catalogue_from_mapping({"plans": {"starter": plan_table(per_page_max=0)}})
