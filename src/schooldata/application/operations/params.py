"""The parameters several operations share: paging, the list filters, the origin, a URN."""

from __future__ import annotations

from schooldata.application.operations.param import Kind, Param, Place, PlanBound
from schooldata.application.parameters import MAX_PAGE
from schooldata.domain.links import MAX_PREDECESSOR_DEPTH
from schooldata.domain.phase import PHASE_VALUES
from schooldata.domain.plans import COMMERCIAL_PER_PAGE_DEFAULT
from schooldata.domain.search import (
    MAX_RADIUS_MILES,
    MIN_QUERY_LENGTH,
    MIN_RADIUS_MILES,
    SORT_VALUES,
)

GENDERS = ("mixed", "boys", "girls")
# The commercial filter's bound on a postcode as sent (the longest real one, `SW1A 1AA`-shaped
# with spaces to spare); the public search has none (the contract gives only a minimum).
POSTCODE_MAX_LENGTH = 16
TEXT_MAX_LENGTH = 200  # every text parameter but the public query (the contract gives it none)

PAGE = Param(
    name="page",
    kind=Kind.INTEGER,
    description="Page number, from 1. Past the last page the data is empty; totals stay true.",
    minimum=1,
    maximum=MAX_PAGE,
    default=1,
)
PER_PAGE = Param(
    name="per_page",
    kind=Kind.INTEGER,
    description="Items per page, bounded by the caller's plan.",
    minimum=1,
    default=COMMERCIAL_PER_PAGE_DEFAULT,
    plan_bound=PlanBound.PER_PAGE,
)
PAGING = (PAGE, PER_PAGE)

URN = Param(
    name="urn",
    kind=Kind.URN,
    description="The school's Unique Reference Number: exactly six digits.",
    required=True,
    place=Place.PATH,
)

INCLUDE_PREDECESSORS = Param(
    name="include_predecessors",
    kind=Kind.BOOLEAN,
    description=(
        "Also the school's predecessors' (true): establishments it took over through GIAS "
        "conversion and amalgamation links (Predecessor, Predecessor - amalgamated, "
        f"Predecessor - merged), transitively, at most {MAX_PREDECESSOR_DEPTH} links back, "
        "each under its own URN with the link that led there. Default false: the school's own."
    ),
    default=False,
)


def query(*, required: bool) -> Param:
    need = "required" if required else "optional"
    return Param(
        name="q",
        kind=Kind.TEXT,
        description=(
            f"Text to match against name, local authority and type ({need}, at least 2 characters)."
        ),
        required=required,
        min_length=MIN_QUERY_LENGTH,
        max_length=TEXT_MAX_LENGTH,
    )


PHASE = Param(
    name="phase",
    kind=Kind.CHOICE,
    description="Phase of education: " + ", ".join(PHASE_VALUES) + " (any case).",
    choices=PHASE_VALUES,
)
LOCAL_AUTHORITY = Param(
    name="local_authority",
    kind=Kind.TEXT,
    description="Local authority name or code, e.g. 'Camden' or '202'.",
    min_length=1,
    max_length=TEXT_MAX_LENGTH,
)
FILTERS = (
    LOCAL_AUTHORITY,
    PHASE,
    Param(
        name="type",
        kind=Kind.TEXT,
        description="Establishment type, e.g. 'Academy converter', 'Community school'.",
        min_length=1,
        max_length=TEXT_MAX_LENGTH,
    ),
    Param(
        name="gender",
        kind=Kind.CHOICE,
        description="Pupil gender admitted: " + ", ".join(GENDERS) + " (any case).",
        choices=GENDERS,
    ),
    Param(
        name="ofsted_rating",
        kind=Kind.INTEGER,
        description=(
            "Latest graded Ofsted overall effectiveness (1 Outstanding .. 4 Inadequate). Graded "
            "outcomes are historic after 2025-11-10 and not comparable with report cards."
        ),
        minimum=1,
        maximum=4,
    ),
    Param(
        name="min_score",
        kind=Kind.NUMBER,
        description="Minimum svcScore (0 to 100); schools without a score never match.",
        minimum=0,
        maximum=100,
    ),
    Param(
        name="sort",
        kind=Kind.CHOICE,
        description=(
            "Order: relevance (needs q), distance (needs an origin), name, urn or score. Ties "
            "break by URN."
        ),
        choices=SORT_VALUES,
    ),
)
RADIUS = Param(
    name="radius_miles",
    kind=Kind.NUMBER,
    description="Maximum distance in miles from the origin (0.1 to 100). Needs an origin.",
    minimum=MIN_RADIUS_MILES,
    maximum=MAX_RADIUS_MILES,
)
ORIGIN = (
    Param(
        name="postcode",
        kind=Kind.POSTCODE,
        description=(
            "A full UK postcode ('SW1A 1AA') or an outward code ('SW1A'); case and spaces are "
            "ignored. Give this or latitude+longitude."
        ),
        min_length=2,
        max_length=POSTCODE_MAX_LENGTH,
    ),
    Param(
        name="latitude",
        kind=Kind.NUMBER,
        description="Latitude (WGS84) of the origin; give it with longitude, not with postcode.",
        minimum=-90,
        maximum=90,
    ),
    Param(
        name="longitude",
        kind=Kind.NUMBER,
        description="Longitude (WGS84) of the origin; give it with latitude.",
        minimum=-180,
        maximum=180,
    ),
    RADIUS,
)
