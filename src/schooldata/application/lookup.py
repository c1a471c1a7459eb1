"""Bulk lookup: the joined profiles of many schools in one question.

Rules (every face):
- `urns`: 1 to the plan's `per_page` maximum distinct URNs, each six digits or the integer
  they spell; more than the plan allows -> limit_exceeds_plan naming `urns`; none, a
  duplicate (`"100001"` and `100001` included) or a malformed one -> refused, naming `urns`.
- The answer holds the profile of each URN that names an open school, in the order asked,
  exactly as the single profile gives it, and lists the others (unknown, closed, proposed to
  open) as not found: a lookup is never refused for what the register holds.

`prepare` checks every rule and looks nothing up (what it raises is the caller's mistake);
`look_up` answers, reusing the profile use case for each school.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen

from schooldata.application.commercial import CommercialSchools, Profile
from schooldata.application.operations.arguments import Arguments
from schooldata.application.operations.declaration import PlanBound
from schooldata.domain.errors import InvalidParameter, LimitExceedsPlan, SchoolNotFound
from schooldata.domain.urn import Urn

LOOKUP_MINIMUM = 1


@frozen(kw_only=True)
class Lookup:
    """The profiles found, in the order asked, and the URNs that name no open school."""

    asked: int
    profiles: tuple[Profile, ...]
    not_found: tuple[Urn, ...]


def prepare(args: Arguments) -> tuple[Urn, ...]:
    """The URNs to look up, in the order asked."""
    raw_urns = args.given("urns")
    if raw_urns is None:
        raise InvalidParameter("urns", "urns is required.")
    if not isinstance(raw_urns, list):
        raise InvalidParameter("urns", "urns must be an array of six-digit URNs.")
    maximum = args.plan_limit(PlanBound.LOOKUP)
    if len(raw_urns) > maximum:
        raise LimitExceedsPlan("urns", maximum, args.bounded_plan().name)
    if len(raw_urns) < LOOKUP_MINIMUM:
        raise InvalidParameter("urns", "A lookup needs at least 1 URN.")
    urns = tuple(Urn.parse(u, parameter="urns") for u in raw_urns)
    if len(set(urns)) != len(urns):
        raise InvalidParameter("urns", "Each URN may appear only once.")
    return urns


def look_up(profiles: CommercialSchools, urns: Sequence[Urn]) -> Lookup:
    found: list[Profile] = []
    missing: list[Urn] = []
    for urn in urns:
        try:
            found.append(profiles.profile(urn))
        except SchoolNotFound:
            missing.append(urn)
    return Lookup(asked=len(urns), profiles=tuple(found), not_found=tuple(missing))
