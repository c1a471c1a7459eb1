"""What one import transaction changed, school by school (domain.changes).

`ChangeWatch` reads, before an import writes, what that import may change (the served
register, the imported dataset's results and their releases, the inspections, the links) and
compares it with the same reads after every write of the transaction (scores and historic
grades recomputed included), so the changes a version records are what a reader of the
version before and after would see differ.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from schooldata.domain.changes import (
    NOWHERE,
    ChangeKind,
    SchoolChange,
    Whereabouts,
    YearKey,
    added_inspections,
    added_links,
    changed_years,
    in_order,
    register_changes,
    result_years,
)
from schooldata.domain.links import EstablishmentLink
from schooldata.domain.ofsted import InspectionRecord
from schooldata.domain.releases import ReleaseStatus
from schooldata.domain.school import School
from schooldata.domain.urn import Urn
from schooldata.ports.imports import DataTransaction

# What each kind of import may change (by `DatasetKind` value): the register (itself, or its
# scores and historic grades), one dataset's results, the inspections, the links.
REGISTER_KINDS = frozenset({"schools", "measures", "inspections"})


class ChangeWatch:
    def __init__(self, tx: DataTransaction) -> None:
        self._tx = tx
        self._schools: dict[Urn, School] | None = None
        self._years: dict[str, dict[YearKey, int]] = {}
        self._inspections: list[InspectionRecord] | None = None
        self._links: list[EstablishmentLink] | None = None

    def before(self, kind: str, dataset: str) -> None:
        """Read what an import of `kind` into `dataset` may change, before it writes."""
        tx = self._tx
        if kind in REGISTER_KINDS and self._schools is None:
            self._schools = _served(tx)
        if kind == "measures" and dataset not in self._years:
            self._years[dataset] = result_years(tx.dataset_measures(dataset=dataset), _release(tx))
        if kind == "inspections" and self._inspections is None:
            self._inspections = list(tx.inspections(datasets=None))
        if kind == "links" and self._links is None:
            self._links = list(tx.links())

    def changes(self) -> list[SchoolChange]:
        """Every change since `before`, in the order a version lists them; a school's
        whereabouts as the register lists it now, else as it did."""
        tx = self._tx
        before = self._schools or {}
        after = _served(tx)
        found: list[SchoolChange] = []
        if self._schools is not None:
            found += register_changes(self._schools, after)

        def where(urn: Urn) -> Whereabouts:
            school = after.get(urn) or before.get(urn)
            return NOWHERE if school is None else Whereabouts.of(school)

        for dataset, held in self._years.items():
            now = result_years(tx.dataset_measures(dataset=dataset), _release(tx))
            found += (
                SchoolChange(
                    urn=urn,
                    kind=ChangeKind.RESULTS_ADDED,
                    key_stage=stage,
                    year=year,
                    where=where(urn),
                )
                for urn, stage, year in changed_years(held, now)
            )
        if self._inspections is not None:
            found += (
                SchoolChange(
                    urn=record.urn,
                    kind=ChangeKind.INSPECTION_ADDED,
                    inspection_date=record.inspection_date,
                    where=where(record.urn),
                )
                for record in added_inspections(self._inspections, tx.inspections(datasets=None))
            )
        if self._links is not None:
            found += (
                SchoolChange(
                    urn=link.urn,
                    kind=ChangeKind.LINKED,
                    linked_urn=link.linked_urn,
                    link_type=link.link_type,
                    where=where(link.urn),
                )
                for link in added_links(self._links, tx.links())
            )
        return _once(in_order(found))


def _served(tx: DataTransaction) -> dict[Urn, School]:
    return {school.urn: school for school in tx.served_schools()}


def _release(tx: DataTransaction) -> Callable[[str, str], ReleaseStatus | None]:
    held = {(r.dataset, r.period): r.status for r in tx.releases()}
    return lambda dataset, period: held.get((dataset, period))


def _once(changes: Sequence[SchoolChange]) -> list[SchoolChange]:
    """Each change once (two datasets of one key stage may both change a year)."""
    seen: set[tuple[object, ...]] = set()
    kept: list[SchoolChange] = []
    for change in changes:
        key = change.order()
        if key not in seen:
            seen.add(key)
            kept.append(change)
    return kept


def datasets_of(names: Iterable[str]) -> tuple[str, ...]:
    """The datasets a version names: each once, in order."""
    return tuple(dict.fromkeys(names))
