"""The served faces, built once per test session.

Building the Litestar app (and the MCP server mounted in it) costs far more than a scenario's
requests, so the REST and MCP apps are built once, by the real composition (`create_app`,
`bootstrap.build_asgi`) over an application whose driven ports and plan catalogue are those
of the current scenario's world. The use cases hold nothing but their ports, so each scenario
still sees only its own data, keys, meters, plans and clock.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
from litestar.testing import TestClient

from features.drivers.world import BASE_URL, World
from schooldata.application.service import Application, Ports, build_application
from schooldata.bootstrap import TEST_SECRET, build_asgi
from schooldata.entrypoints.rest.app import create_app
from schooldata.settings import Settings


class Current:
    """Stands in for one part of the current scenario's application (a port, or the plan
    catalogue), looked up at each use."""

    def __init__(self, stage: Stage, part: str) -> None:
        self._stage = stage
        self._part = part

    def __getattr__(self, name: str) -> Any:
        world = self._stage.world
        assert world is not None, "a served face was used outside a scenario"
        app = world.app
        part = app.plans if self._part == "plans" else getattr(app.ports, self._part)
        return getattr(part, name)


def served_application(stage: Stage) -> Application:
    """The real `build_application`, over the current scenario's ports and plans."""
    ports = Ports(**{port.name: Current(stage, port.name) for port in attrs.fields(Ports)})
    return build_application(
        ports=ports,
        plans=Current(stage, "plans"),  # type: ignore[arg-type]
        key_secret=TEST_SECRET,
    )


class Stage:
    def __init__(self, home: Path) -> None:
        self.world: World | None = None
        self._home = home
        self._app = served_application(self)
        self._rest: TestClient[Any] | None = None
        self._mcp: TestClient[Any] | None = None

    @property
    def rest(self) -> TestClient[Any]:
        """The REST face alone, as `entrypoints.rest.app.create_app` builds it."""
        if self._rest is None:
            # No replay: one app serves every scenario's world in turn, faster than the data
            # version is re-read, so a remembered answer could cross scenarios
            # (tests/e2e/test_rest_replay.py covers replay on an app of its own).
            asgi = create_app(self._app, base_url=BASE_URL)
            self._rest = TestClient(app=asgi, base_url=BASE_URL).__enter__()  # type: ignore[arg-type]
        return self._rest

    @property
    def mcp(self) -> TestClient[Any]:
        """The served app, REST and MCP together, as `bootstrap.build_asgi` builds it."""
        if self._mcp is None:
            asgi = build_asgi(self._app, Settings(home=self._home, replay_mb=0, base_url=BASE_URL))
            self._mcp = TestClient(app=asgi, base_url=BASE_URL).__enter__()
        return self._mcp

    def close(self) -> None:
        for client in (self._rest, self._mcp):
            if client is not None:
                client.__exit__(None, None, None)
        self._rest = self._mcp = None
