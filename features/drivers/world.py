"""One scenario's world: the dataset, a clock the scenario controls, the plans and the keys.

Every face of a scenario runs against the same kind of world, built fresh per scenario from the
hand-built real-places dataset of `tests/support/dataset.py`. The application is built on first
use, so `Given` steps may still change the plans or the data before anything is asked.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from attrs import evolve
from tests.support.dataset import build_store

from schooldata.adapters.memory.store import InMemoryStore
from schooldata.application.import_dataset import DatasetKind
from schooldata.application.key_admin import IssuedKey
from schooldata.application.service import Application, build_application
from schooldata.bootstrap import TEST_SECRET, bootstrap_memory
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.errors import DataUnavailable
from schooldata.domain.links import Establishment, EstablishmentLink
from schooldata.domain.metering import month_period
from schooldata.domain.ofsted import InspectionRecord
from schooldata.domain.plans import DEFAULT_PLANS, PlanCatalogue
from schooldata.domain.releases import ReleaseStatus
from schooldata.domain.results import MeasureRecord
from schooldata.domain.school import School
from schooldata.domain.urn import Urn
from schooldata.ports.imports import RejectLog

BASE_URL = "http://testserver.local"
# A Friday in November 2026, half-way through a second: after report cards began (2025-11-10)
# and after the commercial launch (2026-08-19).
START = dt.datetime(2026, 11, 20, 12, 0, 0, 500_000, tzinfo=dt.UTC)
SCENARIO_DATASET = "features"  # the measures and inspections that `Given` steps add


class ScenarioClock:
    """Ticks one second per reading, so every request of a scenario falls in its own rate
    window and no scenario trips the per-second limit by accident. `frozen()` stops it, so a
    burst of requests shares one second deterministically."""

    def __init__(self, start: dt.datetime = START) -> None:
        self.current = start
        self._frozen = 0

    def now(self) -> dt.datetime:
        reading = self.current
        if not self._frozen:
            self.current += dt.timedelta(seconds=1)
        return reading

    def timestamp(self) -> float:
        return self.now().timestamp()

    def peek(self) -> dt.datetime:
        return self.current

    def advance(self, seconds: float) -> None:
        self.current += dt.timedelta(seconds=seconds)

    def stop(self) -> None:
        """Stop ticking for the rest of the scenario."""
        self._frozen += 1

    @contextmanager
    def frozen(self) -> Iterator[None]:
        self._frozen += 1
        try:
            yield
        finally:
            self._frozen -= 1


class Outage:
    """A driven adapter that can be switched off: while `down`, every call fails the way that
    kind of adapter fails (the data stores raise DataUnavailable, as the SQL store does; the
    key store and the meter raise whatever their driver would)."""

    def __init__(self, inner: Any, failure: Callable[[], Exception]) -> None:
        self._inner = inner
        self._failure = failure
        self.down = False

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._inner, name)
        if not self.down or not callable(attribute):
            return attribute

        def fail(*_: Any, **__: Any) -> Any:
            raise self._failure()

        return fail


class World:
    def __init__(self) -> None:
        self.store: InMemoryStore = build_store()
        self.clock = ScenarioClock()
        self.base_url = BASE_URL
        self._limits: dict[str, dict[str, int]] = {}
        self._app: Application | None = None
        self._measures: list[MeasureRecord] = []
        self._inspections: list[InspectionRecord] = []
        self._links: list[EstablishmentLink] = []
        self.noted: str | None = None  # a data version a scenario noted
        self.outages: dict[str, list[Outage]] = {}

    # ------------------------------------------------------------------ the application

    @property
    def app(self) -> Application:
        if self._app is None:
            plans = PlanCatalogue(
                tuple(evolve(plan, **self._limits.get(plan.name, {})) for plan in DEFAULT_PLANS)
            )
            self._app = self._with_outages(
                bootstrap_memory(store=self.store, clock=self.clock, plans=plans)
            )
        return self._app

    def _with_outages(self, app: Application) -> Application:
        """The same application, rewired by the real `build_application` over adapters that
        a scenario can switch off."""
        ports = app.ports
        register = Outage(ports.schools, DataUnavailable)
        keys = Outage(ports.keys, lambda: ConnectionError("key store down"))
        rate = Outage(ports.rate, lambda: ConnectionError("meter down"))
        quota = Outage(ports.quota, lambda: ConnectionError("meter down"))
        self.outages = {
            "school register": [register],
            "key store": [keys],
            "usage meter": [rate, quota],
        }
        wired = evolve(
            ports,
            schools=register,
            postcodes=register,
            datasets=register,
            links=register,
            measures=register,
            inspections=register,
            keys=keys,
            rate=rate,
            quota=quota,
        )
        return build_application(ports=wired, plans=app.plans, key_secret=TEST_SECRET)

    def fail(self, dependency: str) -> None:
        _ = self.app  # built now, so the outage has something to switch off
        for outage in self.outages[dependency]:
            outage.down = True

    def restore(self, dependency: str) -> None:
        for outage in self.outages[dependency]:
            outage.down = False

    def limit_plan(self, plan: str, **limits: int) -> None:
        if self._app is not None:
            raise AssertionError("set plan limits in a Given step before anything is asked")
        self._limits.setdefault(plan, {}).update(limits)

    # ------------------------------------------------------------------ data

    def name_school(self, urn: int, name: str) -> None:
        """Rename one school, as a publisher's next file would: the register replaced whole."""
        schools = [
            evolve(school, name=name) if school.urn == Urn(urn) else school
            for school in self.store.iter_all()
        ]
        assert any(school.urn == Urn(urn) for school in schools), f"no school {urn} in the dataset"
        with self.store.transaction() as tx:
            tx.replace_schools(schools=schools)

    def add_measures(self, records: Iterable[MeasureRecord]) -> None:
        self._measures.extend(records)
        with self.store.transaction() as tx:
            tx.replace_measures(dataset=SCENARIO_DATASET, records=self._measures)

    def add_inspections(self, records: Iterable[InspectionRecord]) -> None:
        self._inspections.extend(records)
        with self.store.transaction() as tx:
            tx.replace_inspections(dataset=SCENARIO_DATASET, records=self._inspections)

    # ------------------------------------------------------------------ imports (new versions)

    def version(self) -> str:
        """The current data version, as every commercial answer's meta names it."""
        current = self.store.data_version()
        assert current is not None, "the scenario dataset is always a data version"
        return current.id

    def import_register(self, change: Callable[[dict[Urn, School]], None]) -> None:
        """The register imported again, as `change` leaves the schools served now: a school
        it drops is listed closed (its facts kept), one it adds opens."""
        served = {school.urn: school for school in self.store.iter_all()}
        before = dict(served)
        change(served)
        log = RejectLog()
        for urn in before.keys() - served.keys():
            gone = before[urn]
            log.listed_closed.add(urn)
            log.listed[urn] = Establishment(
                urn=urn, name=gone.name, status="Closed", opened=gone.open_date
            )
        self.app.import_dataset.execute(
            kind=DatasetKind.SCHOOLS,
            items=sorted(served.values(), key=lambda s: s.urn.value),
            log=log,
            record=_record("gias_establishments"),
            allow_shrink=True,  # (one school of the scenario's 19 is more than 5%)
        )

    def import_links(self, links: Iterable[EstablishmentLink]) -> None:
        self._links.extend(links)
        self.app.import_dataset.execute(
            kind=DatasetKind.LINKS,
            items=list(self._links),
            log=RejectLog(),
            record=_record("gias_links"),
        )

    def publish_results(
        self, dataset: str, period: str, status: ReleaseStatus, released: dt.date
    ) -> None:
        """A results file of `dataset` for `period` imported again with the same figures,
        stating its release (and the publisher's date)."""
        log = RejectLog()
        log.releases[period] = status
        figures = [
            record
            for school in self.store.iter_all()
            for record in self.store.measures_for(urn=school.urn)
            if record.dataset == dataset and record.period == period
        ]
        self.app.import_dataset.execute(
            kind=DatasetKind.MEASURES,
            items=figures,
            log=log,
            record=evolve(_record(dataset), extract_date=released),
        )

    # ------------------------------------------------------------------ keys and usage

    def issue_key(self, plan: str, organisation: str | None = None) -> IssuedKey:
        return self.app.keys.create_key(
            organisation=organisation or f"acme-{plan}", name="bdd", plan=plan
        )

    def revoke(self, issued: IssuedKey) -> None:
        self.app.keys.revoke(display_prefix=issued.record.display_prefix)

    def used(self, organisation: str) -> int:
        period = month_period(self.clock.peek())
        return self.app.ports.quota.used(organisation=organisation, period=period)


def _record(name: str) -> DatasetRecord:
    """A later import of one of the scenario dataset's datasets (synthetic, as it is)."""
    return DatasetRecord(
        name=name,
        title=f"{name} (scenario)",
        publisher="Department for Education",
        licence="Open Government Licence v3.0",
        attribution="Contains public sector information licensed under the OGL v3.0.",
        url=None,
        extract_date=None,
        imported_at=START,
        synthetic=True,
    )
