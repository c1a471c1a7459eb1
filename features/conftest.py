"""Every scenario runs once per face: the autouse, parametrised `driver` fixture.

Tags (pytest-bdd turns them into markers) say where a scenario applies:
- face tags `@domain`, `@rest`, `@mcp`, `@cli`: only on the faces named;
- capability tags: `@keys` (API keys: domain, REST, MCP), `@metering` (rate limits and
  quotas: domain, REST, MCP), `@envelope` (the commercial envelope's pagination: domain,
  REST, MCP), `@transport` (HTTP requests and responses: REST, MCP).
A scenario is skipped, with the reason, on a face that its tags rule out. A driver that has
no way to ask a question (`FaceCannot`) skips the scenario the same way.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from features.drivers import FACES, Driver, FaceCannot, driver_class, make_driver
from features.drivers.stage import Stage
from features.drivers.world import World

pytest_plugins = [
    "features.steps.callers",
    "features.steps.data",
    "features.steps.questions",
    "features.steps.answers",
    "features.steps.history",
    "features.steps.tables",
    "features.steps.hosts",
]

CAPABILITIES = {
    "keys": "API keys",
    "metering": "rate limits or quotas",
    "envelope": "pagination metadata (it prints only the data)",
    "transport": "HTTP transport",
}
TAGS = {
    **{
        face: f"runs on the {face} face (and any other face it is tagged with) only"
        for face in FACES
    },
    **{name: f"needs {what}" for name, what in CAPABILITIES.items()},
    "public": "the public tier (no key)",
    "commercial": "the commercial tier (a key and a plan)",
}


def pytest_configure(config: pytest.Config) -> None:
    for tag, meaning in TAGS.items():
        config.addinivalue_line("markers", f"{tag}: {meaning}")
    report = getattr(config.option, "cucumber_json_path", None)
    if report:  # pytest-bdd writes the report but does not create its folder
        Path(report).parent.mkdir(parents=True, exist_ok=True)


@pytest.fixture(scope="session")
def stage(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stage]:
    """The REST and MCP apps and their clients, built once (see drivers/stage.py)."""
    served = Stage(tmp_path_factory.mktemp("served"))
    try:
        yield served
    finally:
        served.close()


@pytest.fixture
def world() -> World:
    return World()


@pytest.fixture(autouse=True, params=FACES)
def driver(
    request: pytest.FixtureRequest, world: World, stage: Stage, tmp_path: Path
) -> Iterator[Driver]:
    face: str = request.param
    tags = {mark.name for mark in request.node.iter_markers()}
    faces = tags & set(FACES)
    if faces and face not in faces:
        pytest.skip(f"tagged for the {' and '.join(sorted(faces))} face only")
    has = driver_class(face).capabilities
    lacking = sorted(tag for tag in tags & set(CAPABILITIES) if tag not in has)
    if lacking:
        pytest.skip(f"the {face} face has no {' or '.join(CAPABILITIES[t] for t in lacking)}")
    driver = make_driver(face, world, stage, tmp_path)
    try:
        yield driver
    finally:
        stage.world = None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """A question the face cannot ask skips the scenario on that face instead of failing it."""
    try:
        return (yield)
    except FaceCannot as reason:
        pytest.skip(str(reason))
