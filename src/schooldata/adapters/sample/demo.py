"""The embedded demo: the bundled synthetic dataset, imported through the real importers.

The files in `data/` are in the publishers' own formats (see data/README.md), so building the
demo exercises exactly the code paths a real import uses. Every dataset is recorded as part of
the demo, and as synthetic except the Code-Point subset (real OS rows, chosen for the invented
schools): the first real import of school data removes the whole demo (see ImportDataset), and
the demo is never loaded beside real data. Each source carries the real publisher's address.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from schooldata.adapters.importers.codepoint import parse_codepoint
from schooldata.adapters.importers.files.sources import Source
from schooldata.adapters.importers.gias import parse_gias
from schooldata.adapters.importers.ks4_info import parse_ks4_information
from schooldata.adapters.importers.ofsted import parse_ofsted
from schooldata.adapters.importers.performance.datasets import TABLES
from schooldata.adapters.importers.performance.reader import parse_table
from schooldata.adapters.importers.registry import IMPORTERS
from schooldata.application.import_dataset import DatasetKind, ImportJob
from schooldata.application.service import Application
from schooldata.domain.dataset import DatasetRecord, ImportReport
from schooldata.ports.datasets import DatasetRegistry
from schooldata.ports.imports import Progress, RejectLog

DATA = Path(__file__).parent / "data"
Parser = Callable[..., Iterator[Any]]

# format -> (parser, kind). Postcodes first (nothing depends on them at import, but a demo
# that can answer postcode questions as soon as schools appear is nicer), schools before the
# measures that are scored against them.
LOAD_ORDER: dict[str, tuple[Parser, DatasetKind]] = {
    "codepoint_open": (parse_codepoint, DatasetKind.POSTCODES),
    "gias_establishments": (parse_gias, DatasetKind.SCHOOLS),
    "ks4_information": (parse_ks4_information, DatasetKind.MEASURES),
    "ofsted_graded": (parse_ofsted, DatasetKind.INSPECTIONS),
    "ofsted_report_card": (parse_ofsted, DatasetKind.INSPECTIONS),
    **{
        name: (
            lambda source, log, *, progress=None, _s=spec: parse_table(
                _s, source, log, progress=progress
            ),
            DatasetKind.MEASURES,
        )
        for name, spec in TABLES.items()
    },
}


def manifest() -> list[dict[str, Any]]:
    document = json.loads((DATA / "manifest.json").read_text("utf-8"))
    datasets: list[dict[str, Any]] = document["datasets"]
    return sorted(
        (d for d in datasets if d["format"] in LOAD_ORDER),
        key=lambda d: list(LOAD_ORDER).index(d["format"]),
    )


# format -> the importer of the publisher's file it imitates (whose record has its address).
_IMITATES = {
    "codepoint_open": "postcodes",
    "gias_establishments": "gias",
    "ks4_information": "ks4-info",
    "ofsted_graded": "ofsted",
    "ofsted_report_card": "ofsted",
    "ks4_results": "ks4-results",
    "ks2_results": "ks2-results",
    "ks5_results": "ks5-results",
    "ks5_destinations": "ks5-destinations",
    "admissions": "admissions",
    "finance": "finance",
}


def publisher_url(dataset_format: str) -> str | None:
    """Where the real publisher publishes the file a demo dataset imitates."""
    importer = IMPORTERS.get(_IMITATES.get(dataset_format, ""))
    return None if importer is None else importer.template.url


def _record(entry: dict[str, Any]) -> DatasetRecord:
    periods = entry.get("period") or []
    synthetic = bool(entry.get("synthetic", True))
    title = entry["dataset"] + (" — SYNTHETIC DEMO DATA, not real schools" if synthetic else "")
    return DatasetRecord(
        name=entry["format"],
        title=title,
        publisher=entry["publisher"],
        licence=entry["licence"],
        attribution=entry["attribution"],
        url=publisher_url(entry["format"]),
        extract_date=dt.date.fromisoformat(entry["extract_date"])
        if entry.get("extract_date")
        else None,
        imported_at=dt.datetime(1970, 1, 1, tzinfo=dt.UTC),
        period=", ".join(periods) if isinstance(periods, list) else str(periods),
        synthetic=synthetic,
        demo=True,
    )


def load_demo(
    app: Application, *, progress: Callable[[str, int], None] | None = None
) -> list[ImportReport]:
    """Import every bundled dataset in one all-or-nothing transaction: the demo is one data
    version (the first of its database)."""
    jobs = []
    for entry in manifest():
        parser, kind = LOAD_ORDER[entry["format"]]
        source: Source = DATA / entry["file"]
        log = RejectLog()
        step: Progress | None = None
        if progress is not None:
            name = entry["format"]
            step = lambda rows, _n=name: progress(_n, rows)  # noqa: E731
        items = parser(source, log, progress=step)
        jobs.append(ImportJob(kind=kind, items=items, log=log, record=_record(entry)))
    return app.import_dataset.execute_together(jobs)


def demo_needed(registry: DatasetRegistry) -> bool:
    """Not built yet: no demo register, and nothing real imported (the demo is never mixed
    with real data, and is gone once real school data arrived)."""
    held = registry.current()
    if any(not r.demo for r in held):
        return False
    return not any(r.name == "gias_establishments" for r in held)


def demo_loaded(registry: DatasetRegistry) -> bool:
    return not demo_needed(registry)


def ensure_demo(
    app: Application,
    *,
    registry: DatasetRegistry,
    lock_path: Path,
    notify: Callable[[str], None] | None = None,
    where: Path | None = None,
) -> bool:
    """Build the demo once; concurrent first starts (several workers) wait for one builder.
    Returns True when this call built it. `registry` is read as stored (the database, not a
    snapshot of it), so what is served afterwards is first read once the demo is whole.
    `notify` hears that it is being built (the only step of a first start that takes more
    than a moment) and when it is done."""
    if demo_loaded(registry):
        return False
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if demo_loaded(registry):
                return False
            started = time.monotonic()
            if notify is not None:
                place = "" if where is None else f" in {where}"
                notify(f"Building the synthetic demo database{place} (first use only, ~10 s)...")
            load_demo(app)
            if notify is not None:
                notify(f"Demo database built in {time.monotonic() - started:.0f} s.")
            return True
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
