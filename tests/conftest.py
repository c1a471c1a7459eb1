"""Shared fixtures: an application on fakes over the hand-built dataset, and HTTP clients."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from litestar.testing import TestClient

from schooldata.application.service import Application
from schooldata.bootstrap import bootstrap_memory
from schooldata.entrypoints.rest.app import create_app
from tests.support.dataset import build_store

SHARED_DATA = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data")

# `schooldata refresh` must never reach the publishers from a test: unless a test points them
# at its own loopback server, the publishers' addresses are a closed port on this machine
# (port 9, discard: nothing listens there). Subprocesses inherit it.
NOWHERE = "http://127.0.0.1:9/"
os.environ["SCHOOLDATA_GIAS_BASE_URL"] = NOWHERE
os.environ["SCHOOLDATA_CODEPOINT_URL"] = NOWHERE + "codepoint"


def services_required() -> bool:
    return os.environ.get("SCHOOLDATA_REQUIRE_SERVICES") == "1"


@pytest.fixture
def app() -> Application:
    return bootstrap_memory(store=build_store())


@pytest.fixture
def client(app: Application) -> Iterator[TestClient]:  # type: ignore[type-arg]
    with TestClient(app=create_app(app, base_url="http://testserver.local")) as test_client:  # type: ignore[arg-type]
        yield test_client


def issue_key(app: Application, plan: str = "developer", org: str = "acme") -> str:
    return app.keys.create_key(organisation=f"{org}-{plan}", name="tests", plan=plan).key
