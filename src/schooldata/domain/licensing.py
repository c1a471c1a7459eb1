"""Field licensing, declared once per field: who may ever see it.

- PUBLIC: anonymous and commercial callers.
- COMMERCIAL: keyed callers only (premium fields with confirmed commercial rights).
- NEVER: no caller, ever. Each NEVER field names the excluded category it belongs to.

Every face projects records through `served_fields`, so a field added to `School` is invisible
until it is declared here, and a mistaken declaration is caught by the licensing tests.
"""

from __future__ import annotations

import enum

from attrs import frozen


class Tier(enum.Enum):
    PUBLIC = "public"
    COMMERCIAL = "commercial"


class Licence(enum.Enum):
    PUBLIC = "public"
    COMMERCIAL = "commercial"
    NEVER = "never"


class Exclusion(enum.Enum):
    """The categories the contract says are never served commercially (or at all)."""

    PERSONAL_DATA = "personal_data"
    FEES = "fees"
    CATCHMENT = "catchment_geometry"
    INDEPENDENT_INSPECTORATE = "independent_school_inspectorate"
    AI_SUMMARY = "ai_summary"
    WEBSITE_CONTENT = "school_website_content"
    UNCONFIRMED_RIGHTS = "no_confirmed_commercial_rights"


@frozen
class FieldLicence:
    name: str
    licence: Licence
    exclusion: Exclusion | None = None


def _public(name: str) -> FieldLicence:
    return FieldLicence(name, Licence.PUBLIC)


def _commercial(name: str) -> FieldLicence:
    return FieldLicence(name, Licence.COMMERCIAL)


def _never(name: str, why: Exclusion) -> FieldLicence:
    return FieldLicence(name, Licence.NEVER, why)


SCHOOL_FIELDS: tuple[FieldLicence, ...] = (
    # The register's identity, address and classification: open data, shown to everyone.
    _public("urn"),
    _public("name"),
    _public("status"),
    _public("phase"),
    _public("type_name"),
    _public("la_name"),
    _public("street"),
    _public("locality"),
    _public("address3"),
    _public("town"),
    _public("county"),
    _public("postcode"),
    _public("location"),
    _public("statutory_low_age"),
    _public("statutory_high_age"),
    _public("gender"),
    _public("religious_character"),
    _public("website"),
    _public("telephone"),
    _public("ofsted"),
    _public("svc_score"),
    # The richer profile, for keyed callers.
    _commercial("la_code"),
    _commercial("establishment_number"),
    _commercial("type_group"),
    _commercial("gias_phase"),
    _commercial("admissions_policy"),
    _commercial("boarders"),
    _commercial("nursery_provision"),
    _commercial("official_sixth_form"),
    _commercial("capacity"),
    _commercial("pupils"),
    _commercial("percentage_fsm"),
    _commercial("trust_name"),
    _commercial("region"),
    _commercial("district"),
    _commercial("ward"),
    _commercial("parliamentary_constituency"),
    _commercial("urban_rural"),
    _commercial("ukprn"),
    _commercial("uprn"),
    _commercial("open_date"),
    # Withheld from every caller.
    _never("head_name", Exclusion.PERSONAL_DATA),
    _never("inspectorate_name", Exclusion.INDEPENDENT_INSPECTORATE),
    _never("fees", Exclusion.FEES),
    _never("catchment", Exclusion.CATCHMENT),
    _never("ai_summary", Exclusion.AI_SUMMARY),
    _never("website_content", Exclusion.WEBSITE_CONTENT),
)

_BY_NAME = {f.name: f for f in SCHOOL_FIELDS}


def licence_of(name: str) -> FieldLicence:
    """The declared licence of a field; an undeclared field is never served."""
    return _BY_NAME.get(name, FieldLicence(name, Licence.NEVER, Exclusion.UNCONFIRMED_RIGHTS))


def may_serve(name: str, tier: Tier) -> bool:
    licence = licence_of(name).licence
    if licence is Licence.PUBLIC:
        return True
    return licence is Licence.COMMERCIAL and tier is Tier.COMMERCIAL


def served_fields(tier: Tier) -> tuple[str, ...]:
    """The fields a tier may see, in declaration order: resolved once per tier, not per
    field per request (the registry is fixed for the process's life)."""
    return _SERVED[tier]


_SERVED = {tier: tuple(f.name for f in SCHOOL_FIELDS if may_serve(f.name, tier)) for tier in Tier}
