"""Imports: a publisher's file becomes the served dataset in one transaction, or nothing changes."""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import attrs
from attrs import frozen

from schooldata.application.history import ChangeWatch, datasets_of
from schooldata.application.rescore import compute_scores
from schooldata.domain.dataset import DatasetRecord, ImportReport, SourceCheck
from schooldata.domain.errors import ImportRejected
from schooldata.domain.links import Establishment
from schooldata.domain.ofsted import InspectionRecord, latest_graded_outcomes
from schooldata.domain.releases import Release
from schooldata.domain.school import School
from schooldata.domain.scoring import HEADLINE_MEASURE
from schooldata.domain.shrink import Shrink, count_shrink, register_shrink
from schooldata.domain.urn import Urn
from schooldata.domain.versions import DEFAULT_RETENTION_DAYS, next_made_at, retained_since
from schooldata.ports.clock import Clock
from schooldata.ports.imports import DataStore, DataTransaction, RejectLog

# A file with more bad rows than this is refused whole: better yesterday's complete data than
# today's with holes nobody noticed.
MAX_REJECT_RATIO = 0.01
MIN_REJECTS_TOLERATED = 10
# The MI datasets that can hold graded inspections (the historic 1-4 grades come from them).
GRADED_INSPECTION_DATASETS = (
    "ofsted_graded",
    "ofsted_all_inspections",
    "ofsted_latest_inspections",
)


# Inspection files of one academic year each (Ofsted's "all inspections - year to date"): a new
# file replaces the inspections of the years it covers, and earlier years stay in the history.
YEARLY_INSPECTION_DATASETS = ("ofsted_all_inspections",)


def academic_year(day: dt.date) -> int:
    """The year an English academic year (September to August) starts in."""
    return day.year if day.month >= 9 else day.year - 1


def _replace_inspection_years(
    tx: DataTransaction, dataset: str, items: Iterable[InspectionRecord]
) -> tuple[int, int]:
    new = list(items)
    years = {academic_year(r.inspection_date) for r in new}
    kept = [
        r
        for r in tx.inspections(datasets=[dataset])
        if academic_year(r.inspection_date) not in years
    ]
    return len(new), tx.replace_inspections(dataset=dataset, records=[*kept, *new])


def _listing(schools: Iterable[School], listed: dict[Urn, Establishment]) -> Iterator[School]:
    """The schools as they pass, noting what the register says of each (a parser's own
    `RejectLog.listed`, with closing dates, is preferred where it has one)."""
    for school in schools:
        listed[school.urn] = Establishment(
            urn=school.urn, name=school.name, status=school.status, opened=school.open_date
        )
        yield school


def _periods(records: Iterable[Any], periods: set[str]) -> Iterator[Any]:
    """The records as they pass, noting the periods they hold."""
    for record in records:
        periods.add(record.period)
        yield record


class DatasetKind(enum.Enum):
    SCHOOLS = "schools"
    POSTCODES = "postcodes"
    LINKS = "links"
    MEASURES = "measures"
    INSPECTIONS = "inspections"


# Kinds whose rows are one record each: what the store keeps of them is what was imported.
ONE_RECORD_PER_ROW = frozenset({DatasetKind.SCHOOLS, DatasetKind.LINKS, DatasetKind.POSTCODES})
# Kinds that replace what is served whole, so that a shorter file serves less (domain.shrink).
GUARDED_KINDS = {DatasetKind.LINKS: "links", DatasetKind.POSTCODES: "postcodes"}


@frozen(kw_only=True)
class ImportJob:
    """One file's import: what `ImportDataset.execute` takes, for `execute_together`."""

    kind: DatasetKind
    items: Iterable[Any]
    log: RejectLog
    record: DatasetRecord
    max_reject_ratio: float = MAX_REJECT_RATIO
    allow_shrink: bool = False
    source: SourceCheck | None = None


class ImportDataset:
    """- All or nothing: the new rows, the dataset record and the recomputed scores commit
      together; any failure (a bad layout, too many bad rows, a crash) leaves the previous
      dataset served.
    - A file that yields nothing to store (only a header, only closed establishments, only
      other geographies) is refused: an empty import would silently replace a served dataset
      with nothing.
    - Measures replace only the periods the file holds: last year's results stay, as history
      (a publisher's file is one year). The dataset record reports every period held. Ofsted's
      year-to-date inspection files likewise replace only the academic years they cover.
    - Real and demo data are never served together. The first real import of school data
      (anything but a postcode directory) into a database holding the bundled demo removes
      every demo dataset in the same transaction (the synthetic schools, results, inspections
      and links, and the demo's postcode subset, real OS rows but chosen for the invented
      schools) and reports which. The demo itself is refused by a database holding real data.
    - Nothing served shrinks by accident (domain.shrink): a register file that would stop
      serving a school it does not list as closed, or more than 5% of the schools served now,
      is refused; so is a links or postcode file that would serve more than 5% fewer records
      than the dataset it replaces. `allow_shrink` (the operator's `--allow-shrink`) lets it
      through. Replacing the bundled demo is never a shrink.
    - Rejected rows are reported with their line number and reason.
    - The counts are what happened: every row read is imported, skipped or rejected. Where a
      row is one record (a school, a link, a postcode) the rows imported are the records
      stored, and a row a later row of the same key replaced (a repeated URN or postcode)
      counts as skipped. Where a row gives several records (measures, inspections) the
      records stored are reported beside the rows.
    - The import time is the store's record of when this data arrived (`data_updated_at`).
    - Where the file came from is recorded with it: `source` (what refresh fetched) becomes
      the dataset's source, checked and changed at the import time; an import without one
      (a file given by hand) forgets any earlier source, which no longer describes the data.
    - Each import makes a data version (domain.versions) in its own transaction, recording
      what it changed school by school (domain.changes): an import that fails records
      nothing and leaves the version as it was. The first version of a database, and the
      first after real data replaced the bundled demo (the demo's history goes with it),
      record no changes: no version comes before them. Versions made more than
      `retention_days` ago are forgotten with their changes.
    - A results file's years each get its release (provisional, revised or final, as the
      file says; the publisher's release date is the file's extract date), replacing the
      release those years had.
    - A register file's every establishment, served or not, is kept with its name, status
      and dates: the facts a link shows of the school it leads to."""

    def __init__(
        self, *, store: DataStore, clock: Clock, retention_days: int = DEFAULT_RETENTION_DAYS
    ) -> None:
        self._store = store
        self._clock = clock
        self._retention_days = retention_days

    def execute(
        self,
        *,
        kind: DatasetKind,
        items: Iterable[Any],
        log: RejectLog,
        record: DatasetRecord,
        max_reject_ratio: float = MAX_REJECT_RATIO,
        allow_shrink: bool = False,
        source: SourceCheck | None = None,
    ) -> ImportReport:
        job = ImportJob(
            kind=kind,
            items=items,
            log=log,
            record=record,
            max_reject_ratio=max_reject_ratio,
            allow_shrink=allow_shrink,
            source=source,
        )
        return self.execute_together([job])[0]

    def execute_together(self, jobs: Sequence[ImportJob]) -> list[ImportReport]:
        """Several imports in one transaction and one data version (the bundled demo): all
        of them or none."""
        if not jobs:
            raise ValueError("nothing to import")
        reports: list[ImportReport] = []
        with self._store.transaction() as tx:
            previous = tx.last_version()
            watch = None if previous is None else ChangeWatch(tx)
            restart, names = False, []
            for job in jobs:
                removed = self._separate_from_demo(tx, job.kind, job.record)
                if removed:
                    watch, restart = None, True  # the demo's history goes with the demo
                elif watch is not None:
                    watch.before(job.kind.value, job.record.name)
                now = self._clock.now()  # (the import time: `data_updated_at`)
                reports.append(self._import(tx, job, removed, now))
                names += [*removed, reports[-1].dataset]
            tx.record_version(
                made_at=next_made_at(now, previous),
                datasets=datasets_of(names),
                changes=() if watch is None else watch.changes(),
                retain_since=retained_since(now, self._retention_days),
                restart=restart,
            )
        return reports

    def _import(
        self, tx: DataTransaction, job: ImportJob, removed: tuple[str, ...], now: dt.datetime
    ) -> ImportReport:
        kind, log, record, source = job.kind, job.log, job.record, job.source
        served = None if job.allow_shrink else self._served_before(tx, kind, record)
        stored, held_rows = self._write(tx, kind, job.items, record, log)
        self._enforce_reject_policy(log, job.max_reject_ratio, record.name)
        self._refuse_empty(log, stored, record.name)
        if served is not None:
            self._refuse_shrink(tx, kind, served, stored, log, record.name)
        if kind in (DatasetKind.SCHOOLS, DatasetKind.INSPECTIONS) or removed:
            self._apply_historic_grades(tx)
        if kind in (DatasetKind.SCHOOLS, DatasetKind.MEASURES):
            self._rescore(tx)
        if kind is DatasetKind.MEASURES:
            held = tx.measure_periods(dataset=record.name)
            record = attrs.evolve(record, period=", ".join(held) or record.period)
            held_rows = sum(held.values())
        tx.record_dataset(record=attrs.evolve(record, imported_at=now, row_count=held_rows))
        if source is not None:
            source = attrs.evolve(source, dataset=record.name, checked_at=now, changed_at=now)
        tx.set_source(dataset=record.name, check=source)
        given = log.rows_read - log.skipped - len(log.rejects)
        if kind in ONE_RECORD_PER_ROW:
            imported, skipped = stored, log.skipped + max(0, given - stored)
        else:
            imported, skipped = max(0, given), log.skipped
        return ImportReport(
            dataset=record.name,
            rows_read=log.rows_read,
            rows_imported=imported,
            rejects=tuple(log.rejects),
            skipped=skipped,
            removed_demo=removed,
            records_stored=stored,
        )

    @staticmethod
    def _separate_from_demo(
        tx: DataTransaction, kind: DatasetKind, record: DatasetRecord
    ) -> tuple[str, ...]:
        held = tx.datasets()
        if record.demo:
            real = sorted(r.name for r in held if not r.demo)
            if real:
                raise ImportRejected(
                    f"The bundled demo ({record.name}) is never mixed with real data, and this "
                    f"database holds real data ({', '.join(real)}): load the demo into an empty "
                    "database (another --db, or another SCHOOLDATA_HOME for the embedded one)."
                )
            return ()
        demo = sorted(r.name for r in held if r.demo)
        if not demo or kind is DatasetKind.POSTCODES:
            # A postcode directory is geography, not school data: real postcodes beside the
            # demo's invented schools is what the demo already is.
            return ()
        for name in demo:
            tx.remove_dataset(name=name)
        # While the demo is loaded the register and its links are the demo's (a real import
        # would have removed it): they go with it.
        tx.replace_schools(schools=())
        tx.replace_establishments(establishments=())
        tx.replace_links(links=())
        return tuple(demo)

    @staticmethod
    def _served_before(
        tx: DataTransaction, kind: DatasetKind, record: DatasetRecord
    ) -> set[Urn] | int | None:
        """What this import may not shrink, read before it writes: the register's URNs, or the
        record count of the links or postcode dataset it replaces; None when nothing real is
        served there (an empty database, the bundled demo, a demo import)."""
        if record.demo:
            return None
        if kind is DatasetKind.SCHOOLS:
            return tx.served_urns()  # (the demo's register is gone by now: _separate_from_demo)
        if kind in GUARDED_KINDS:
            held = next((r for r in tx.datasets() if r.name == record.name), None)
            return None if held is None or held.demo else held.row_count
        return None

    @staticmethod
    def _refuse_shrink(
        tx: DataTransaction,
        kind: DatasetKind,
        served: set[Urn] | int,
        stored: int,
        log: RejectLog,
        dataset: str,
    ) -> None:
        shrink: Shrink
        if isinstance(served, set):
            after = tx.served_urns()
            shrink = register_shrink(before=served, after=after, listed_closed=log.listed_closed)
        else:
            shrink = count_shrink(what=GUARDED_KINDS[kind], before=served, after=stored)
        if shrink.refused:
            raise ImportRejected(shrink.message(dataset))

    @staticmethod
    def _write(
        tx: DataTransaction,
        kind: DatasetKind,
        items: Iterable[Any],
        record: DatasetRecord,
        log: RejectLog,
    ) -> tuple[int, int]:
        """(rows this file gave, rows the dataset holds after it)."""
        if kind is DatasetKind.SCHOOLS:
            listed: dict[Urn, Establishment] = {}
            stored = tx.replace_schools(schools=_listing(items, listed))
            tx.replace_establishments(establishments={**listed, **log.listed}.values())
        elif kind is DatasetKind.POSTCODES:
            stored = tx.replace_postcodes(postcodes=items, source=record.name)
        elif kind is DatasetKind.LINKS:
            stored = tx.replace_links(links=items)
        elif kind is DatasetKind.INSPECTIONS and record.name in YEARLY_INSPECTION_DATASETS:
            return _replace_inspection_years(tx, record.name, items)
        elif kind is DatasetKind.INSPECTIONS:
            stored = tx.replace_inspections(dataset=record.name, records=items)
        else:
            periods: set[str] = set()
            stored = tx.replace_measures(dataset=record.name, records=_periods(items, periods))
            tx.set_releases(
                dataset=record.name,
                releases=[
                    Release(
                        dataset=record.name,
                        period=period,
                        status=log.releases.get(period),
                        released=record.extract_date,
                    )
                    for period in sorted(periods)
                ],
            )
        return stored, stored

    @staticmethod
    def _enforce_reject_policy(log: RejectLog, ratio: float, dataset: str) -> None:
        allowed = max(MIN_REJECTS_TOLERATED, int(log.rows_read * ratio))
        if len(log.rejects) > allowed:
            first = "; ".join(f"line {n}: {why}" for n, why in log.rejects[:3])
            raise ImportRejected(
                f"{dataset}: {len(log.rejects)} of {log.rows_read} rows were invalid "
                f"(at most {allowed} tolerated); nothing was imported. First: {first}"
            )

    @staticmethod
    def _refuse_empty(log: RejectLog, stored: int, dataset: str) -> None:
        if stored == 0:
            raise ImportRejected(
                f"{dataset}: the file has nothing to import ({log.rows_read} rows read, "
                f"{log.skipped} skipped, {len(log.rejects)} invalid); nothing was imported "
                "and the current data is still served."
            )

    @staticmethod
    def _apply_historic_grades(tx: DataTransaction) -> None:
        """The newest graded Ofsted judgement from the inspection MI is each school's historic
        grade (it carries its date); the register's own grade stays where MI has none."""
        records = tx.inspections(datasets=GRADED_INSPECTION_DATASETS)
        tx.set_historic_grades(grades=latest_graded_outcomes(records))

    @staticmethod
    def _rescore(tx: DataTransaction) -> None:
        schools = list(tx.served_schools())
        measures = tx.measures(codes=set(HEADLINE_MEASURE.values()))
        tx.set_scores(scores=compute_scores(schools, measures))
