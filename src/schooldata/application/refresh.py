"""Refresh: the publishers' newest files, imported without a person (`schooldata refresh`)."""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable, Collection
from typing import Protocol

import attrs
from attrs import frozen

from schooldata.application.import_dataset import ImportDataset
from schooldata.application.publishers import (
    PUBLICATION_NAMES,
    PUBLICATIONS,
    Candidate,
    Locations,
    Publication,
)
from schooldata.domain.dataset import SourceCheck
from schooldata.domain.errors import (
    DataUnavailable,
    DownloadFailed,
    ImportRejected,
    InvalidParameter,
)
from schooldata.ports.clock import Clock
from schooldata.ports.datasets import DatasetRegistry, SourceLog
from schooldata.ports.downloads import (
    ByteProgress,
    Downloaded,
    Downloader,
    NotModified,
    NotPublished,
    Published,
    Validators,
)
from schooldata.ports.imports import DatasetFiles, Progress, RejectLog
from schooldata.ports.locks import RefreshLock


class Status(enum.Enum):
    UNCHANGED = "unchanged"
    IMPORTED = "imported"
    WOULD_DOWNLOAD = "would download"  # --dry-run
    REFUSED = "refused"  # the file was had, and an import guard refused it
    UNREACHABLE = "unreachable"  # no whole file could be had
    FAILED = "failed"  # the database failed


@frozen(kw_only=True)
class SourceOutcome:
    """What happened to one publication: `detail` says why (refused, unreachable, failed) or
    what a dry run would do."""

    source: str
    status: Status
    url: str | None = None
    publisher_date: str | None = None  # ISO date, as the publisher dates the file
    rows: int | None = None
    detail: str = ""
    removed_demo: tuple[str, ...] = ()  # the bundled demo's datasets this import replaced

    @property
    def ok(self) -> bool:
        return self.status in (Status.UNCHANGED, Status.IMPORTED, Status.WOULD_DOWNLOAD)


@frozen
class RefreshReport:
    outcomes: tuple[SourceOutcome, ...]
    already_running: bool = False

    @property
    def ok(self) -> bool:
        """Every source current or imported (or another refresh is at it)."""
        return all(outcome.ok for outcome in self.outcomes)


class RefreshProgress(Protocol):
    """How a face shows a refresh going: bytes downloaded, then rows imported."""

    def downloading(self, source: str, url: str) -> ByteProgress: ...

    def importing(self, source: str) -> Progress: ...


class _Silent:
    def downloading(self, source: str, url: str) -> ByteProgress:
        return lambda received, total: None

    def importing(self, source: str) -> Progress:
        return lambda rows: None


def select(only: Collection[str] | None) -> tuple[Publication, ...]:
    """The publications named (all when None), in their fixed order; an unknown name is an
    invalid parameter (exit 2 on the command line)."""
    if only is None:
        return PUBLICATIONS
    unknown = sorted(set(only) - set(PUBLICATION_NAMES))
    if unknown or not only:
        raise InvalidParameter(
            "only",
            f"--only takes one or more of {', '.join(PUBLICATION_NAMES)}; "
            f"got {', '.join(repr(u) for u in unknown) or 'none'}.",
        )
    return tuple(p for p in PUBLICATIONS if p.name in only)


class RefreshSources:
    """- One refresh at a time per database: a second finds the lock held and does nothing
      (`already_running`), on SQLite and PostgreSQL alike.
    - GIAS: today's file (the Clock's UTC date), then each earlier day back to
      publishers.LOOKBACK_DAYS, never before the file imported last; the first published one
      is the newest. Code-Point: its one address, redirects followed.
    - A file is skipped as `unchanged` when the publisher answers 304 to a conditional request
      with the validators (ETag, Last-Modified) kept from the last fetch of that address, or
      when its publisher date and SHA-256 are those of the file imported last: only the check
      time (and the validators) move, and the served data and its version stay.
    - Anything else is imported through ImportDataset, with every guard an import has (a
      file that would shrink what is served is refused, as a cut-off one is), and recorded
      with the dataset: address, publisher date, SHA-256, checked and changed at.
    - Each source stands alone: one refused or unreachable leaves the others to be done.
    - A dry run looks (no body downloaded, nothing written, no lock) and says what it would do.
    """

    def __init__(
        self,
        *,
        import_dataset: ImportDataset,
        registry: DatasetRegistry,
        log: SourceLog,
        downloader: Downloader,
        files: DatasetFiles,
        lock: RefreshLock,
        clock: Clock,
        locations: Locations,
    ) -> None:
        self._import = import_dataset
        self._registry = registry
        self._log = log
        self._downloader = downloader
        self._files = files
        self._lock = lock
        self._clock = clock
        self._locations = locations

    def execute(
        self,
        *,
        only: Collection[str] | None = None,
        dry_run: bool = False,
        progress: RefreshProgress | None = None,
    ) -> RefreshReport:
        chosen = select(only)
        shown = progress or _Silent()
        if dry_run:
            return RefreshReport(tuple(self._outcome(p, self._look) for p in chosen))
        with self._lock.hold() as held:
            if not held:
                return RefreshReport((), already_running=True)
            refresh = functools.partial(self._refresh, progress=shown)
            return RefreshReport(tuple(self._outcome(p, refresh) for p in chosen))

    @staticmethod
    def _outcome(
        publication: Publication, act: Callable[[Publication], SourceOutcome]
    ) -> SourceOutcome:
        name = publication.name
        try:
            return act(publication)
        except ImportRejected as refused:
            return SourceOutcome(source=name, status=Status.REFUSED, detail=refused.message)
        except DownloadFailed as failed:
            return SourceOutcome(source=name, status=Status.UNREACHABLE, detail=failed.message)
        except DataUnavailable as down:
            return SourceOutcome(source=name, status=Status.FAILED, detail=down.message)

    # ---- one source

    def _held(self, publication: Publication) -> SourceCheck | None:
        return next((s for s in self._registry.sources() if s.dataset == publication.dataset), None)

    def _candidates(self, publication: Publication, held: SourceCheck | None) -> list[Candidate]:
        return publication.candidates(
            self._locations,
            today=self._clock.now().date(),
            since=None if held is None else held.publisher_date,
        )

    def _refresh(self, publication: Publication, progress: RefreshProgress) -> SourceOutcome:
        held = self._held(publication)
        candidates = self._candidates(publication, held)
        for candidate in candidates:
            url = candidate.url
            validators = _validators(held, url)
            with self._downloader.download(
                url=url, validators=validators, progress=progress.downloading(publication.name, url)
            ) as got:
                if isinstance(got, NotPublished):
                    continue
                if isinstance(got, NotModified):
                    return self._not_modified(publication, held, validators, url)
                try:
                    return self._take(publication, held, url, got, progress)
                except ImportRejected as refused:  # named by its address, as imports by file
                    raise ImportRejected(f"{url}: {refused.message}") from refused
        raise DownloadFailed(_nothing_published(publication, candidates))

    def _not_modified(
        self,
        publication: Publication,
        held: SourceCheck | None,
        validators: Validators | None,
        url: str,
    ) -> SourceOutcome:
        if held is None or validators is None:
            raise DownloadFailed(
                f"{url} answered 304 Not Modified to a request without validators."
            )
        self._log.record_check(check=attrs.evolve(held, checked_at=self._clock.now()))
        return _unchanged(publication, held)

    def _take(
        self,
        publication: Publication,
        held: SourceCheck | None,
        url: str,
        got: Downloaded,
        progress: RefreshProgress,
    ) -> SourceOutcome:
        record = self._files.describe(reader=publication.reader, path=got.path)
        if record.name != publication.dataset:
            raise ImportRejected(f"not {publication.dataset} but {record.name}; nothing imported.")
        date = record.extract_date
        now = self._clock.now()
        check = SourceCheck(
            dataset=publication.dataset,
            source_url=url,
            publisher_date=date,
            sha256=got.sha256,
            checked_at=now,
            changed_at=now,
            etag=got.validators.etag,
            last_modified=got.validators.last_modified,
        )
        if held is not None and (held.sha256, held.publisher_date) == (got.sha256, date):
            self._log.record_check(check=attrs.evolve(check, changed_at=held.changed_at))
            return _unchanged(publication, held)
        if held is not None and held.publisher_date and date and date < held.publisher_date:
            raise ImportRejected(
                f"dated {date}, before the file imported last ({held.publisher_date}); "
                "nothing imported."
            )
        log = RejectLog()
        items = self._files.parse(
            reader=publication.reader,
            path=got.path,
            log=log,
            progress=progress.importing(publication.name),
        )
        report = self._import.execute(
            kind=publication.kind, items=items, log=log, record=record, source=check
        )
        return SourceOutcome(
            source=publication.name,
            status=Status.IMPORTED,
            url=url,
            publisher_date=_iso(date),
            rows=report.rows_imported,
            removed_demo=report.removed_demo,
        )

    def _look(self, publication: Publication) -> SourceOutcome:
        """The dry run of one source: what `_refresh` would find, reading no body."""
        held = self._held(publication)
        candidates = self._candidates(publication, held)
        for candidate in candidates:
            validators = _validators(held, candidate.url)
            found = self._downloader.probe(url=candidate.url, validators=validators)
            if isinstance(found, NotPublished):
                continue
            if isinstance(found, NotModified) and held is not None:
                return _unchanged(publication, held)
            if isinstance(found, Published | NotModified):
                return _would_download(publication, held, candidate)
        raise DownloadFailed(_nothing_published(publication, candidates))


def _validators(held: SourceCheck | None, url: str) -> Validators | None:
    """The validators of the last fetch, for that same address only."""
    if held is None or held.source_url != url or not (held.etag or held.last_modified):
        return None
    return Validators(etag=held.etag, last_modified=held.last_modified)


def _unchanged(publication: Publication, held: SourceCheck) -> SourceOutcome:
    return SourceOutcome(
        source=publication.name,
        status=Status.UNCHANGED,
        url=held.source_url,
        publisher_date=_iso(held.publisher_date),
    )


def _would_download(
    publication: Publication, held: SourceCheck | None, candidate: Candidate
) -> SourceOutcome:
    if held is None:
        then = "and import it"
    else:
        then = f"and import it unless it is the file imported last ({_iso(held.publisher_date)})"
    return SourceOutcome(
        source=publication.name,
        status=Status.WOULD_DOWNLOAD,
        url=candidate.url,
        publisher_date=_iso(candidate.date),
        detail=then,
    )


def _nothing_published(publication: Publication, candidates: list[Candidate]) -> str:
    if len(candidates) == 1:
        return f"{candidates[0].url} is not published (404)."
    dates = [c.date for c in candidates if c.date is not None]
    return (
        f"no {publication.daily_prefix}YYYYMMDD.csv is published for any day from "
        f"{max(dates)} back to {min(dates)} ({candidates[-1].url} and the rest: 404)."
    )


def _iso(date: object) -> str | None:
    return None if date is None else str(date)
