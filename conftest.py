"""Before any test: a module compiled in place must not be older than its source (the
interpreter would import the old build and test old code)."""

from __future__ import annotations

import pytest
from tests.support.compiled import stale_builds


def pytest_configure(config: pytest.Config) -> None:
    if stale := stale_builds():
        pytest.exit(
            "compiled modules older than their source (run `make compiled` to build them "
            f"again, or `make pure`): {', '.join(stale)}",
            returncode=4,
        )
