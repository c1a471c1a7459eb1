"""The domain face: the library itself. Every question goes through the application's one
pipeline (`app.pipeline`), as a program importing the library would send it, and the answers
are rendered by `entrypoints.answers` (the one JSON shape of every face).

A commercial question goes the way the contract orders it: tier, authentication, entitlement,
validation, rate limit and quota, then the use case. In `reference` mode (the yardstick the
other faces are compared with) the caller is trusted: keys and meters are skipped and only the
caller's plan applies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from features.drivers import Answer, Credentials, Driver, Params, with_not_found
from features.drivers.stage import Stage
from features.drivers.world import World
from schooldata.application.operations.declaration import Entry
from schooldata.application.operations.registry import REGISTRY
from schooldata.application.pipeline import LIBRARY, Refused, Trusted
from schooldata.application.pipeline import Credentials as Presented
from schooldata.domain.errors import DomainError
from schooldata.domain.metering import LimitReached
from schooldata.domain.plans import Feature, Plan
from schooldata.entrypoints import answers

TOPIC_OPERATIONS = {
    "results": "getSchoolResults",
    "admissions": "getSchoolAdmissions",
    "finance": "getSchoolFinance",
    "inspections": "getSchoolInspections",
}
UNBOUNDED = Plan(
    name="reference",
    per_page_max=10_000,
    compare_max=10_000,
    rate_per_second=10_000,
    monthly_quota=2**31 - 1,
    features=frozenset(Feature),
)


def refusal(face: str, error: DomainError) -> Answer:
    details = {k: v for k, v in error.details.items() if k != "retry_after"}
    retry_after = error.retry_after if isinstance(error, LimitReached) else None
    return Answer(
        face=face,
        ok=False,
        code=error.code,
        message=error.message,
        details=details,
        retry_after=retry_after,
    )


class DomainDriver(Driver):
    face = "domain"
    capabilities = frozenset({"keys", "metering", "envelope"})

    def __init__(
        self,
        world: World,
        *,
        stage: Stage | None = None,
        home: Path | None = None,
        reference: bool = False,
    ) -> None:
        super().__init__(world, stage=stage, home=home)
        self.reference = reference

    # ------------------------------------------------------------------ public

    def _search(self, params: Params, *, keyed: bool = False) -> Answer:
        # A keyed caller of the public search is authenticated (a bad key is refused, never
        # silently downgraded) and answered publicly.
        return self._ask(Entry(REGISTRY["searchSchools"], None), dict(params), keyed=keyed)

    def _school(self, urn: str) -> Answer:
        return self._ask(Entry(REGISTRY["getSchool"], None), {"urn": urn}, keyed=False)

    # ------------------------------------------------------------------ commercial

    def _profile(self, urn: str) -> Answer:
        return self._keyed("getSchoolProfile", {"urn": urn})

    def _list_schools(self, params: Params) -> Answer:
        return self._keyed("listSchools", dict(params))

    def _nearby(self, params: Params) -> Answer:
        return self._keyed("nearbySchools", dict(params))

    def _dataset(self, topic: str, urn: str, *, predecessors: bool = False) -> Answer:
        arguments: dict[str, Any] = {"urn": urn}
        if predecessors:
            arguments["include_predecessors"] = True
        return self._keyed(TOPIC_OPERATIONS[topic], arguments)

    def _changes(self, params: Params) -> Answer:
        return self._keyed("listChanges", dict(params))

    def _compare(self, urns: list[str | int]) -> Answer:
        return self._keyed("compareSchools", {"urns": urns})

    def _lookup(self, urns: list[str | int]) -> Answer:
        return with_not_found(self._keyed("lookupSchools", {"urns": urns}))

    def _rankings(self, params: Params) -> Answer:
        return self._keyed("getRankings", dict(params))

    def _freshness(self) -> Answer:
        return self._keyed("getDataFreshness", {})

    def _meta(self) -> Answer:
        return self._keyed("getMeta", {})

    # ------------------------------------------------------------------ the pipeline

    @property
    def base_url(self) -> str:
        return self.world.base_url

    def _keyed(self, operation: str, arguments: dict[str, Any]) -> Answer:
        return self._ask(Entry(None, REGISTRY[operation]), arguments, keyed=True)

    def _presented(self, keyed: bool) -> Presented | Trusted:
        if self.reference:
            named = self.credentials.plan if self.credentials else None
            return Trusted(UNBOUNDED if named is None else self.world.app.plans.get(named))
        credentials = self.credentials or Credentials()
        if not keyed:
            return Presented()
        return Presented(
            authorization=f"Bearer {credentials.bearer}" if credentials.bearer else None,
            x_api_key=credentials.x_api_key,
        )

    def _ask(self, entry: Entry, arguments: dict[str, Any], *, keyed: bool) -> Answer:
        pipeline = self.world.app.pipeline
        try:
            credentials = self._presented(keyed)
            outcome = pipeline.call(entry, arguments, credentials=credentials, face=LIBRARY)
        except Refused as refused:
            return refusal(self.face, refused.error)
        except DomainError as error:
            return refusal(self.face, error)
        rendered = answers.render(outcome, base_url=self.world.base_url)
        return Answer(
            face=self.face,
            ok=True,
            body=rendered.data,
            pagination=rendered.pagination,
            meta=rendered.meta,
        )
