"""Answers served from the synthetic demo say so: `X-Data-Source: synthetic-demo` on every HTTP
answer (REST of both tiers, errors, the operational routes, MCP), and `synthetic: true` on the
open public record; real data carries neither. Deciding it never waits on the event loop."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from litestar.testing import TestClient
from tests.conftest import issue_key
from tests.e2e.test_demo_labelled import served as with_data
from tests.e2e.test_mcp_support import TEST_BASE_URL as BASE_URL
from tests.e2e.test_mcp_support import McpHttp
from tests.support.http import bearer

from schooldata.application.about import About
from schooldata.application.import_dataset import DatasetKind
from schooldata.application.service import Application
from schooldata.bootstrap import build_asgi
from schooldata.domain.errors import DataUnavailable
from schooldata.domain.plans import PlanCatalogue
from schooldata.domain.school import School
from schooldata.domain.urn import Urn
from schooldata.entrypoints.rest.edge import labels_synthetic_data
from schooldata.entrypoints.wire.public import school_record
from schooldata.ports.imports import RejectLog
from schooldata.ports.keys import WouldBlock
from schooldata.settings import load_settings

HEADER = "x-data-source"


@pytest.fixture(params=[True, False], ids=["demo", "real"])
def synthetic(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


@pytest.fixture
def app(synthetic: bool) -> Application:
    return with_data(synthetic=synthetic)


@pytest.fixture
def client(app: Application, tmp_path: Path) -> Iterator[TestClient]:  # type: ignore[type-arg]
    asgi = build_asgi(app, load_settings(environ={}, home=tmp_path, base_url=BASE_URL))
    with TestClient(app=asgi, base_url="http://testserver.local") as client:
        yield client


def labelled(response: object) -> bool | None:
    """True: the demo's label; None: no label (any other value fails)."""
    value = response.headers.get(HEADER)  # type: ignore[attr-defined]
    assert value in (None, "synthetic-demo"), value
    return None if value is None else True


def test_every_rest_answer_says_whether_it_is_the_synthetic_demo(
    client: TestClient,  # type: ignore[type-arg]
    app: Application,
    synthetic: bool,
) -> None:
    key = issue_key(app)
    answers = [
        client.get("/api/v1/search?query=invented"),
        client.get("/api/v1/schools/100001"),
        client.get("/api/v1/schools/999999"),  # a public refusal
        client.get("/api/v1/schools/100001", headers=bearer(key)),
        client.get("/api/v1/meta", headers=bearer(key)),
        client.get("/api/v1/meta"),  # a commercial refusal
        client.get("/api/v1/nope"),  # no such route
        client.get("/api/v1/search?query=x&api_key=svc_live_x"),  # refused by the edge
        client.head("/api/v1/schools/100001"),
        client.get("/health"),
        client.get("/metrics"),
    ]
    for response in answers:
        assert labelled(response) is (True if synthetic else None), response.request.url


def test_a_not_modified_answer_is_labelled_as_its_representation_was(
    client: TestClient,  # type: ignore[type-arg]
    synthetic: bool,
) -> None:
    first = client.get("/api/v1/schools/100001")
    again = client.get("/api/v1/schools/100001", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304
    assert labelled(again) is labelled(first) is (True if synthetic else None)


def test_the_open_record_says_synthetic_only_on_the_demo(
    client: TestClient,  # type: ignore[type-arg]
    app: Application,
    synthetic: bool,
) -> None:
    record = client.get("/api/v1/schools/100001").json()
    legacy = client.get("/api/get-school?urn=100001").json()
    if synthetic:
        assert record["synthetic"] is True and legacy["synthetic"] is True
        assert list(record)[-1] == "synthetic", "after every field of the record"
    else:
        assert "synthetic" not in record and "synthetic" not in legacy
    # The commercial profile already says so per source, and gets no new field.
    profile = client.get("/api/v1/schools/100001", headers=bearer(issue_key(app))).json()
    assert "synthetic" not in profile["data"]
    assert [s["synthetic"] for s in profile["meta"]["sources"]] == [synthetic]


def test_mcp_answers_say_so_too(
    client: TestClient,  # type: ignore[type-arg]
    synthetic: bool,
) -> None:
    mcp = McpHttp(client)
    response = mcp.modern("tools/call", {"name": "get_school", "arguments": {"urn": "100001"}})
    assert response.status_code == 200
    assert labelled(response) is (True if synthetic else None)
    structured = response.json()["result"]["structuredContent"]
    assert structured.get("synthetic") is (True if synthetic else None)


# ---- never waiting, never failing ------------------------------------------------------------


class ListNotInMemory:
    """A dataset list that must not be read: on the event loop it would mean waiting."""

    def current(self) -> list[object]:
        raise AssertionError("read the dataset list on the event loop")


class FailingList:
    def current(self) -> list[object]:
        raise DataUnavailable()


def test_the_edge_never_reads_a_dataset_list_that_is_not_in_memory() -> None:
    about = About(datasets=ListNotInMemory(), plans=PlanCatalogue(), in_memory=lambda: False)  # type: ignore[arg-type]
    with pytest.raises(WouldBlock):
        about.serves_synthetic_data(wait=False)
    assert labels_synthetic_data(about)() is False


def test_a_failing_dataset_list_costs_the_answer_its_label_never_the_answer() -> None:
    about = About(datasets=FailingList(), plans=PlanCatalogue(), in_memory=lambda: True)  # type: ignore[arg-type]
    assert labels_synthetic_data(about)() is False


def test_one_school_object_is_never_shown_with_the_other_label() -> None:
    school = School(urn=Urn(100001), name="Invented Primary School")
    base = "http://x"
    assert school_record(school, base_url=base, synthetic=True).synthetic is True
    assert b"synthetic" not in msgspec.json.encode(school_record(school, base_url=base))
    assert school_record(school, base_url=base, synthetic=True).synthetic is True


def test_the_labels_go_as_soon_as_real_data_replaces_the_demo(tmp_path: Path) -> None:
    app = with_data(synthetic=True)
    real = with_data(synthetic=False)  # the same school, from a real import
    asgi = build_asgi(app, load_settings(environ={}, home=tmp_path, base_url=BASE_URL))
    with TestClient(app=asgi, base_url="http://testserver.local") as client:
        before = client.get("/api/v1/schools/100001")
        assert labelled(before) and before.json()["synthetic"] is True
        record = real.ports.datasets.current()[0]
        app.import_dataset.execute(
            kind=DatasetKind.SCHOOLS,
            items=list(real.ports.schools.iter_all()),
            log=RejectLog(),
            record=record,
        )
        after = client.get("/api/v1/schools/100001")
    assert labelled(after) is None and "synthetic" not in after.json()
