"""The domain face: the library itself. The application's use cases, called as a program would
call them, and their answers rendered by `entrypoints.wire` (the one JSON shape of every face).

A commercial question goes the way the contract orders it: authenticate the credentials
(`Authenticate`), then entitlement, rate limit and quota (`Meter.admit`), then the use case.
In `reference` mode (the yardstick the other faces are compared with) keys and meters are
skipped and only the caller's plan applies.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from features.drivers import Answer, Credentials, Driver, Params
from features.drivers.stage import Stage
from features.drivers.world import World
from schooldata.application.access import Caller
from schooldata.application.commercial import ListAnswer
from schooldata.application.search_schools import (
    PublicSearchRequest,
)
from schooldata.domain.errors import DomainError
from schooldata.domain.keys import MissingApiKey
from schooldata.domain.metering import LimitReached
from schooldata.domain.plans import Feature, Plan
from schooldata.entrypoints import wire

PUBLIC_SEARCH_PARAMETERS = ("query", "postcode", "phase", "radius_miles", "limit")
TOPIC_FEATURES = {
    "results": Feature.RESULTS,
    "admissions": Feature.ADMISSIONS,
    "finance": Feature.FINANCE,
    "inspections": Feature.INSPECTIONS,
}
UNBOUNDED = Plan(
    name="reference",
    per_page_max=10_000,
    compare_max=10_000,
    rate_per_second=10_000,
    monthly_quota=2**31 - 1,
    features=frozenset(Feature),
)

Produce = Callable[[Plan], tuple[Any, dict[str, int] | None]]


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


def list_page(answer: ListAnswer, base_url: str) -> tuple[Any, dict[str, int]]:
    data = [
        wire.commercial_list_item(hit, base_url=base_url, with_distance=answer.with_distance)
        for hit in answer.result.hits
    ]
    pagination = {
        "page": answer.page,
        "per_page": answer.per_page,
        "total": answer.result.total,
        "total_pages": answer.total_pages,
    }
    return data, pagination


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
        app = self.world.app
        try:
            if keyed and not self.reference:
                self._authenticate()  # a bad key is refused, never silently downgraded
            request = PublicSearchRequest.from_params(params)
            answer = app.search_schools.execute(request)
        except DomainError as error:
            return refusal(self.face, error)
        body = wire.public_search_response(answer, base_url=self.world.base_url)
        return Answer(face=self.face, ok=True, body=body)

    def _school(self, urn: str) -> Answer:
        try:
            school = self.world.app.get_school.execute(urn)
        except DomainError as error:
            return refusal(self.face, error)
        body = wire.public_school_record(school, base_url=self.world.base_url)
        return Answer(face=self.face, ok=True, body=body)

    # ------------------------------------------------------------------ commercial

    def _profile(self, urn: str) -> Answer:
        def produce(_: Plan) -> tuple[Any, None]:
            profile = self.world.app.commercial.profile(urn)
            return wire.commercial_profile(profile, base_url=self.world.base_url), None

        return self._commercial(Feature.SCHOOL_PROFILE, produce)

    def _list_schools(self, params: Params) -> Answer:
        def produce(plan: Plan) -> tuple[Any, dict[str, int]]:
            return list_page(self.world.app.commercial.list(dict(params), plan), self.base_url)

        return self._commercial(Feature.SCHOOLS_LIST, produce)

    def _nearby(self, params: Params) -> Answer:
        def produce(plan: Plan) -> tuple[Any, dict[str, int]]:
            return list_page(self.world.app.commercial.nearby(dict(params), plan), self.base_url)

        return self._commercial(Feature.SCHOOLS_NEARBY, produce)

    def _dataset(self, topic: str, urn: str) -> Answer:
        data = self.world.app.school_data

        def produce(_: Plan) -> tuple[Any, None]:
            if topic == "inspections":
                return wire.inspection_history_document(data.inspections(urn)), None
            return wire.school_topics(getattr(data, topic)(urn)), None

        return self._commercial(TOPIC_FEATURES[topic], produce)

    def _compare(self, urns: list[str | int]) -> Answer:
        def produce(plan: Plan) -> tuple[Any, None]:
            comparison = self.world.app.school_data.compare(urns, plan)
            return wire.comparison_document(comparison), None

        return self._commercial(Feature.COMPARE, produce)

    def _rankings(self, params: Params) -> Answer:
        def produce(plan: Plan) -> tuple[Any, dict[str, int]]:
            ranking = self.world.app.school_data.rankings(dict(params), plan)
            pagination = {
                "page": ranking.page,
                "per_page": ranking.per_page,
                "total": ranking.total,
                "total_pages": (ranking.total + ranking.per_page - 1) // ranking.per_page,
            }
            return wire.ranking_items(ranking), pagination

        return self._commercial(Feature.RANKINGS, produce)

    def _freshness(self) -> Answer:
        def produce(plan: Plan) -> tuple[Any, dict[str, int]]:
            page = self.world.app.about.freshness_page({}, plan)
            pagination = {
                "page": page.page,
                "per_page": page.per_page,
                "total": page.total,
                "total_pages": (page.total + page.per_page - 1) // page.per_page,
            }
            return [wire.freshness_item(f) for f in page.items], pagination

        return self._commercial(Feature.DATA_FRESHNESS, produce)

    def _meta(self) -> Answer:
        def produce(_: Plan) -> tuple[Any, None]:
            return wire.meta_document(self.world.app.about.meta()), None

        return self._commercial(Feature.META, produce)

    # ------------------------------------------------------------------ the gate, as a library

    @property
    def base_url(self) -> str:
        return self.world.base_url

    def _authenticate(self) -> Caller:
        """The credentials as the `Authenticate` use case reads them; none -> missing key."""
        credentials = self.credentials or Credentials()
        caller = self.world.app.authenticate.execute(
            authorization=f"Bearer {credentials.bearer}" if credentials.bearer else None,
            x_api_key=credentials.x_api_key,
        )
        if caller is None:
            raise MissingApiKey()
        return caller

    def _admit(self, feature: Feature) -> Plan:
        app = self.world.app
        if self.reference:
            named = self.credentials.plan if self.credentials else None
            plan = UNBOUNDED if named is None else app.plans.get(named)
            plan.require(feature)
            return plan
        caller = self._authenticate()
        app.meter.admit(caller, feature)
        return caller.plan

    def _commercial(self, feature: Feature, produce: Produce) -> Answer:
        try:
            plan = self._admit(feature)
            body, pagination = produce(plan)
        except DomainError as error:
            return refusal(self.face, error)
        return Answer(face=self.face, ok=True, body=body, pagination=pagination)
