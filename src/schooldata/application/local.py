"""A local caller's call: the CLI and the library ask any operation by name through the one
pipeline, under a plan (every feature by default), with no key and no meter.

Local use is not a plan-bounded API call: the analyst or program holds the database, so by
default it gets every feature and pages of up to 10,000 rows (`LOCAL_PLAN`); a named plan
answers exactly what that plan's API caller would get. A refusal raises its domain error.
"""

from __future__ import annotations

from collections.abc import Mapping

from schooldata.application.operations.declaration import Entry
from schooldata.application.operations.registry import REGISTRY
from schooldata.application.pipeline import LOCAL, Face, Outcome, Pipeline, Refused, Trusted
from schooldata.domain.plans import Feature, Plan

LOCAL_PAGE_MAX = 10_000
LOCAL_PLAN = Plan(
    name="local (unrestricted)",
    per_page_max=LOCAL_PAGE_MAX,
    compare_max=LOCAL_PAGE_MAX,
    rate_per_second=LOCAL_PAGE_MAX,
    monthly_quota=2**31 - 1,
    features=frozenset(Feature),
)


def call_locally(
    pipeline: Pipeline,
    operation: str,
    arguments: Mapping[str, object],
    *,
    plan: Plan = LOCAL_PLAN,
    face: Face = LOCAL,
) -> Outcome:
    """Operation `operation` (its registry name) answered as `plan` allows."""
    op = REGISTRY[operation]
    entry = Entry(op, None) if op.public else Entry(None, op)
    try:
        return pipeline.call(entry, arguments, credentials=Trusted(plan), face=face)
    except Refused as refused:
        raise refused.error from None
