"""A local caller's call: the CLI and the library ask any operation by name through the one
pipeline, under a plan (every feature by default), with no key and no meter.

Local use is not a plan-bounded API call: the analyst or program holds the database, so by
default it gets every feature and pages of up to 10,000 rows (`LOCAL_PLAN`); a named plan
answers exactly what that plan's API caller would get. A refusal raises its domain error.

A person types these names, so a local caller is forgiven the case of an operation's name
when only one operation has it in any case (`listschools`), and a name that matches nothing
is answered with the nearest ones (`did you mean ...`), as is an unknown parameter.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

from schooldata.application.operations.declaration import AnyOperation, Entry
from schooldata.application.operations.registry import REGISTRY
from schooldata.application.pipeline import LOCAL, Face, Outcome, Pipeline, Refused, Trusted
from schooldata.domain.errors import UnknownOperation, UnknownParameter
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
OPERATION_NAMES: tuple[str, ...] = tuple(op.name for op in REGISTRY.operations)


def call_locally(
    pipeline: Pipeline,
    operation: str,
    arguments: Mapping[str, object],
    *,
    plan: Plan = LOCAL_PLAN,
    face: Face = LOCAL,
) -> Outcome:
    """Operation `operation` (its registry name, see `resolve`) answered as `plan` allows."""
    op = resolve(operation)
    entry = Entry(op, None) if op.public else Entry(None, op)
    try:
        return pipeline.call(entry, arguments, credentials=Trusted(plan), face=face)
    except Refused as refused:
        error = refused.error
        unknown = [name for name in arguments if name not in op.by_name]
        if isinstance(error, UnknownParameter) and unknown:
            raise _with_suggestions(op, unknown) from None
        raise error from None


def resolve(name: str) -> AnyOperation:
    """The operation called `name` (its OpenAPI operationId), or the one whose name is
    `name` in another case; else `UnknownOperation` naming the nearest names."""
    try:
        return REGISTRY[name]
    except KeyError:
        pass
    folded = [known for known in OPERATION_NAMES if known.lower() == name.lower()]
    if len(folded) == 1:
        return REGISTRY[folded[0]]
    hint = did_you_mean(name, OPERATION_NAMES) or f"The operations: {', '.join(OPERATION_NAMES)}."
    raise UnknownOperation(name, hint)


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """ "Did you mean X or Y?" for the known names nearest `name` (any case), or ""."""
    by_folded: dict[str, str] = {}
    for candidate in known:
        by_folded.setdefault(candidate.lower(), candidate)
    nearest = difflib.get_close_matches(name.lower(), list(by_folded), n=3, cutoff=0.6)
    if not nearest:
        return ""
    names = [by_folded[n] for n in nearest]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    return f"Did you mean {listed}?"


def _with_suggestions(op: AnyOperation, unknown: list[str]) -> UnknownParameter:
    """The pipeline's refusal of unknown parameters, with the nearest declared names."""
    hints = []
    for name in unknown[:3]:
        hint = did_you_mean(name, op.by_name)
        if hint:
            hints.append(hint if len(unknown) == 1 else f"{name}: {hint[0].lower()}{hint[1:]}")
    takes = ", ".join(p.name for p in op.params) or "no parameters"
    return UnknownParameter(unknown, hint=" ".join([*hints, f"({op.name} takes {takes}.)"]))
