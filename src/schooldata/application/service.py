"""The application facade: every use case, wired to its ports, in one object the faces share."""

from __future__ import annotations

from collections.abc import Callable

from attrs import define, frozen

from schooldata.application.about import About
from schooldata.application.access import Authenticate, Meter
from schooldata.application.changes import ListChanges
from schooldata.application.commercial import CommercialSchools
from schooldata.application.exports import Exports
from schooldata.application.get_school import GetSchool
from schooldata.application.import_dataset import ImportDataset
from schooldata.application.key_admin import KeyAdmin
from schooldata.application.operations.declaration import Port
from schooldata.application.pipeline import Pipeline
from schooldata.application.reuse import AnswerReuse
from schooldata.application.school_data import SchoolData
from schooldata.application.search_schools import SearchSchools
from schooldata.domain.plans import PlanCatalogue
from schooldata.domain.versions import DEFAULT_RETENTION_DAYS
from schooldata.ports.changes import ChangeLog
from schooldata.ports.clock import Clock, IdSource
from schooldata.ports.datasets import DatasetRegistry
from schooldata.ports.imports import DataStore
from schooldata.ports.keys import KeyStore, QuotaCounter, RateLimiter
from schooldata.ports.postcodes import PostcodeDirectory
from schooldata.ports.schools import InspectionReader, LinkReader, MeasureReader, SchoolReader


@define(kw_only=True)
class Ports:
    """Every driven port the core needs; `bootstrap` chooses the adapters."""

    schools: SchoolReader
    postcodes: PostcodeDirectory
    datasets: DatasetRegistry
    links: LinkReader
    measures: MeasureReader
    inspections: InspectionReader
    store: DataStore
    changes: ChangeLog
    keys: KeyStore
    rate: RateLimiter
    quota: QuotaCounter
    clock: Clock
    ids: IdSource


@define(kw_only=True)
class Application:
    """Built once by `bootstrap`; REST, MCP and CLI call these use cases and nothing else."""

    ports: Ports
    plans: PlanCatalogue
    search_schools: SearchSchools
    get_school: GetSchool
    commercial: CommercialSchools
    school_data: SchoolData
    exports: Exports
    about: About
    changes: ListChanges
    authenticate: Authenticate
    meter: Meter
    keys: KeyAdmin
    import_dataset: ImportDataset
    pipeline: Pipeline

    @property
    def ids(self) -> IdSource:
        return self.ports.ids


def build_application(
    *,
    ports: Ports,
    plans: PlanCatalogue,
    key_secret: bytes,
    nonblocking: Callable[[], frozenset[Port]] = frozenset,
    reuse_bytes: int = 0,
    retention_days: int = DEFAULT_RETENTION_DAYS,
) -> Application:
    """`nonblocking()`: the ports whose adapters answer from memory now (the composition root
    knows), so operations reading only those may run on an event loop. `retention_days`: how
    long data versions and their changes are kept."""
    search_schools = SearchSchools(schools=ports.schools, postcodes=ports.postcodes)
    get_school = GetSchool(schools=ports.schools)
    commercial = CommercialSchools(
        schools=ports.schools, postcodes=ports.postcodes, links=ports.links
    )
    school_data = SchoolData(
        schools=ports.schools,
        measures=ports.measures,
        inspections=ports.inspections,
        links=ports.links,
    )
    changes = ListChanges(log=ports.changes, clock=ports.clock, retention_days=retention_days)
    about = About(
        datasets=ports.datasets,
        plans=plans,
        in_memory=lambda: Port.DATASETS in nonblocking(),
    )
    authenticate = Authenticate(keys=ports.keys, plans=plans, secret=key_secret)
    meter = Meter(rate=ports.rate, quota=ports.quota, clock=ports.clock)
    uses = _UseCases(search_schools, get_school, commercial, school_data, about, changes)
    return Application(
        ports=ports,
        plans=plans,
        search_schools=search_schools,
        get_school=get_school,
        commercial=commercial,
        school_data=school_data,
        exports=Exports(
            schools=ports.schools, measures=ports.measures, inspections=ports.inspections
        ),
        about=about,
        changes=changes,
        authenticate=authenticate,
        meter=meter,
        keys=KeyAdmin(
            keys=ports.keys, plans=plans, secret=key_secret, clock=ports.clock, ids=ports.ids
        ),
        import_dataset=ImportDataset(
            store=ports.store, clock=ports.clock, retention_days=retention_days
        ),
        pipeline=Pipeline(
            uses=uses,
            authenticate=authenticate,
            meter=meter,
            datasets=ports.datasets,
            nonblocking=nonblocking,
            reuse=AnswerReuse(max_bytes=reuse_bytes, version=ports.schools.version)
            if reuse_bytes > 0
            else None,
        ),
    )


@frozen
class _UseCases:
    search_schools: SearchSchools
    get_school: GetSchool
    commercial: CommercialSchools
    school_data: SchoolData
    about: About
    changes: ListChanges
