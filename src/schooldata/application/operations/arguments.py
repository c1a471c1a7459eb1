"""One call's raw arguments, read through the operation's declarations.

`reading` reads each value when its rules reach it (so a call with several mistakes is refused
for the same first one on every face), and the bounds it is checked against are the
declaration's: the same numbers the OpenAPI document and the MCP schemas show.
"""

from __future__ import annotations

from collections.abc import Mapping

from schooldata.application import parameters as p
from schooldata.application.operations.param import Param, PlanBound
from schooldata.domain.plans import Plan


class Arguments:
    def __init__(
        self, params: Mapping[str, Param], raw: Mapping[str, object], plan: Plan | None
    ) -> None:
        self._params = params
        self.raw = raw
        self.plan = plan

    def __contains__(self, name: str) -> bool:
        return self.raw.get(name) is not None

    def given(self, name: str) -> object:
        """The value as sent (None when absent), for rules that read it themselves."""
        return self.raw.get(name)

    def text(self, name: str) -> str | None:
        if self.raw.get(name) is None:
            return None
        param = self._params[name]
        return p.text(
            self.raw,
            name,
            min_length=param.min_length or 1,
            max_length=param.max_length,
        )

    def integer(self, name: str) -> int | None:
        if self.raw.get(name) is None:
            return None
        param = self._params[name]
        return p.integer(
            self.raw, name, minimum=_whole(param.minimum), maximum=_whole(param.maximum)
        )

    def number(self, name: str) -> float | None:
        if self.raw.get(name) is None:
            return None
        param = self._params[name]
        return p.number(self.raw, name, minimum=param.minimum, maximum=param.maximum)

    def flag(self, name: str) -> bool:
        """A boolean (absent: its default, else false)."""
        if self.raw.get(name) is None:
            return bool(self._params[name].default)
        return p.boolean(self.raw, name)

    def choice(self, name: str) -> str | None:
        if self.raw.get(name) is None:
            return None
        return p.choice(self.raw, name, self._params[name].choices)

    def per_page(self) -> int:
        """`per_page` within the caller's plan (default 20; above it: limit_exceeds_plan)."""
        return self.bounded_plan().per_page(p.integer(self.raw, "per_page"))

    def page(self) -> int:
        return self.integer("page") or 1

    def bounded_plan(self) -> Plan:
        if self.plan is None:  # pragma: no cover - plan-bound parameters are keyed ones
            raise RuntimeError("a plan-bound parameter read without a plan")
        return self.plan

    def plan_limit(self, bound: PlanBound) -> int:
        plan = self.bounded_plan()
        if bound is PlanBound.COMPARE:
            return plan.compare_max
        return plan.per_page_max  # a page's rows, and the schools of one lookup


def _whole(value: float | None) -> int | None:
    return None if value is None else int(value)
