"""`schooldata refresh` wired: the refresh use case over the application's SQL store, with
httpx downloads and the database's own refresh lock. Its own module because only the refresh
command needs these adapters, and none of them is loaded until it runs."""

from __future__ import annotations

from schooldata.application.import_dataset import ImportDataset
from schooldata.application.publishers import Locations
from schooldata.application.refresh import RefreshSources
from schooldata.application.service import Application
from schooldata.ports.clock import Clock
from schooldata.ports.downloads import Downloader
from schooldata.settings import Settings, SettingsError


def build_refresh(
    app: Application,
    settings: Settings,
    *,
    clock: Clock | None = None,
    downloader: Downloader | None = None,
) -> RefreshSources:
    """`schooldata refresh` over the application's SQL store: the publishers' addresses from
    the settings, httpx for downloads, the database's own refresh lock. `clock` (whose date is
    "today" for GIAS) and `downloader` are for tests."""
    from schooldata.adapters.http.downloads import HttpDownloader
    from schooldata.adapters.importers.readers import ImporterFiles
    from schooldata.adapters.sql.refresh_lock import refresh_lock
    from schooldata.adapters.sql.store import SqlStore

    store = app.ports.store
    if not isinstance(store, SqlStore):
        raise SettingsError("refresh needs a database (sqlite:/// or postgresql://)")
    clock = clock or app.ports.clock
    return RefreshSources(
        import_dataset=ImportDataset(store=store, clock=clock),
        registry=app.ports.datasets,
        log=store,
        downloader=downloader or HttpDownloader(),
        files=ImporterFiles(),
        lock=refresh_lock(store),
        clock=clock,
        locations=Locations(
            gias_base_url=settings.gias_base_url, codepoint_url=settings.codepoint_url
        ),
    )
