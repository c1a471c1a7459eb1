"""The registry's operations over use cases a test builds: each argument prepared and run as
the pipeline does for a trusted caller (no key, no meter), without an application around it."""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

from schooldata.application.operations.arguments import Arguments
from schooldata.application.operations.registry import REGISTRY
from schooldata.application.pipeline import reject_unknown
from schooldata.domain.plans import Plan


class Operations:
    def __init__(self, **uses: Any) -> None:
        self.uses = SimpleNamespace(**uses)

    @classmethod
    def of(cls, app: Any) -> Operations:
        return cls(
            search_schools=app.search_schools,
            get_school=app.get_school,
            commercial=app.commercial,
            school_data=app.school_data,
            about=app.about,
        )

    def prepare(self, name: str, params: Mapping[str, object], plan: Plan | None = None) -> Any:
        operation = REGISTRY[name]
        reject_unknown(operation, params, None)
        return operation.prepare(Arguments(operation.by_name, params, plan))

    def call(self, name: str, params: Mapping[str, object], plan: Plan | None = None) -> Any:
        return REGISTRY[name].run(self.uses, self.prepare(name, params, plan))
