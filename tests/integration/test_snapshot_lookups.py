"""The serving snapshot over every store: the same postcode, dataset and link answers, and
imports are seen once the data version moves (which every import, postcodes included, does)."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

import attrs
import pytest
from tests.integration.conftest import Store, fixture_links, fixture_postcodes, load

from schooldata.adapters.memory.snapshot import SnapshotReader
from schooldata.adapters.sql import SqlStore
from schooldata.adapters.system import SystemClock
from schooldata.application.import_dataset import DatasetKind, ImportDataset
from schooldata.application.locate import locate_parsed
from schooldata.application.search_schools import PublicSearchRequest
from schooldata.bootstrap import bootstrap
from schooldata.domain.dataset import DatasetRecord
from schooldata.domain.errors import DomainError, UnknownPostcode
from schooldata.domain.geo import Location
from schooldata.domain.links import EstablishmentLink
from schooldata.domain.postcode import outward_of, parse_postcode
from schooldata.domain.urn import Urn
from schooldata.ports.imports import RejectLog
from schooldata.settings import load_settings

KEY_SECRET = "integration-test-secret-0123456789abcdef"
UNKNOWN = ["ZZ9 9ZZ", "SW1A 9ZZ", "ZZ9", "E1", "A9A"]
MALFORMED = ["", "S", "SW1A 1A", "12345", "SW1A-1AA", "ß1", "SW1A 1AAA"]


def every_postcode_shape() -> list[str]:
    compacts = {compact for rows in fixture_postcodes().values() for compact, _ in rows}
    full = sorted(compacts)
    outward = sorted({outward_of(c) for c in compacts})
    spaced = [f"{c[:-3].lower()} {c[-3:].lower()}" for c in full]
    return full + spaced + outward + UNKNOWN + MALFORMED


def outcome(postcodes: object, raw: str) -> object:
    try:
        return locate_parsed(postcodes, parse_postcode(raw), raw)  # type: ignore[arg-type]
    except DomainError as error:
        return type(error)


def postcode_record(name: str) -> DatasetRecord:
    return DatasetRecord(
        name=name,
        title="Postcodes (test)",
        publisher="Test",
        licence="OGL",
        attribution="Test",
        url=None,
        extract_date=dt.date(2026, 11, 1),
        imported_at=dt.datetime(2026, 11, 1, tzinfo=dt.UTC),
    )


def import_postcodes(store: object, rows: list[tuple[str, Location]], source: str) -> None:
    """Through the real import use case, as `schooldata import` does."""
    ImportDataset(store=store, clock=SystemClock()).execute(  # type: ignore[arg-type]
        kind=DatasetKind.POSTCODES,
        items=iter(rows),
        log=RejectLog(),
        record=postcode_record(source),
    )


def test_the_snapshot_answers_every_postcode_shape_as_the_store_does(
    loaded_store: Store,
) -> None:
    snapshot = SnapshotReader(loaded_store)  # type: ignore[arg-type]
    try:
        for raw in every_postcode_shape():
            assert outcome(snapshot, raw) == outcome(loaded_store, raw), raw
        assert list(snapshot.current()) == loaded_store.current()
        assert snapshot.local_authorities() == loaded_store.local_authorities()
    finally:
        snapshot.close()


def test_a_postcode_import_moves_the_data_version_and_the_snapshot_follows_it(
    store: Store,
) -> None:
    snapshot = SnapshotReader(store, refresh_seconds=0.02)  # type: ignore[arg-type]
    try:
        before = store.version()
        assert outcome(snapshot, "ZZ9 9ZZ") is UnknownPostcode
        assert outcome(snapshot, "ZZ9") is UnknownPostcode
        assert not snapshot.current()

        import_postcodes(store, [("ZZ99ZZ", Location(55.0, -3.0))], "codepoint_open")
        assert store.version() != before
        wait_for(lambda: outcome(snapshot, "ZZ9 9ZZ") == Location(55.0, -3.0))
        assert outcome(snapshot, "zz9") == Location(55.0, -3.0)
        assert [r.name for r in snapshot.current()] == ["codepoint_open"]

        # A re-import without it: the postcode is unknown again.
        import_postcodes(store, [("ZZ99ZY", Location(55.1, -3.1))], "codepoint_open")
        wait_for(lambda: outcome(snapshot, "ZZ9 9ZZ") is UnknownPostcode)
        assert outcome(snapshot, "ZZ9") == Location(55.1, -3.1)
    finally:
        snapshot.close()


def wait_for(condition: object, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "the import was never seen"
        time.sleep(0.02)


def test_the_production_app_serves_a_postcode_imported_by_another_process(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'schooldata.sqlite3'}"
    settings = load_settings({}, database_url=url, key_secret=KEY_SECRET, home=tmp_path / "home")
    app = bootstrap(settings)
    try:
        assert isinstance(app.ports.postcodes, SnapshotReader)
        assert isinstance(app.ports.datasets, SnapshotReader)
        near = PublicSearchRequest(postcode="ZZ9 9ZZ", radius_miles=2)
        with pytest.raises(UnknownPostcode):
            app.search_schools.execute(near)
        assert not app.ports.datasets.current()

        other = SqlStore(url)  # as `schooldata import` in another process
        try:
            import_postcodes(other, [("ZZ99ZZ", Location(55.0, -3.0))], "codepoint_open")
        finally:
            other.close()

        deadline = time.monotonic() + 5.0
        while True:
            try:
                answer = app.search_schools.execute(near)
                break
            except UnknownPostcode:
                assert time.monotonic() < deadline, "the import was never seen"
                time.sleep(0.05)
        assert answer.page.total == 0
        assert [r.name for r in app.ports.datasets.current()] == ["codepoint_open"]
    finally:
        app.ports.store.close()  # type: ignore[attr-defined]


def test_the_snapshot_gives_every_served_schools_links_as_the_store_does(
    loaded_store: Store,
) -> None:
    snapshot = SnapshotReader(loaded_store)  # type: ignore[arg-type]
    try:
        served = [school.urn for school in loaded_store.iter_all()]
        linked = [urn for urn in served if loaded_store.links_for(urn=urn)]
        assert linked, "the fixture serves schools with links"
        for urn in served:
            assert snapshot.links_for(urn=urn) == loaded_store.links_for(urn=urn), urn
    finally:
        snapshot.close()


def test_a_links_import_moves_the_data_version_and_the_snapshot_follows_it(
    store: Store,
) -> None:
    load(store)
    snapshot = SnapshotReader(store, refresh_seconds=0.02)  # type: ignore[arg-type]
    try:
        urn = Urn(100030)
        assert snapshot.links_for(urn=urn) == store.links_for(urn=urn)
        added = EstablishmentLink(urn, Urn(100001), "A new link", "Successor", None)
        ImportDataset(store=store, clock=SystemClock()).execute(  # type: ignore[arg-type]
            kind=DatasetKind.LINKS,
            items=iter([*fixture_links(), added]),
            log=RejectLog(),
            record=attrs.evolve(postcode_record("gias_links"), title="Links (test)"),
        )
        wait_for(lambda: added in snapshot.links_for(urn=urn))
        assert snapshot.links_for(urn=urn) == store.links_for(urn=urn)
    finally:
        snapshot.close()
