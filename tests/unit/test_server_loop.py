"""`schooldata serve` runs on uvloop where the package installs it (docs/performance.md)."""

from __future__ import annotations

import platform
import sys

import pytest

from schooldata.bootstrap import server_loop


@pytest.mark.skipif(
    sys.platform == "win32" or platform.python_implementation() != "CPython",
    reason="uvloop is a dependency on CPython off Windows only",
)
def test_the_server_runs_on_uvloop_which_the_package_depends_on() -> None:
    assert server_loop() == "uvloop"


def test_without_uvloop_the_server_falls_back_to_asyncios_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    assert server_loop() == "asyncio"
