"""Bulk lookup: the joined profiles of many schools in one question.

Rules (every face):
- `urns`: 1 to the plan's `per_page` maximum distinct URNs, each six digits or the integer
  they spell; more than the plan allows -> limit_exceeds_plan naming `urns`; none, a
  duplicate (`"100001"` and `100001` included) or a malformed one -> refused, naming `urns`.
- The answer holds the profile of each URN that names an open school, in the order asked,
  exactly as the single profile gives it, and lists the others (unknown, closed, proposed to
  open) as not found: a lookup is never refused for what the register holds.

The operation reads the URNs (`operations.reading.prepare_lookup`: every rule, nothing looked
up); `look_up` answers, reusing the profile use case for each school.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen

from schooldata.application.commercial import CommercialSchools, Profile
from schooldata.domain.errors import SchoolNotFound
from schooldata.domain.urn import Urn

LOOKUP_MINIMUM = 1


@frozen(kw_only=True)
class Lookup:
    """The profiles found, in the order asked, and the URNs that name no open school."""

    asked: int
    profiles: tuple[Profile, ...]
    not_found: tuple[Urn, ...]


def look_up(profiles: CommercialSchools, urns: Sequence[Urn]) -> Lookup:
    found: list[Profile] = []
    missing: list[Urn] = []
    for urn in urns:
        try:
            found.append(profiles.profile(urn))
        except SchoolNotFound:
            missing.append(urn)
    return Lookup(asked=len(urns), profiles=tuple(found), not_found=tuple(missing))
