"""`schooldata.search(...)` and friends answer without a client, on the configured database
(here the embedded demo in a data home of the test's own)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import schooldata
from schooldata.library import default


@pytest.fixture
def demo_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("SCHOOLDATA_HOME", str(tmp_path))
    monkeypatch.delenv("SCHOOLDATA_DATABASE_URL", raising=False)
    monkeypatch.setattr(default, "_client", None)
    yield tmp_path
    if default._client is not None:
        default._client.close()


def test_the_package_searches_the_configured_database_for_every_match(demo_home: Path) -> None:
    everything = schooldata.search("st mary", all=True)
    first_page = schooldata.search("st mary")
    assert len(everything) == everything.total > len(first_page) == 10
    school = schooldata.get_school(everything.schools[0].urn)
    assert school.urn == everything.schools[0].urn
    assert (demo_home / "schooldata-demo.sqlite3").exists()


def test_the_functions_share_one_client(demo_home: Path) -> None:
    schooldata.search("st mary")
    first = default._client
    schooldata.nearby("SW1A 1AA")
    assert default._client is first is not None
