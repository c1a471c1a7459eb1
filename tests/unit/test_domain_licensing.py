"""Field licensing: what each tier may ever see."""

from __future__ import annotations

import attrs
import pytest

from schooldata.domain.licensing import (
    SCHOOL_FIELDS,
    Exclusion,
    Licence,
    Tier,
    licence_of,
    may_serve,
    served_fields,
)
from schooldata.domain.school import School

NEVER_SERVED = {
    "head_name": Exclusion.PERSONAL_DATA,
    "inspectorate_name": Exclusion.INDEPENDENT_INSPECTORATE,
    "fees": Exclusion.FEES,
    "catchment": Exclusion.CATCHMENT,
    "ai_summary": Exclusion.AI_SUMMARY,
    "website_content": Exclusion.WEBSITE_CONTENT,
}


@pytest.mark.parametrize("tier", list(Tier))
@pytest.mark.parametrize("name", sorted(NEVER_SERVED))
def test_excluded_fields_are_never_served_to_any_tier(name: str, tier: Tier) -> None:
    assert not may_serve(name, tier)
    assert name not in served_fields(tier)


@pytest.mark.parametrize(("name", "exclusion"), sorted(NEVER_SERVED.items()))
def test_each_excluded_field_names_its_excluded_category(name: str, exclusion: Exclusion) -> None:
    licence = licence_of(name)
    assert licence.licence is Licence.NEVER
    assert licence.exclusion is exclusion


def test_every_public_field_is_also_served_commercially() -> None:
    assert set(served_fields(Tier.PUBLIC)) <= set(served_fields(Tier.COMMERCIAL))


def test_commercial_only_fields_are_not_served_publicly() -> None:
    commercial_only = [f.name for f in SCHOOL_FIELDS if f.licence is Licence.COMMERCIAL]
    assert commercial_only, "the registry declares commercial-only fields"
    for name in commercial_only:
        assert may_serve(name, Tier.COMMERCIAL)
        assert not may_serve(name, Tier.PUBLIC)


@pytest.mark.parametrize("tier", list(Tier))
@pytest.mark.parametrize("name", ["undeclared_field", "fees_2026", "", "head_email"])
def test_undeclared_fields_are_never_served(name: str, tier: Tier) -> None:
    assert not may_serve(name, tier)
    licence = licence_of(name)
    assert licence.licence is Licence.NEVER
    assert licence.exclusion is Exclusion.UNCONFIRMED_RIGHTS


def test_a_never_field_always_says_why() -> None:
    for field in SCHOOL_FIELDS:
        assert (field.licence is Licence.NEVER) == (field.exclusion is not None), field.name


def test_each_field_is_declared_once() -> None:
    names = [f.name for f in SCHOOL_FIELDS]
    assert len(names) == len(set(names))


def test_the_public_tier_sees_the_register_identity_fields() -> None:
    public = set(served_fields(Tier.PUBLIC))
    assert {"urn", "name", "phase", "type_name", "la_name", "postcode", "svc_score"} <= public


def test_every_served_field_exists_on_the_school_record() -> None:
    school_fields = {f.name for f in attrs.fields(School)} | {"phase"}
    assert set(served_fields(Tier.COMMERCIAL)) <= school_fields


def test_personal_data_on_the_school_record_is_declared_never() -> None:
    school_fields = {f.name for f in attrs.fields(School)}
    assert "head_name" in school_fields
    assert licence_of("head_name").licence is Licence.NEVER
