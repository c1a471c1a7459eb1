"""The application facade: every use case, wired to its ports, in one object the faces share."""

from __future__ import annotations

from attrs import define

from schooldata.application.get_school import GetSchool
from schooldata.application.import_dataset import ImportDataset
from schooldata.application.search_schools import SearchSchools
from schooldata.domain.dataset import DatasetRecord
from schooldata.ports.clock import Clock, IdSource
from schooldata.ports.datasets import DatasetRegistry
from schooldata.ports.imports import DataStore
from schooldata.ports.postcodes import PostcodeDirectory
from schooldata.ports.schools import SchoolReader


@define
class Application:
    """Built once by `bootstrap`; REST, MCP and CLI call these use cases and nothing else."""

    schools: SchoolReader
    postcodes: PostcodeDirectory
    datasets: DatasetRegistry
    store: DataStore
    clock: Clock
    ids: IdSource
    search_schools: SearchSchools
    get_school: GetSchool
    import_dataset: ImportDataset

    def sources(self) -> list[DatasetRecord]:
        return self.datasets.current()


def build_application(
    *,
    schools: SchoolReader,
    postcodes: PostcodeDirectory,
    datasets: DatasetRegistry,
    store: DataStore,
    clock: Clock,
    ids: IdSource,
) -> Application:
    return Application(
        schools=schools,
        postcodes=postcodes,
        datasets=datasets,
        store=store,
        clock=clock,
        ids=ids,
        search_schools=SearchSchools(schools=schools, postcodes=postcodes),
        get_school=GetSchool(schools=schools),
        import_dataset=ImportDataset(store=store, clock=clock),
    )
