"""Two instances of the service over one PostgreSQL database answer `/api/v1/changes` alike:
the versions and their changes are read from the database, never from one process's memory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient
from sqlalchemy import Engine
from tests.integration.conftest import postgres_schema
from tests.support.demo_changes import a_day_of_changes, expected_changes, pages

from schooldata.adapters.memory.snapshot import SnapshotReader
from schooldata.adapters.sample.demo import load_demo
from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap
from schooldata.entrypoints.rest.app import create_app
from schooldata.settings import load_settings

pytestmark = pytest.mark.postgres

BASE = "http://testserver.local"
SECRET = "two-instances-share-one-key-secret-of-40-chars"


def instance(url: str, home: Path) -> Application:
    return bootstrap(load_settings(environ={}, home=home, database_url=url, key_secret=SECRET))


def served(app: Application) -> None:
    snapshot = app.ports.datasets
    assert isinstance(snapshot, SnapshotReader)
    snapshot.check()


def without_request_id(body: dict[str, Any]) -> dict[str, Any]:
    return {**body, "meta": {k: v for k, v in body["meta"].items() if k != "request_id"}}


@pytest.fixture(scope="module")
def url(postgres_admin: Engine) -> Iterator[str]:
    with postgres_schema(postgres_admin) as schema_url:
        yield schema_url


def test_two_instances_on_one_database_list_the_same_changes(url: str, tmp_path: Path) -> None:
    first, second = instance(url, tmp_path / "one"), instance(url, tmp_path / "two")
    load_demo(first)
    served(first)
    key = first.keys.create_key(organisation="portal", name="sync", plan="enterprise").key
    headers = {"Authorization": f"Bearer {key}"}
    with TestClient(app=create_app(first, base_url=BASE), base_url=BASE) as one:
        noted = one.get(f"{BASE}/api/v1/meta", headers=headers).json()["meta"]["data_version"]
        results = a_day_of_changes(first, tmp_path)
        served(first)
        served(second)
        start = f"{BASE}/api/v1/changes?since={noted}&per_page=100"
        with TestClient(app=create_app(second, base_url=BASE), base_url=BASE) as two:
            seen_one = [without_request_id(b) for b in pages(one.get, start, headers)]
            seen_two = [without_request_id(b) for b in pages(two.get, start, headers)]
    assert seen_one == seen_two
    listed = {(i["urn"], i["kind"]) for body in seen_one for i in body["data"]}
    assert listed == {(urn, kind) for urn, kind, _ in expected_changes(results)}
    assert seen_two[0]["meta"]["data_version"] == seen_two[0]["meta"]["until"]
