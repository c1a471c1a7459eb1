"""`schooldata` / `python -m schooldata`: the CLI with the production wiring injected.

The top layer: the only place that hands the CLI the composition root and the adapters it
may not import itself. Heavy modules (SQLAlchemy, pyproj, uvicorn) load only when a command
needs them, so `--help` and completion stay fast.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from schooldata.application.refresh import RefreshSources
from schooldata.application.service import Application
from schooldata.domain.dataset import ImportReport
from schooldata.domain.errors import ImportRejected
from schooldata.entrypoints.cli.app import cli
from schooldata.entrypoints.cli.runtime import CliRuntime, ImporterSpec
from schooldata.settings import Settings, load_settings

DEMO_MODULE = "schooldata.adapters.sample.demo"


def _build_app(
    settings: Settings, *, create_database: bool, notify: Callable[[str], None] | None = None
) -> Application:
    from schooldata.bootstrap import bootstrap

    return bootstrap(settings, create_database=create_database, notify=notify)


def _serve(settings: Settings, *, notify: Callable[[str], None]) -> None:
    from schooldata.bootstrap import serve

    # A server answers questions: it never creates the database it is pointed at.
    serve(settings, create_database=False, notify=notify)


def _upgrade(settings: Settings) -> None:
    from schooldata.adapters.sql.store import SqlStore

    store = SqlStore(settings.effective_database_url)
    try:
        store.upgrade()
    finally:
        store.close()


def _refresh(app: Application, settings: Settings) -> RefreshSources:
    from schooldata.bootstrap import build_refresh

    return build_refresh(app, settings)


def _importers() -> Mapping[str, ImporterSpec]:
    from schooldata.adapters.importers.registry import IMPORTERS

    return IMPORTERS


def _load_sample(app: Application) -> Iterable[ImportReport]:
    # Looked up by name: the bundled sample is an optional part of a build.
    try:
        demo: Any = importlib.import_module(DEMO_MODULE)
    except ModuleNotFoundError:
        raise ImportRejected("The bundled sample dataset is not part of this build.") from None
    result = demo.load_demo(app)
    if result is None:
        return []
    if isinstance(result, ImportReport):
        return [result]
    return [r for r in result if isinstance(r, ImportReport)]


def runtime() -> CliRuntime:
    return CliRuntime(
        load_settings=load_settings,
        build_app=_build_app,
        serve=_serve,
        upgrade=_upgrade,
        importers=_importers,
        load_sample=_load_sample,
        refresh=_refresh,
    )


def main() -> None:
    cli.main(prog_name="schooldata", obj=runtime())


if __name__ == "__main__":
    main()
