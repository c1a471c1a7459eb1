"""Issue 54's acceptance, black-box on the embedded demo (SQLite, the production wiring):
note the data version, import a day of changes (a school closed, one opened, one renamed,
one converted with its links; a results year revised), and ask `/api/v1/changes`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient
from tests.support.demo_changes import (
    CLOSED,
    CONVERSION_DAY,
    CONVERTED,
    OPENED,
    RENAMED,
    RENAMED_TO,
    REVISED_YEAR,
    SUCCESSOR,
    a_day_of_changes,
    as_expected,
    expected_changes,
    import_links,
    pages,
)

from schooldata.adapters.memory.snapshot import SnapshotReader
from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap
from schooldata.domain.errors import ImportRejected
from schooldata.entrypoints.rest.app import create_app
from schooldata.settings import load_settings

BASE = "http://testserver.local"
API = f"{BASE}/api/v1"


class Day:
    def __init__(self, app: Application, client: TestClient[Any], key: str) -> None:
        self.app = app
        self.client = client
        self.headers = {"Authorization": f"Bearer {key}"}
        self.noted = ""
        self.results = Path()

    def get(self, path: str, **params: object) -> Any:
        return self.client.get(f"{API}{path}", params=params, headers=self.headers)

    def served(self) -> None:
        """The snapshot the answers come from, at the data version just committed."""
        snapshot = self.app.ports.datasets
        assert isinstance(snapshot, SnapshotReader)
        snapshot.check()

    def version(self) -> str:
        answer = self.get("/meta")
        assert answer.status_code == 200
        version: str = answer.json()["meta"]["data_version"]
        return version


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Day]:
    home = tmp_path_factory.mktemp("home")
    settings = load_settings(environ={}, home=home)
    app = bootstrap(settings)
    key = app.keys.create_key(organisation="portal", name="sync", plan="enterprise").key
    with TestClient(app=create_app(app, base_url=BASE), base_url=BASE) as client:
        found = Day(app, client, key)
        found.noted = found.version()
        found.results = a_day_of_changes(app, tmp_path_factory.mktemp("files"))
        found.served()
        yield found


def test_the_demo_is_one_data_version(day: Day) -> None:
    assert day.noted
    assert day.app.ports.changes.held_version(sequence=int(day.noted[-6:])) is not None


def test_the_changes_since_the_noted_version_are_exactly_the_days_paged_by_links(
    day: Day,
) -> None:
    first = f"{API}/changes?since={day.noted}&per_page=100"
    answers = list(pages(day.client.get, first, day.headers))
    items = [item for answer in answers for item in answer["data"]]
    assert len(answers) > 2  # paged
    assert {as_expected(item) for item in items} == expected_changes(day.results)
    assert len(items) == len(expected_changes(day.results))
    order = [(item["version"], item["urn"]) for item in items]
    assert order == sorted(order)  # version order, then URN order
    until = {answer["meta"]["until"] for answer in answers}
    assert until == {day.version()}  # every page up to the version page 1 was asked at
    total = answers[0]["meta"]["pagination"]["total"]
    assert total == len(items)


def test_each_item_names_its_version_and_time_and_an_update_its_fields(day: Day) -> None:
    answer = day.get("/changes", since=day.noted, kind="updated").json()
    (renamed,) = answer["data"]
    assert renamed["urn"] == RENAMED
    assert renamed["fields"] == ["name"]
    assert renamed["version"] > day.noted
    assert renamed["version_time"].endswith("Z")
    profile = day.get(f"/schools/{RENAMED}").json()["data"]
    assert profile["name"] == RENAMED_TO


def test_changes_are_filtered_by_kind_authority_and_phase(day: Day) -> None:
    closed = day.get("/changes", since=day.noted, kind="closed").json()["data"]
    assert [item["urn"] for item in closed] == [CLOSED, CONVERTED]
    nurseries = day.get("/changes", since=day.noted, phase="nursery").json()["data"]
    assert {(item["urn"], item["kind"]) for item in nurseries} == {
        (CLOSED, "closed"),
        (RENAMED, "updated"),
        (OPENED, "opened"),
    }
    kent = day.get("/changes", since=day.noted, local_authority="Kent").json()["data"]
    assert CLOSED in {item["urn"] for item in kent}
    assert RENAMED not in {item["urn"] for item in kent}


def test_since_the_current_version_is_an_empty_page(day: Day) -> None:
    answer = day.get("/changes", since=day.version())
    assert answer.status_code == 200
    body = answer.json()
    assert body["data"] == []
    assert body["meta"]["pagination"]["total"] == 0


def test_a_bad_since_is_400_and_an_expired_one_410_naming_the_oldest(day: Day) -> None:
    for bad in ("yesterday", "20260230T000000Z-000001", "20991231T000000Z-000001"):
        refused = day.get("/changes", since=bad)
        assert refused.status_code == 400, bad
        assert refused.json()["error"]["code"] == "invalid_parameter"
    expired = day.get("/changes", since="20000101T000000Z-000001")
    assert expired.status_code == 410
    error = expired.json()["error"]
    assert error["code"] == "since_expired"
    assert error["details"]["oldest"] == day.noted


def test_the_converted_schools_results_include_its_predecessors_years(day: Day) -> None:
    own = day.get(f"/schools/{SUCCESSOR}/results").json()["data"]
    assert "predecessors" not in own
    assert own["ks4"]["periods"] == []
    answer = day.get(f"/schools/{SUCCESSOR}/results", include_predecessors="true").json()
    (predecessor,) = answer["data"]["predecessors"]
    assert predecessor["urn"] == CONVERTED
    assert predecessor["status"] == "Closed"
    assert predecessor["via"] == {
        "urn": SUCCESSOR,
        "link_type": "Predecessor",
        "established": CONVERSION_DAY.isoformat(),
    }
    assert REVISED_YEAR in predecessor["ks4"]["periods"]
    releases = {(r["period"], r["dataset"]): r["status"] for r in predecessor["ks4"]["releases"]}
    assert releases[(REVISED_YEAR, "ks4_results")] == "revised"
    assert releases[(REVISED_YEAR, "ks4_information")] == "provisional"  # as its file says


def test_the_profile_links_name_the_closed_predecessor(day: Day) -> None:
    (link,) = day.get(f"/schools/{SUCCESSOR}").json()["data"]["links"]
    assert (link["urn"], link["link_type"], link["status"]) == (CONVERTED, "Predecessor", "Closed")
    assert link["closed"] is not None


def test_a_failed_import_records_nothing_and_leaves_the_version(day: Day, tmp_path: Path) -> None:
    before = day.version()
    empty = tmp_path / "links_edubasealldata20260902.csv"
    empty.write_text('"URN","LinkURN","LinkName","LinkType","LinkEstablishedDate"\r\n')
    with pytest.raises(ImportRejected):
        import_links(day.app, empty)
    day.served()
    assert day.version() == before
    assert day.get("/changes", since=before).json()["data"] == []
