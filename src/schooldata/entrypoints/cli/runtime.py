"""What the CLI needs from the outside world, handed in by `schooldata.__main__`.

The CLI may not name bootstrap or any adapter (import-linter), so the top layer builds a
`CliRuntime` of plain callables and passes it as click's `obj`. Tests pass one whose
`build_app` returns an in-memory application.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from attrs import frozen

from schooldata.application.import_dataset import DatasetKind
from schooldata.application.refresh import RefreshSources
from schooldata.application.service import Application
from schooldata.domain.dataset import DatasetRecord, ImportReport
from schooldata.ports.imports import Progress, RejectLog
from schooldata.settings import Settings


class SettingsLoader(Protocol):
    """`schooldata.settings.load_settings`: environment (+ `SCHOOLDATA_CONFIG`) and overrides."""

    def __call__(self, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings: ...


class AppBuilder(Protocol):
    """`schooldata.bootstrap.bootstrap`: the application over the configured database. Only
    with `create_database` may a database that does not exist yet be created (imports,
    `db upgrade`); the embedded demo is built on first use either way."""

    def __call__(
        self,
        settings: Settings,
        *,
        create_database: bool,
        notify: Callable[[str], None] | None = None,
    ) -> Application: ...


class Server(Protocol):
    """`schooldata.bootstrap.serve`: prepares the database, then serves until stopped;
    `notify` hears each long step and `Serving on ...` once the server answers."""

    def __call__(self, settings: Settings, *, notify: Callable[[str], None]) -> None: ...


class Parse(Protocol):
    def __call__(
        self,
        source: Sequence[Path],
        log: RejectLog,
        *,
        progress: Progress | None = None,
        period: str | None = None,
    ) -> Iterator[Any]: ...


class ImporterSpec(Protocol):
    """One entry of `schooldata.adapters.importers.registry.IMPORTERS`."""

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> DatasetKind: ...

    @property
    def parse(self) -> Parse: ...

    @property
    def periodic(self) -> bool:
        """Takes `--period`: its files may not say which year they are (older DfE tables)."""
        ...

    def record_for(
        self, source: Sequence[Path], *, extract_date: dt.date | None = None
    ) -> DatasetRecord:
        """The provenance record of importing these files (its `imported_at` is replaced)."""
        ...


class RefreshBuilder(Protocol):
    """`schooldata.bootstrap.build_refresh`: the refresh use case over the application's
    database, with the publishers' addresses from the settings."""

    def __call__(self, app: Application, settings: Settings) -> RefreshSources: ...


@frozen(kw_only=True)
class CliRuntime:
    """Callables only: nothing is built until a command needs it."""

    load_settings: SettingsLoader
    build_app: AppBuilder
    serve: Server
    upgrade: Callable[[Settings], None]
    importers: Callable[[], Mapping[str, ImporterSpec]]
    load_sample: Callable[[Application], Iterable[ImportReport]]
    refresh: RefreshBuilder | None = None  # a build (or a test) without it says so
